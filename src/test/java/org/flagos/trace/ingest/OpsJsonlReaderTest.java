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
}
