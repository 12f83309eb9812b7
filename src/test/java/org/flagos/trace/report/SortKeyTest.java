package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SortKey}: sorting the summary of torch's own H200 trace by {@code self_cuda_time_total} gives the rows of the
 * table torch printed for that run with that key, in torch's order (every row with device time); torch's key names,
 * {@code cuda} for {@code device}, are parsed, anything else is not; ties keep their order.
 */
class SortKeyTest {
    @Test
    void torchsOwnTableOrder() throws Exception {
        TorchKeyAveragesTest.Table torch = new TorchKeyAveragesTest.Table(Files.readString(TorchKeyAveragesTest.resource("key_averages.txt")));
        int selfCuda = torch.header.indexOf("Self CUDA");
        assertTrue(selfCuda > 0, torch.header.toString());
        List<String> want = new ArrayList<>();
        for (List<String> row : torch.rows) {
            if (TorchKeyAveragesTest.micros(row.get(selfCuda)) > 0) {
                want.add(row.get(0));
            }
        }
        KeyAverages ours = TraceFile.read(TorchKeyAveragesTest.resource("torch_trace.json")).averages();
        List<String> got = new ArrayList<>();
        for (KeyAveragesRow r : KeyAveragesTable.select(ours, SortKey.parse("self_cuda_time_total"), -1)) {
            if (r.selfDeviceUs() > 0) {
                got.add(r.name().length() > 55 ? r.name().substring(0, 52) + "..." : r.name());
            }
        }
        assertTrue(want.size() > 10, want.toString());
        assertEquals(want, got.subList(0, want.size()));
    }

    @Test
    void torchsNames() {
        for (SortKey k : SortKey.values()) {
            assertEquals(k, SortKey.parse(k.key()));
            assertEquals(k, SortKey.parse(k.key().replace("device", "cuda")), "torch's cuda spelling");
        }
        assertEquals(SortKey.SELF_DEVICE_TIME_TOTAL, SortKey.parse("self_cuda_time_total"));
        assertNull(SortKey.parse("self_time"));
        assertNull(SortKey.parse("Count"));
        assertNull(SortKey.parse(""));
        assertEquals("self_cpu_time_total, cpu_time_total, cpu_time, self_device_time_total, device_time_total, device_time, count",
                SortKey.names());
    }

    @Test
    void largestFirstTiesInOrder() {
        List<KeyAveragesRow> rows = new ArrayList<>(List.of(new KeyAveragesRow("a", false, 1, 5, 5, 0, 0),
                new KeyAveragesRow("b", false, 3, 9, 9, 0, 0), new KeyAveragesRow("c", false, 3, 5, 5, 0, 0),
                new KeyAveragesRow("d", false, 2, 9, 9, 0, 0)));
        rows.sort(SortKey.SELF_CPU_TIME_TOTAL.descending());
        assertEquals(List.of("b", "d", "a", "c"), rows.stream().map(KeyAveragesRow::name).toList());
        rows.sort(SortKey.COUNT.descending());
        assertEquals(List.of("b", "c", "d", "a"), rows.stream().map(KeyAveragesRow::name).toList());
        rows.sort(SortKey.CPU_TIME.descending());
        assertEquals(List.of("a", "d", "b", "c"), rows.stream().map(KeyAveragesRow::name).toList(), "5/1, 9/2, 9/3, 5/3");
    }
}
