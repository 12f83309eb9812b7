package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DeviceClockMapping;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A vendor clock's mapping through a journal: written knot by knot as the session refines it,
 * read back as the chain the session used last, whether it grew, was cut back, or (as journals
 * of a single-line mapping wrote it) was the same first knot with a new rate each time.
 */
class JournalClockTest {
    private static final long EPOCH = 1_700_000_000_000_000_000L;

    @TempDir
    Path tmp;

    private DeviceClockMapping roundTrip(String name, List<DeviceClockMapping> written) throws java.io.IOException {
        Path dir = tmp.resolve(name);
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                new JournalSession(name, "test", 1_000, List.of(), Map.of(), -1, false))) {
            for (DeviceClockMapping m : written) {
                writer.clock(m);
            }
            writer.stop(2_000);
        }
        try (JournalReader reader = JournalReader.open(dir)) {
            return reader.scan().clock();
        }
    }

    @Test
    void aChainGrowingBufferByBufferReadsBackWhole() throws java.io.IOException {
        DeviceClockMapping one = new DeviceClockMapping(5_000, EPOCH, 0.952);
        DeviceClockMapping two = one.continuedAt(900_000, 0.9521);
        DeviceClockMapping three = two.continuedAt(1_800_000, 0.95205);
        assertEquals(three, roundTrip("growing", List.of(one, two, three)));
    }

    @Test
    void aFirstPieceWhoseRateChangedAndAChainCutBackReadAsTheLastWritten() throws java.io.IOException {
        DeviceClockMapping first = new DeviceClockMapping(5_000, EPOCH, 1.0);
        DeviceClockMapping learned = first.withLastRate(0.952);
        DeviceClockMapping grown = learned.continuedAt(900_000, 0.9521).continuedAt(1_800_000, 0.9522);
        DeviceClockMapping other = learned.continuedAt(900_000, 0.9523);
        assertEquals(learned, roundTrip("relearned", List.of(first, learned)));
        assertEquals(other, roundTrip("cut", List.of(first, grown, other)));
    }

    @Test
    void aSingleLineJournalReadsAsItsLastDocument() throws java.io.IOException {
        List<DeviceClockMapping> lines = List.of(new DeviceClockMapping(5_000, EPOCH, 0.95),
                new DeviceClockMapping(5_000, EPOCH, 0.951), new DeviceClockMapping(5_000, EPOCH, 0.9512));
        assertEquals(lines.get(2), roundTrip("lines", lines));
    }
}
