package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.ExternalId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code annotation} flag of an ops file's op line (a user annotation, drawn as
 * {@code user_annotation}): written only when true, read back by the whole read and the stream alike;
 * a line without it (every file before the flag) reads as an op, and a flag that is not a boolean
 * stops the read in one line.
 */
class OpsJsonlAnnotationTest {
    @TempDir
    Path dir;

    private static List<HostOp> streamed(Path file) {
        List<HostOp> out = new ArrayList<>();
        try (HostOpCursor c = OpsJsonlReader.scan(file).cursor()) {
            for (HostOp op; (op = c.next()) != null; ) {
                out.add(op);
            }
        }
        return out;
    }

    @Test
    void theFlagRoundTripsAndAnOpsLineKeepsItsBytes() throws Exception {
        Path file = dir.resolve("x.ops.jsonl");
        OpsJsonlWriter w = new OpsJsonlWriter(file, 10);
        w.op(new HostOp("work", new ExternalId(1), 5, 12, 19, "main"));
        w.op(new HostOp("ProfilerStep#0", new ExternalId(0), 5, 11, 20, "main", null, null, true));
        w.close(30);
        assertEquals(List.of(
                "{\"window_start\":10}",
                "{\"name\":\"work\",\"external_id\":1,\"thread\":5,\"thread_name\":\"main\",\"start\":12,\"end\":19}",
                "{\"name\":\"ProfilerStep#0\",\"external_id\":0,\"thread\":5,\"thread_name\":\"main\",\"start\":11,\"end\":20,"
                        + "\"annotation\":true}",
                "{\"window_end\":30}"), Files.readAllLines(file), "an op's line is as before the flag");
        List<HostOp> read = OpsJsonlReader.read(file).ops();
        assertFalse(read.get(0).annotation());
        assertTrue(read.get(1).annotation());
        assertEquals(read, streamed(file));
    }

    @Test
    void aFileWithoutTheFlagReadsAsOpsAndFalseIsAnOp() throws Exception {
        Path file = dir.resolve("old.ops.jsonl");
        Files.writeString(file, """
                {"window_start":10}
                {"name":"ProfilerStep#3","external_id":0,"thread":5,"start":11,"end":20}
                {"name":"b","external_id":1,"thread":5,"start":12,"end":19,"annotation":false}
                {"window_end":30}
                """);
        List<HostOp> read = OpsJsonlReader.read(file).ops();
        assertEquals(2, read.size());
        assertTrue(read.stream().noneMatch(HostOp::annotation), "an op named as a step is still an op: the file did not say");
        assertEquals(read, streamed(file));
    }

    @Test
    void aFlagThatIsNotABooleanStopsTheReadInOneLine() throws Exception {
        Path file = dir.resolve("bad.ops.jsonl");
        Files.writeString(file, """
                {"window_start":10}
                {"name":"a","external_id":0,"start":11,"end":20,"annotation":"yes"}
                {"window_end":30}
                """);
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> OpsJsonlReader.read(file));
        assertEquals(file + ":2: \"annotation\" must be true or false", e.getMessage());
        assertEquals(e.getMessage(), assertThrows(CaptureFormatException.class, () -> OpsJsonlReader.scan(file)).getMessage());
    }
}
