package org.flagos.trace.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.FltrbufFrames;

/**
 * Fuzz target: a whole {@code .fltrbuf} file through the frame cursor. A wrong magic is a
 * {@link CaptureFormatException}; anything else must walk to the end or stop at a truncation.
 * Any other exception, or frames that break the cursor's own promises, is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/fuzz/FltrbufFramesFuzzTestInputs/frames/}.
 */
class FltrbufFramesFuzzTest {
    private static final int HEADER = 16;

    @FuzzTest(maxDuration = "3m")
    void frames(byte[] file) {
        FltrbufFrames frames;
        try {
            frames = new FltrbufFrames(ByteBuffer.wrap(file), "fuzz");
        } catch (CaptureFormatException expected) {
            return;
        }
        long consumed = 8; // magic
        int expectedIndex = 0;
        while (frames.next()) {
            ByteBuffer payload = frames.payload();
            check(frames.index() == expectedIndex++, "frame index " + frames.index() + " out of order");
            check(payload.position() == consumed + HEADER, "payload of frame " + frames.index()
                    + " starts at " + payload.position() + ", expected " + (consumed + HEADER));
            consumed += HEADER + payload.remaining();
            check(consumed <= file.length, "frames run past the end of the file");
            check(payload.limit() <= file.length && payload.capacity() == file.length, "payload view out of the file");
        }
        check(frames.truncation() != null || consumed == file.length,
                "walk ended cleanly after " + consumed + " of " + file.length + " bytes");
        check(!frames.next(), "next() after the end returned another frame");
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }
}
