package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Comparing a summary's table with the one torch printed for the H200 reference trace. */
public final class TorchTables {
    private TorchTables() {
    }

    /**
     * {@code ours} is torch's table line for line, byte for byte, except the {@code aten::sort} row:
     * torch built with kineto folds the inner aten::sort (External id 25) into the outer (24), its only
     * child of its name (its {@code _remove_dup_nodes}); flagtrace's one rule counts every event
     * (KeyAveragesRule, as torch 1.13's legacy profiler counts them), so that row has 2 calls.
     */
    public static void assertTorchsTableButTheNestedSort(String torch, String ours, String what) {
        String[] t = torch.split("\n", -1);
        String[] o = ours.split("\n", -1);
        assertEquals(t.length, o.length, what + ": lines");
        int differ = 0;
        for (int i = 0; i < t.length; i++) {
            if (t[i].trim().startsWith("aten::sort ")) {
                differ++;
                assertEquals(t[i].substring(0, t[i].indexOf("aten::sort") + 10), o[i].substring(0, o[i].indexOf("aten::sort") + 10));
                continue;
            }
            assertEquals(t[i], o[i], what + ": line " + i);
        }
        assertEquals(1, differ, what + ": the aten::sort row");
    }
}
