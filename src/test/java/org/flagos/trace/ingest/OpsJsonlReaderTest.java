package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.StringReader;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OpsJsonlReaderTest {
    private static HostOps read(String text) throws Exception {
        return OpsJsonlReader.read(new BufferedReader(new StringReader(text)), "ops");
    }

    @Test
    void readsTheRealOpsFileWithIdZero() {
        HostOps ops = OpsJsonlReader.read(Captures.ops("h200-app"));
        assertEquals(1795982694852089627L, ops.windowStartNs());
        assertEquals(1795982695254464967L, ops.windowEndNs());
        assertEquals("app::alloc", ops.ops().get(0).name());
        assertEquals(0, ops.ops().get(0).externalId().value());
        assertFalse(ops.ops().get(0).hasThread());
        assertTrue(OpsJsonlReader.read(Captures.ops("h200-mt4")).ops().get(0).hasThread());
    }

    /** Lines are separated by ¶ in the table. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"window_start\":1}¶not json¶{\"window_end\":2}|ops:2: invalid JSON",
        "{\"window_start\":1}¶[1,2]¶{\"window_end\":2}|ops:2: not a JSON object",
        "{\"window_start\":1}¶{\"name\":\"a\",\"start\":1,\"end\":2}¶{\"window_end\":2}|ops:2: an op line needs",
        "{\"window_start\":1}¶{\"name\":\"a\",\"external_id\":-1,\"start\":1,\"end\":2}¶{\"window_end\":2}|external_id must be non-negative",
        "{\"window_start\":1}¶{\"name\":\"a\",\"external_id\":1,\"start\":3,\"end\":2}¶{\"window_end\":9}|op ends before it starts",
        "{\"window_start\":1}¶{\"name\":\"a\",\"external_id\":1,\"start\":\"3\",\"end\":2}¶{\"window_end\":9}|\"start\" must be an integer",
        "{\"window_start\":1}¶{\"name\":\"a\",\"external_id\":99999999999999999999,\"start\":1,\"end\":2}¶{\"window_end\":9}|fits in 64 bits",
        "{\"window_start\":1}¶{\"name\":\"a\",\"external_id\":1,\"start\":1,\"end\":2}|no window_end line",
        "{\"name\":\"a\",\"external_id\":1,\"start\":1,\"end\":2}|op line before the window_start",
        "{\"window_start\":1} {\"x\":1}¶{\"window_end\":2}|not a single JSON object",
        "{\"window_start\":5}¶{\"window_end\":2}|precedes window_start",
        "{\"window_start\":1}¶{\"window_end\":2}¶{\"window_end\":3}|content after the window_end",
    })
    void garbageLinesGiveOneClearErrorWithTheLineNumber(String text, String expected) {
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> read(text.replace('¶', '\n')));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }

    @Test
    void unknownFieldsAreIgnored() throws Exception {
        HostOps ops = read("{\"window_start\":1}\n{\"name\":\"a\",\"external_id\":0,\"start\":1,\"end\":2,\"extra\":{\"k\":[1]}}\n{\"window_end\":2}");
        assertEquals(1, ops.ops().size());
    }

    /** A replay streams the file: the scan's window, count and warnings, and its ops in line order, are the whole read's. */
    @ParameterizedTest
    @CsvSource({"h200-app", "h200-mt4", "h200-tiny30k"})
    void aScannedFileStreamsTheOpsTheWholeReadHolds(String capture) {
        HostOps whole = OpsJsonlReader.read(Captures.ops(capture));
        OpsJsonlFile scanned = OpsJsonlReader.scan(Captures.ops(capture));
        assertEquals(whole.windowStartNs(), scanned.windowStartNs());
        assertEquals(whole.windowEndNs(), scanned.windowEndNs());
        assertEquals(whole.warnings(), scanned.warnings());
        assertEquals(whole.ops().size(), scanned.ops());
        java.util.List<HostOp> streamed = new java.util.ArrayList<>();
        try (HostOpCursor cursor = scanned.cursor()) {
            for (HostOp op; (op = cursor.next()) != null; ) {
                streamed.add(op);
            }
        }
        assertEquals(whole.ops(), streamed);
    }

    @Test
    void aScanFindsADuplicateIdWithTheLineThatFirstUsedIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("dup.ops.jsonl");
        StringBuilder text = new StringBuilder("{\"window_start\":1}\n");
        for (int i = 0; i < 1000; i++) {
            text.append("{\"name\":\"a\",\"external_id\":").append(i).append(",\"start\":1,\"end\":2}\n");
        }
        text.append("{\"name\":\"b\",\"external_id\":17,\"start\":1,\"end\":2}\n{\"window_end\":9}\n");
        java.nio.file.Files.writeString(file, text);
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> OpsJsonlReader.scan(file));
        assertTrue(e.getMessage().endsWith("dup.ops.jsonl:1002: external_id 17 was already used on line 19: each op needs its own id,"
                + " or its device time would be counted once per op"), e.getMessage());
    }

    @Test
    void idsAreKeptAsRunsAndTheCheckIsGivenUpPastTheBoundNeverSilently() {
        IdRuns ids = new IdRuns();
        for (long i = 0; i < 1_000_000; i++) { // ids in order, a parent's id after its children's
            assertTrue(ids.add(i % 3 == 0 ? i + 2 : i % 3 == 2 ? i - 2 : i));
        }
        assertFalse(ids.add(500_000));
        assertEquals(0, ids.givenUp());
        IdRuns scattered = new IdRuns();
        for (long i = 0; i <= IdRuns.MAX_RUNS; i++) {
            assertTrue(scattered.add(i * 2));
        }
        assertEquals(IdRuns.MAX_RUNS + 1, scattered.givenUp());
    }
}
