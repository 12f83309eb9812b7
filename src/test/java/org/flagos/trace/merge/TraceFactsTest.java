package org.flagos.trace.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.tracefile.TraceFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the merge reads of a trace before it copies it, through the one reader, and what it refuses there. */
class TraceFactsTest {
    @TempDir
    Path dir;

    @Test
    void readsWhoTheClockTheBaseTheDevicesAndTheAccounting() throws Exception {
        TraceFacts f = TraceFacts.read(MergeTraces.trace(dir, 1, "", 2_000_000_000L));
        assertEquals(1, f.rank());
        assertEquals(2, f.identity().worldSize());
        assertEquals(1_000_000_000L, f.baseNs());
        assertEquals(1, f.anchors().size());
        assertEquals(2_000_000_000L, f.anchors().get(0).traceNs());
        assertEquals(1, f.devices().size());
        assertEquals(2L, f.accounting().get("invalid_records"));
        assertEquals(7L, f.accounting().get("host_clock.bound_ns"));
    }

    /** The merge used to skip events that are not objects (and read no event at all before copying): refused now, as summary refuses them. */
    @Test
    void aTraceTheReaderRefusesIsRefusedBeforeAnythingIsCopied() throws Exception {
        Path notObject = MergeTraces.trace(dir, 0, "7", null);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> TraceFacts.read(notObject));
        assertEquals(notObject + " is not a trace: traceEvents holds a number where an event object belongs (line 8)", e.getMessage());
        Path negative = Files.writeString(dir.resolve("negative.json"), "{\"distributedInfo\":{\"rank\":-1},\"traceEvents\":[]}");
        assertEquals(negative + ": distributedInfo.rank must be a whole number from 0 to 2147483647, not -1",
                assertThrows(TraceFormatException.class, () -> TraceFacts.read(negative)).getMessage());
        Path base = Files.writeString(dir.resolve("base.json"), "{\"baseTimeNanoseconds\":-9223372036854775808,\"traceEvents\":[]}");
        assertEquals(base + " is not a trace: baseTimeNanoseconds is -9223372036854775808, beyond ±4611686018427387904",
                assertThrows(TraceFormatException.class, () -> TraceFacts.read(base)).getMessage());
    }
}
