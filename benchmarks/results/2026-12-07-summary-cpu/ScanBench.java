package org.flagos.trace.report;

import java.io.RandomAccessFile;
import java.util.Arrays;

/** Warm SummaryScan speed over 8 MiB chunks of a trace: ScanBench FILE OFFSET CHUNKS ROUNDS. */
public class ScanBench {
    public static void main(String[] a) throws Exception {
        long off = Long.parseLong(a[1]);
        int chunks = Integer.parseInt(a[2]), rounds = Integer.parseInt(a[3]);
        byte[][] bs = new byte[chunks][];
        int[] ends = new int[chunks];
        try (RandomAccessFile f = new RandomAccessFile(a[0], "r")) {
            for (int c = 0; c < chunks; c++) {
                byte[] raw = new byte[(8 << 20) + 4096];
                f.seek(off + (long) c * (8 << 20));
                f.readFully(raw);
                int s = 1;
                while (!(raw[s] == ',' && raw[s - 1] == '}' && raw[s + 1] == '{')) s++;
                int e = raw.length - 2;
                while (!(raw[e] == ',' && raw[e - 1] == '}' && raw[e + 1] == '{')) e--;
                byte[] b = new byte[e - s - 1 + 8];
                System.arraycopy(raw, s + 1, b, 0, e - s - 1);
                bs[c] = b;
                ends[c] = e - s - 1;
            }
        }
        SummaryScan scan = new SummaryScan();
        SummaryEvents ev = new SummaryEvents(1 << 16);
        long[] t = new long[rounds];
        long events = 0;
        for (int r = 0; r < rounds; r++) {
            long t0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            events = 0;
            for (int c = 0; c < chunks; c++) {
                ev.clear();
                scan.scan(bs[c], 0, ends[c], ev, () -> false);
                events += ev.size();
            }
            t[r] = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - t0;
        }
        long bytes = 0;
        for (int e : ends) bytes += e;
        System.out.println("rounds ms: " + Arrays.toString(Arrays.stream(t).map(x -> x / 1_000_000).toArray()));
        Arrays.sort(t);
        System.out.printf("kept events %d, bytes %d; best %.1f ms, median %.1f ms, %.1f ns/byte best%n", events, bytes,
                t[0] / 1e6, t[rounds / 2] / 1e6, (double) t[0] / bytes);
    }
}
