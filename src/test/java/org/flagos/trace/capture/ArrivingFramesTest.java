package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * A real capture's frames as they arrive read back as the capture file reads them: each frame's vendor and payload
 * (little-endian), the bytes walked as the file counts them, no truncation; none after the close; and a window that
 * closes without a frame says so to the first wait.
 */
class ArrivingFramesTest {
    @Test
    void readBackAsTheCaptureFileReadsThem() {
        Arrivals arrivals = new Arrivals(128L << 20);
        ArrivingFrames frames = new ArrivingFrames(arrivals);
        int count = 0;
        try (FltrbufFrames file = FltrbufFrames.open(Captures.capture("h200-java-parity"))) {
            while (file.next()) {
                byte[] bytes = new byte[file.payload().remaining()];
                file.payload().duplicate().get(bytes);
                frames.add(file.vendor(), bytes);
                count++;
            }
            assertEquals(count, frames.waiting());
            arrivals.close(ArrivalsTest.CLOSING);
            assertTrue(frames.awaitFirst());
        }
        try (FltrbufFrames file = FltrbufFrames.open(Captures.capture("h200-java-parity"))) {
            while (file.next()) {
                assertTrue(frames.next());
                assertEquals(file.vendor(), frames.vendor());
                assertEquals(file.payload(), frames.payload());
                assertEquals(ByteOrder.LITTLE_ENDIAN, frames.payload().order());
                assertEquals(file.bytesRead(), frames.bytesRead());
            }
            assertFalse(frames.next());
            assertNull(frames.truncation());
            assertEquals(0, frames.waiting());
            assertEquals(0, (long) arrivals.locked(arrivals::queuedBytes));
        }
    }

    @Test
    void aWindowClosedWithoutAFrameHasNoFirst() {
        Arrivals arrivals = new Arrivals(128L << 20);
        ArrivingFrames frames = new ArrivingFrames(arrivals);
        arrivals.close(ArrivalsTest.CLOSING);
        assertFalse(frames.awaitFirst());
        assertFalse(frames.next());
        frames.add(1, ByteBuffer.allocate(4).array());
        assertEquals(0, frames.waiting(), "nothing is held after the close");
    }
}
