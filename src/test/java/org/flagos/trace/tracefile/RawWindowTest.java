package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The window merge takes an event's bytes from: what it holds is always the stream's bytes at the
 * offsets it says, a mark keeps every byte from it on (up to the cap), without a mark the last
 * {@link RawWindow#RETAIN} bytes always stay and the buffer does not grow, and it never grows past
 * {@link RawWindow#CAP} whatever is read.
 */
class RawWindowTest {
    private static byte[] stream(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** The window's bytes are the stream's, from {@code base} to {@code base + len}, and end where reading is. */
    private static void assertHeldBytesAreTheStreams(RawWindow w, byte[] all, long read) {
        assertEquals(read, w.base + w.len, "the window ends where the reader is");
        assertArrayEquals(Arrays.copyOfRange(all, (int) w.base, (int) (w.base + w.len)), Arrays.copyOf(w.buf, w.len),
                "bytes at base " + w.base);
        assertTrue(w.buf.length <= RawWindow.CAP, "never past the cap: " + w.buf.length);
    }

    @Test
    void withoutAMarkTheLastRetainedBytesStayAndTheBufferDoesNotGrow() throws IOException {
        byte[] all = stream(2 * (1 << 20) + 123, 1);
        RawWindow w = new RawWindow(new ByteArrayInputStream(all));
        int first = w.buf.length;
        byte[] chunk = new byte[5000];
        long read = 0;
        for (int got; (got = w.read(chunk, 0, chunk.length)) > 0; ) {
            read += got;
            assertHeldBytesAreTheStreams(w, all, read);
            assertTrue(w.holds(Math.max(0, read - RawWindow.RETAIN), read), "the last RETAIN bytes at " + read);
        }
        assertEquals(all.length, read);
        assertEquals(first, w.buf.length, "no mark: older bytes make room, the buffer stays as it was");
        assertTrue(w.base > 0, "the oldest bytes went");
        assertFalse(w.holds(0, read));
        assertEquals(-1, w.read(), "end of stream");
        assertEquals(-1, w.read(chunk, 0, 10));
        assertHeldBytesAreTheStreams(w, all, read);
    }

    @Test
    void aMarkKeepsEveryByteFromItOnAsTheBufferGrows() throws IOException {
        byte[] all = stream(2 * (1 << 20), 2); // past the first buffer (256 KiB): it grows
        RawWindow w = new RawWindow(new ByteArrayInputStream(all));
        byte[] chunk = new byte[7777];
        long mark = 1000;
        long read = w.read(chunk, 0, 1500);
        w.keepFrom(mark);
        for (int got; (got = w.read(chunk, 0, chunk.length)) > 0; ) {
            read += got;
            assertHeldBytesAreTheStreams(w, all, read);
            assertTrue(w.holds(mark, read), "every byte from the mark at " + read);
        }
        assertEquals(all.length - mark, w.len, "nothing before the mark is kept past what reading ahead needs");
        w.keepFrom(RawWindow.NONE);
        // the next read lets the bytes before the last RETAIN go
        assertEquals(-1, w.read(chunk, 0, 1));
    }

    @Test
    void singleBytesAndSkipGoThroughTheWindow() throws IOException {
        byte[] all = stream(10_000, 3);
        RawWindow w = new RawWindow(new ByteArrayInputStream(all));
        w.keepFrom(0);
        for (int i = 0; i < 100; i++) {
            assertEquals(all[i] & 0xff, w.read());
        }
        assertEquals(8192, w.skip(1 << 20), "skip reads at most 8 KiB through the window");
        assertHeldBytesAreTheStreams(w, all, 100 + 8192);
        assertTrue(w.holds(0, 100 + 8192));
        assertEquals(all.length - 100 - 8192, w.skip(1 << 20), "the rest");
        assertEquals(0, w.skip(10), "nothing left to skip");
        assertFalse(w.markSupported());
    }

    @Test
    void aReadLargerThanTheCapKeepsOnlyItsLastCapBytes() throws IOException {
        byte[] all = stream(RawWindow.CAP + 3 * RawWindow.RETAIN + 17, 4);
        RawWindow w = new RawWindow(new ByteArrayInputStream(all));
        w.keepFrom(0); // a mark the window cannot honour past the cap
        byte[] into = new byte[all.length];
        int read = 0;
        for (int got; (got = w.read(into, read, into.length - read)) > 0; ) {
            read += got;
            assertHeldBytesAreTheStreams(w, all, read);
        }
        assertEquals(all.length, read);
        assertEquals(RawWindow.CAP, w.len, "the last CAP bytes");
        assertEquals(all.length - RawWindow.CAP, w.base);
        assertFalse(w.holds(0, read), "the mark's first byte went: that event is past the event cap anyway");
    }

    @Test
    void randomReadsAndMarksAlwaysHoldTheStreamsBytes() throws IOException {
        Random r = new Random(5);
        byte[] all = stream(12 * (1 << 20), 6);
        RawWindow w = new RawWindow(new ByteArrayInputStream(all));
        byte[] chunk = new byte[1 << 17];
        long read = 0;
        long mark = RawWindow.NONE;
        int checks = 0;
        while (read < all.length) {
            int op = r.nextInt(10);
            if (op == 0) {
                mark = read - r.nextInt((int) Math.min(read, RawWindow.RETAIN) + 1); // a byte the parser has read
                if (w.holds(mark, read)) {
                    w.keepFrom(mark);
                } else {
                    mark = RawWindow.NONE;
                }
            } else if (op == 1) {
                mark = RawWindow.NONE;
                w.keepFrom(mark);
            } else {
                int got = op == 2 ? (w.read() >= 0 ? 1 : -1) : w.read(chunk, 0, 1 + r.nextInt(op == 3 ? 64 : chunk.length));
                if (got < 0) {
                    break;
                }
                read += got;
            }
            assertEquals(read, w.base + w.len);
            if (mark != RawWindow.NONE && read - mark <= RawWindow.CAP - chunk.length) {
                assertTrue(w.holds(mark, read), "marked " + mark + " read " + read);
                checks++;
            }
            assertTrue(w.buf.length <= RawWindow.CAP);
        }
        assertHeldBytesAreTheStreams(w, all, read);
        assertTrue(checks > 100, "the marks were exercised: " + checks);
    }
}
