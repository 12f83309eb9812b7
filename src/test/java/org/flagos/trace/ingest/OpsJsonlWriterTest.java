package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OpsJsonlWriter}: the ops files flagtrace recorded live on the H200 (plain ops, ops with args, scheduled
 * steps with their annotations) are written again byte for byte from what reading them gives; the file appears under
 * its name only when closed with a window end, and a writer closed without one leaves nothing behind.
 */
class OpsJsonlWriterTest {
    private static final List<String> RECORDED_LIVE = List.of("h200-java-parity", "h200-java-kinds/h200-java-kinds",
            "h200-java-managed/h200-java-managed", "h200-java-steps/h200-java-steps");

    @Test
    void theLiveRecordedOpsFilesAreWrittenAgainByteForByte(@TempDir Path dir) throws Exception {
        for (String name : RECORDED_LIVE) {
            Path source = Captures.ops(name);
            Path plain = dir.resolve(Captures.stem(name) + ".plain.ops.jsonl");
            try (InputStream in = Captures.open(source)) {
                Files.copy(in, plain);
            }
            HostOps ops = OpsJsonlReader.read(plain);
            assertEquals(List.of(), ops.warnings(), name);
            Path again = dir.resolve(Captures.stem(name) + ".ops.jsonl");
            try (OpsJsonlWriter w = new OpsJsonlWriter(again, ops.windowStartNs())) {
                for (HostOp op : ops.ops()) {
                    w.op(op);
                }
                w.close(ops.windowEndNs());
            }
            assertArrayEquals(Files.readAllBytes(plain), Files.readAllBytes(again), name);
        }
    }

    @Test
    void theFileAppearsOnlyWhenClosedWithAWindowEnd(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("late.ops.jsonl");
        Path partial = dir.resolve("late.ops.jsonl.partial");
        try (OpsJsonlWriter w = new OpsJsonlWriter(target)) {
            assertTrue(Files.exists(partial));
            assertFalse(Files.exists(target), "no file under its name while it is written");
            w.windowStart(100);
            w.op(new HostOp("step \"1\"", new ExternalId(7), HostOp.NO_THREAD, 110, 190, null, null, null, true));
            w.close(200);
        }
        assertFalse(Files.exists(partial));
        assertEquals("{\"window_start\":100}\n"
                + "{\"name\":\"step \\\"1\\\"\",\"external_id\":7,\"start\":110,\"end\":190,\"annotation\":true}\n"
                + "{\"window_end\":200}\n", Files.readString(target), "no thread, no thread name: neither field");
    }

    @Test
    void aWriterClosedWithoutAWindowEndLeavesNothing(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("abandoned.ops.jsonl");
        try (OpsJsonlWriter w = new OpsJsonlWriter(target, 5)) {
            w.op(new HostOp("aten::mm", new ExternalId(1), 3, 6, 9));
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.toList());
        }
        assertEquals(Path.of("/x/run.ops.jsonl"), OpsJsonlWriter.besides(Path.of("/x/run.fltrbuf")));
    }
}
