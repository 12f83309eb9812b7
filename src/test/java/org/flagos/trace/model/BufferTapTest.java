package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link BufferTap#both}: with {@link BufferTap#NONE} on either side it is the other tap itself; otherwise every
 * buffer, kernel name and clock reaches the first tap, then the second, the same bytes to both.
 */
class BufferTapTest {
    /** Logs what it is handed, into a log shared by the taps of one test. */
    private record Logging(String name, List<String> log, List<ByteBuffer> buffers) implements BufferTap {
        @Override
        public void buffer(int dumpVendor, ByteBuffer validBytes) {
            log.add(name + " buffer " + dumpVendor + " " + validBytes.remaining());
            buffers.add(validBytes);
        }

        @Override
        public void kernelName(long handle, String vendorName) {
            log.add(name + " name " + handle + " " + vendorName);
        }

        @Override
        public void clock(DeviceClockMapping mapping) {
            log.add(name + " clock " + mapping.toEpoch(1_000));
        }
    }

    @Test
    void noneOnEitherSideGivesTheOtherTapItself() {
        BufferTap tap = new Logging("a", new ArrayList<>(), new ArrayList<>());
        assertSame(tap, BufferTap.both(BufferTap.NONE, tap));
        assertSame(tap, BufferTap.both(tap, BufferTap.NONE));
        assertSame(BufferTap.NONE, BufferTap.both(BufferTap.NONE, BufferTap.NONE));
    }

    @Test
    void everythingReachesTheFirstTapThenTheSecond() {
        List<String> log = new ArrayList<>();
        List<ByteBuffer> buffers = new ArrayList<>();
        BufferTap both = BufferTap.both(new Logging("a", log, buffers), new Logging("b", log, buffers));
        ByteBuffer bytes = ByteBuffer.wrap("activity records".getBytes(StandardCharsets.US_ASCII));
        both.buffer(3, bytes);
        both.kernelName(0x7f00L, "_Z6kernelPf");
        both.clock(new DeviceClockMapping(1_000, 5_000, 1.0));
        assertEquals(List.of("a buffer 3 16", "b buffer 3 16", "a name 32512 _Z6kernelPf", "b name 32512 _Z6kernelPf",
                "a clock 5000", "b clock 5000"), log);
        assertSame(bytes, buffers.get(0));
        assertSame(bytes, buffers.get(1));
    }

    @Test
    void aTapThatKeepsNoClockLetsTheOtherHaveIt() {
        List<String> log = new ArrayList<>();
        BufferTap withoutClock = new BufferTap() {
            @Override
            public void buffer(int dumpVendor, ByteBuffer validBytes) {
                log.add("buffer");
            }

            @Override
            public void kernelName(long handle, String vendorName) {
                log.add("name");
            }
        };
        BufferTap.both(withoutClock, new Logging("b", log, new ArrayList<>())).clock(DeviceClockMapping.IDENTITY);
        assertEquals(List.of("b clock 1000"), log, "a tap that keeps no clock is not handed one");
    }
}
