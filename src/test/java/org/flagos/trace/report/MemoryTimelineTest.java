package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryTimeline}: every point kept up to {@link MemoryTimeline#MAX_POINTS}; past it, neighbouring pairs merged
 * into the later time and the larger total, so the series stays bounded, its peak survives, its last point is the
 * last event and each kept total is the largest of the events it stands for (checked against the events themselves
 * for random series of up to 20 times the bound); devices past {@link MemoryTimeline#MAX_DEVICES} left out and
 * uncounted; a relabelling keeps the series.
 */
class MemoryTimelineTest {
    @Test
    void everyPointIsKeptUpToTheBound() {
        MemoryTimeline m = new MemoryTimeline();
        for (int i = 0; i < MemoryTimeline.MAX_POINTS; i++) {
            m.add("device 0", 1_000L * i, i % 7 * 100L);
        }
        MemoryTimeline.Series s = m.devices().get("device 0");
        assertEquals(MemoryTimeline.MAX_POINTS, s.size);
        for (int i = 0; i < s.size; i++) {
            assertEquals(1_000L * i, s.ts[i]);
            assertEquals(i % 7 * 100L, s.total[i]);
        }
        assertEquals(600, s.peak);
        assertEquals(MemoryTimeline.MAX_POINTS, m.events());
    }

    @Test
    void pastTheBoundPairsMergeIntoTheLaterTimeAndTheLargerTotal() {
        MemoryTimeline m = new MemoryTimeline();
        int n = MemoryTimeline.MAX_POINTS;
        for (int i = 0; i <= n; i++) { // one more than fits: the first n halve to n / 2, then the last is added
            m.add("GPU 0", i, i % 2 == 0 ? 10 * i : 1);
        }
        MemoryTimeline.Series s = m.devices().get("GPU 0");
        assertEquals(n / 2 + 1, s.size);
        for (int j = 0; j < n / 2; j++) {
            assertEquals(2L * j + 1, s.ts[j], "the later time of pair " + j);
            assertEquals(Math.max(10L * 2 * j, 1), s.total[j], "the larger total of pair " + j);
        }
        assertEquals(n, s.ts[n / 2]);
        assertEquals(10L * n, s.total[n / 2]);
        assertEquals(10L * n, s.peak);
    }

    @Test
    void randomSeriesStayBoundedAndKeepTheirPeaksAndLastPoint() {
        SplittableRandom random = new SplittableRandom(30);
        for (int round = 0; round < 12; round++) {
            int events = 1 + random.nextInt(20 * MemoryTimeline.MAX_POINTS);
            long[] ts = new long[events];
            long[] total = new long[events];
            MemoryTimeline m = new MemoryTimeline();
            long t = 0;
            for (int i = 0; i < events; i++) {
                t += 1 + random.nextInt(1_000); // distinct times: each point names the last event it stands for
                ts[i] = t;
                total[i] = random.nextLong(1L << 40);
                m.add("CPU", ts[i], total[i]);
            }
            MemoryTimeline.Series s = m.devices().get("CPU");
            assertTrue(s.size <= MemoryTimeline.MAX_POINTS && s.size > 0, "bounded: " + s.size);
            assertEquals(Arrays.stream(total).max().getAsLong(), s.peak);
            assertEquals(s.peak, Arrays.stream(s.total, 0, s.size).max().getAsLong(), "the peak survives among the points");
            assertEquals(ts[events - 1], s.ts[s.size - 1], "the last event is the last point");
            // Each point stands for the events after the previous point up to its own time: its total is their largest.
            int from = 0;
            for (int p = 0; p < s.size; p++) {
                int to = from;
                while (ts[to] != s.ts[p]) {
                    to++;
                }
                long largest = 0;
                for (int i = from; i <= to; i++) {
                    largest = Math.max(largest, total[i]);
                }
                assertEquals(largest, s.total[p], "point " + p + " of " + s.size + " in round " + round);
                from = to + 1;
            }
            assertEquals(events, from, "every event is behind some point");
            assertEquals(events, m.events());
        }
    }

    @Test
    void devicesPastTheBoundAreLeftOutAndTheRestRenamed() {
        MemoryTimeline m = new MemoryTimeline();
        for (int d = 0; d < MemoryTimeline.MAX_DEVICES + 3; d++) {
            m.add(String.format("device %03d", d), d, d);
        }
        m.add("device 000", 100, 5);
        assertEquals(MemoryTimeline.MAX_DEVICES, m.devices().size());
        assertEquals(MemoryTimeline.MAX_DEVICES + 1, m.events(), "an event of a device left out is not counted as read");
        assertEquals("device 000", m.devices().keySet().iterator().next(), "name order");
        assertArrayEquals(new long[] {0, 100}, Arrays.copyOf(m.devices().get("device 000").ts, 2));
        MemoryTimeline renamed = m.relabel(name -> "rank 1 " + name);
        assertEquals(m.events(), renamed.events());
        assertSame(m.devices().get("device 007"), renamed.devices().get("rank 1 device 007"));
        assertEquals(List.copyOf(m.devices().keySet()).stream().map(k -> "rank 1 " + k).toList(), List.copyOf(renamed.devices().keySet()));
    }
}
