package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.IngestFuzzAccess;
import org.flagos.trace.ingest.OpDetailJson;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;

/**
 * Fuzz target: an {@code .ops.jsonl} file's bytes through the ops reader, decoded as UTF-8 the
 * way {@code OpsJsonlReader.read(Path)} decodes a file. Bad content must be a
 * {@link CaptureFormatException}; an {@link IOException} is accepted too because read(Path)
 * turns it into one. What the reader accepts must satisfy the documented shape.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/OpsJsonlReaderFuzzTestInputs/read/}.
 */
class OpsJsonlReaderFuzzTest {
    @FuzzTest(maxDuration = "3m")
    void read(byte[] file) {
        HostOps ops;
        try {
            ops = IngestFuzzAccess.readOps(new BufferedReader(new InputStreamReader(
                    new ByteArrayInputStream(file), StandardCharsets.UTF_8)), "fuzz.ops.jsonl");
        } catch (CaptureFormatException | IOException expected) {
            return;
        }
        check(ops.windowEndNs() >= ops.windowStartNs(), "window ends before it starts");
        for (HostOp op : ops.ops()) {
            check(op.name() != null && op.endNs() >= op.startNs() && op.externalId().value() >= 0
                    && (op.thread() >= 0 || op.thread() == HostOp.NO_THREAD), "accepted a bad op " + op);
            // accepted args and stacks are within their bounds and read back from their own text unchanged
            check(op.args() == null || op.args().size() <= OpArgs.MAX_ARGS
                    && OpDetailJson.argsOf(op.args().toJson()).equals(op.args()), "args do not round-trip: " + op.args());
            check(op.stack() == null || op.stack().depth() <= OpStack.MAX_FRAMES
                    && OpDetailJson.stackOf(op.stack().framesJson()).equals(op.stack()), "stack does not round-trip: " + op.stack());
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }
}
