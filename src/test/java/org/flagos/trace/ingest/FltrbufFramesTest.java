package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

class FltrbufFramesTest {
    private static ByteBuffer file(int vendor, int reserved, long declared, int actualPayload) {
        ByteBuffer b = ByteBuffer.allocate(8 + 16 + actualPayload).order(ByteOrder.LITTLE_ENDIAN);
        b.put("FLTRBUF1".getBytes(StandardCharsets.US_ASCII)).putInt(vendor).putInt(reserved).putLong(declared);
        b.put(new byte[actualPayload]).flip();
        return b;
    }

    @Test
    void wrongMagicIsRejectedWithAClearMessage() {
        ByteBuffer b = ByteBuffer.wrap("NOTMAGIC and more".getBytes(StandardCharsets.US_ASCII));
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> new FltrbufFrames(b, "x.fltrbuf"));
        assertTrue(e.getMessage().contains("wrong magic"), e.getMessage());
        assertThrows(CaptureFormatException.class, () -> new FltrbufFrames(ByteBuffer.allocate(3), "tiny"));
    }

    @Test
    void aFrameRunningPastTheEndIsHandedOutWithWhatIsThereAndItsLossCounted() {
        ByteBuffer good = file(1, 0, 8, 8);
        ByteBuffer both = ByteBuffer.allocate(good.remaining() + 16 + 4).order(ByteOrder.LITTLE_ENDIAN);
        both.put(good.duplicate()).putInt(1).putInt(0).putLong(1000).putInt(7).flip();
        FltrbufFrames frames = new FltrbufFrames(both, "cut.fltrbuf");
        assertTrue(frames.next());
        assertEquals(8, frames.payload().remaining());
        assertTrue(frames.next(), "the cut frame's 4 bytes are handed out for salvage");
        assertEquals(4, frames.payload().remaining());
        assertEquals(7, frames.payload().getInt(frames.payload().position()));
        assertFalse(frames.next());
        assertEquals(996, frames.lostBytes());
        assertTrue(frames.truncation().contains("declares 1000 payload bytes but only 4 remain"), frames.truncation());
        assertTrue(frames.truncation().contains("996 bytes lost"), frames.truncation());
    }

    @Test
    void aHeaderCutShortIsReported() {
        ByteBuffer b = ByteBuffer.allocate(8 + 5).order(ByteOrder.LITTLE_ENDIAN);
        b.put("FLTRBUF1".getBytes(StandardCharsets.US_ASCII)).put(new byte[5]).flip();
        FltrbufFrames frames = new FltrbufFrames(b, "x");
        assertFalse(frames.next());
        assertTrue(frames.truncation().contains("frame header"), frames.truncation());
    }

    @Test
    void aNonZeroReservedWordIsNotVersion1() {
        FltrbufFrames frames = new FltrbufFrames(file(1, 9, 0, 0), "x");
        assertFalse(frames.next());
        assertTrue(frames.truncation().contains("reserved=9"));
    }

    @Test
    void aHugeLengthDoesNotOverflow() {
        FltrbufFrames frames = new FltrbufFrames(file(1, 0, -1L, 0), "x");
        assertFalse(frames.next());
        assertTrue(frames.truncation().contains("18446744073709551615"), frames.truncation());
    }

    @Test
    void payloadViewsAreBoundedToTheirFrame() {
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture("h200-mt4")), "mt4");
        int n = 0;
        while (frames.next()) {
            assertEquals(1, frames.vendor());
            assertTrue(frames.payload().remaining() > 0);
            n++;
        }
        assertEquals(5, n);
        assertNull(frames.truncation());
    }

    @Test
    void gzipCapturesAreInflated() {
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture("h200-tiny30k")), "30k");
        int n = 0;
        while (frames.next()) {
            n++;
        }
        assertEquals(2, n);
        assertNull(frames.truncation());
    }
}
