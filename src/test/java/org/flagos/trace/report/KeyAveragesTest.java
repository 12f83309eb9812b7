package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyAverages}' look-ups and totals on real torch traces, against the truth torch printed for them:
 * {@code torch-reference/key_averages.txt} (a CUDA run) and {@code torch-legacy/chain.key_averages.json}
 * (torch 1.13, CPU only). {@link TorchKeyAveragesTest} checks every row; this checks the class's own logic.
 */
class KeyAveragesTest {
    private static Path resource(String name) throws Exception {
        return Path.of(KeyAveragesTest.class.getResource(name).toURI());
    }

    private static String us3(double us) {
        return String.format("%.3f", us);
    }

    @Test
    void aCudaTracesTotalsAreTorchsAndLookUpsFindHostAndDeviceRows() throws Exception {
        KeyAverages a = KeyAverages.of(TraceFile.read(resource("/torch-reference/torch_trace.json")));
        // key_averages.txt: "Self CPU time total: 14.157ms", "Self CUDA time total: 337.595us"
        assertEquals("14.157", String.format("%.3f", KeyAverages.selfCpuTotalUs(a.rows()) / 1000));
        assertEquals("337.595", us3(KeyAverages.selfDeviceTotalUs(a.rows())));
        assertTrue(a.hasDeviceTime());
        assertEquals("CUDA", a.deviceLabel());

        // aten::copy_: 49.798us self CPU, 249.373us self CUDA, 2 calls; its copy is a device row of its own
        KeyAveragesRow copy = a.row("aten::copy_");
        assertFalse(copy.device());
        assertEquals(2, copy.count());
        assertEquals("49.798", us3(copy.selfCpuUs()));
        assertEquals("249.373", us3(copy.selfDeviceUs()));
        assertSame(copy, a.row("aten::copy_", false));
        assertNull(a.row("aten::copy_", true));
        KeyAveragesRow memcpy = a.row("Memcpy HtoD (Pageable -> Device)", true);
        assertTrue(memcpy.device());
        assertEquals("248.285", us3(memcpy.selfDeviceUs()));
        assertEquals(0, memcpy.selfCpuUs());
        assertNull(a.row("Memcpy HtoD (Pageable -> Device)", false));
        assertNull(a.row("no such op"));

        // the device total sums device rows only: host rows' self device time is not counted twice
        double deviceRows = a.rows().stream().filter(KeyAveragesRow::device).mapToDouble(KeyAveragesRow::selfDeviceUs).sum();
        double allRows = a.rows().stream().mapToDouble(KeyAveragesRow::selfDeviceUs).sum();
        assertEquals(deviceRows, KeyAverages.selfDeviceTotalUs(a.rows()), 1e-9);
        assertTrue(allRows > deviceRows + 200, "host rows carry self device time too: " + allRows + " vs " + deviceRows);
    }

    @Test
    void aCpuOnlyTraceHasNoDeviceTimeAndTorchsRows() throws Exception {
        KeyAverages a = KeyAverages.of(TraceFile.read(resource("/torch-legacy/chain.json")));
        assertFalse(a.hasDeviceTime());
        assertEquals(0, KeyAverages.selfDeviceTotalUs(a.rows()));
        // chain.key_averages.json: rows in first-appearance order with torch's counts and times
        assertEquals(List.of("aten::zeros", "aten::empty", "aten::zero_", "outer", "deep"),
                a.rows().stream().map(KeyAveragesRow::name).toList());
        long[][] want = {{12, 830, 625}, {24, 131, 131}, {12, 78, 78}, {4, 338, 145}, {8, 342, 58}};
        for (int i = 0; i < want.length; i++) {
            KeyAveragesRow r = a.rows().get(i);
            assertEquals(want[i][0], r.count(), r.name());
            assertEquals(want[i][1], r.cpuTotalUs(), 1e-6, r.name());
            assertEquals(want[i][2], r.selfCpuUs(), 1e-6, r.name());
        }
        assertEquals(625 + 131 + 78 + 145 + 58, KeyAverages.selfCpuTotalUs(a.rows()), 1e-6);
        assertEquals(KeyAverages.selfCpuTotalUs(a.rows().subList(0, 2)), 625 + 131, 1e-6);
    }
}
