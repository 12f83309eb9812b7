package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * {@link IndexOrder}: the event indices of torch's own H200 trace ordered by start, and random keys with many ties at
 * every length up to past a few merge widths, come out as {@link List#sort}'s stable sort puts them: equal keys keep
 * their order.
 */
class IndexOrderTest {
    private static int[] javaOrder(long[] keys, int length) {
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            idx.add(i);
        }
        idx.sort(Comparator.comparingLong(i -> keys[i]));
        return idx.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int[] indexOrder(long[] keys, int length) {
        int[] idx = new int[length];
        for (int i = 0; i < length; i++) {
            idx[i] = i;
        }
        IndexOrder.sort(idx, length, (a, b) -> Long.compare(keys[a], keys[b]));
        return idx;
    }

    @Test
    void theEventsOfTorchsTraceByStart() throws Exception {
        JsonNode events = TraceJson.MAPPER.readTree(TorchKeyAveragesTest.resource("torch_trace.json").toFile()).get("traceEvents");
        long[] ts = new long[events.size()];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = Math.round(events.get(i).path("ts").asDouble(-1) * 1000); // metadata events: -1000, all tied
        }
        assertArrayEquals(javaOrder(ts, ts.length), indexOrder(ts, ts.length));
    }

    @Test
    void randomKeysWithTiesStayStable() {
        Random r = new Random(30);
        for (int length = 0; length < 300; length++) {
            long[] keys = new long[length];
            for (int i = 0; i < length; i++) {
                keys[i] = r.nextInt(1 + length / 4);
            }
            assertArrayEquals(javaOrder(keys, length), indexOrder(keys, length), "length " + length);
        }
        long[] big = new long[5000];
        for (int i = 0; i < big.length; i++) {
            big[i] = r.nextInt(50);
        }
        assertArrayEquals(javaOrder(big, big.length), indexOrder(big, big.length));
        long[] sorted = new long[1000];
        long[] reversed = new long[1000];
        for (int i = 0; i < 1000; i++) {
            sorted[i] = i / 3;
            reversed[i] = (1000 - i) / 3;
        }
        assertArrayEquals(javaOrder(sorted, 1000), indexOrder(sorted, 1000));
        assertArrayEquals(javaOrder(reversed, 1000), indexOrder(reversed, 1000));
        assertArrayEquals(javaOrder(big, 777), indexOrder(big, 777), "only the first length indices");
    }
}
