package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EventFacts#finish}, row by row with the facts known first (the Spark data source's way), gives the columns
 * {@link EventTable} writes for the same rows with the facts given after them ({@code flagtrace tables}' way): a
 * merged trace's slot from its pid, a slot without a rank, a pid back to the process's own (or to none), a pid below
 * the stride, a device too large for an INTEGER, a copy's kind, the base time; and a time past any BIGINT is refused.
 */
class EventFactsTest {
    private static final long STRIDE = 1000;
    private static final long BASE = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    /** The rows of a merged trace of two slots. */
    private static List<EventTable.Row> rows() {
        List<EventTable.Row> out = new ArrayList<>();
        long[][] pidTsDevice = {
            {1001, 50, 0}, {2001, 10, 1}, {5, 30, 1L << 40}, {1002, 20, EventTable.NONE}, {2001, 5, 3}, {1001, 40, -1},
        };
        for (int i = 0; i < pidTsDevice.length; i++) {
            EventTable.Row r = new EventTable.Row();
            r.source = 0;
            r.ph = "X";
            r.cat = i % 2 == 0 ? "gpu_memcpy" : "kernel";
            r.name = i % 2 == 0 ? "Memcpy DtoH (Device -> Pageable)" : "k" + i;
            r.pid = pidTsDevice[i][0];
            r.tid = i;
            r.ts = pidTsDevice[i][1];
            r.device = pidTsDevice[i][2];
            r.groupSize = i == 3 ? Integer.MAX_VALUE + 1L : 8;
            out.add(r);
        }
        return out;
    }

    private static void facts(EventRows to) {
        to.source(0, "merged.json", BASE, STRIDE);
        to.slot(0, 3, "host-a");
        to.slot(1, null, null);
        to.pid(0, 1001, 4242);
        to.pid(1, 2001, EventTable.NONE);
    }

    private static String key(Object... v) {
        return Arrays.toString(v);
    }

    private static Object orNull(long v) {
        return v == EventTable.NONE ? null : v;
    }

    @Test
    void finishingRowByRowGivesTheColumnsTablesWrites() throws Exception {
        EventFacts facts = new EventFacts();
        facts(facts); // the facts first, as the data source's first pass learns them
        List<Object[]> want = new ArrayList<>();
        for (EventTable.Row r : rows()) {
            EventFacts.Finished f = facts.finish(r, new EventFacts.Finished());
            want.add(new Object[] {f.rank, f.slot, f.host, orNull(r.pid), f.tsNs, orNull(r.device), f.copyKind, orNull(r.groupSize), r.name});
        }
        want.sort(Comparator.<Object[]>comparingInt(a -> (int) a[0]).thenComparingInt(a -> (int) a[1]).thenComparingLong(a -> (long) a[4]));
        // what the rule gives, recounted by hand: slot 1 has no rank (-1 - 1), pid 5 is below the stride (slot 0, kept)
        assertEquals(key(-2, 1, null, null, BASE + 5, 3L, "DtoH", 8L, "Memcpy DtoH (Device -> Pageable)"), key(want.get(0)));
        assertEquals(key(3, 0, "host-a", 5L, BASE + 30, null, "DtoH", 8L, "Memcpy DtoH (Device -> Pageable)"), key(want.get(3)));
        assertEquals(key(3, 0, "host-a", 1002L, BASE + 20, null, null, null, "k3"), key(want.get(2)));
        assertEquals(key(3, 0, "host-a", 4242L, BASE + 40, -1L, null, 8L, "k5"), key(want.get(4)));

        Path parquet = dir.resolve("t.parquet");
        try (EventTable t = new EventTable(dir)) {
            for (EventTable.Row r : rows()) {
                t.add(r);
            }
            facts(t); // after the rows, as a trace may say them
            t.writeParquet(parquet);
        }
        List<String> got = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT rank, slot, host, pid, ts_ns, device, copy_kind, group_size, name FROM '"
                     + parquet + "'")) { // the file's own order: tables sorts by rank, slot, ts_ns
            while (rs.next()) {
                Object[] v = new Object[9];
                for (int i = 0; i < 9; i++) {
                    Object o = rs.getObject(i + 1);
                    v[i] = o instanceof Integer n && i >= 3 ? Long.valueOf(n) : o;
                }
                got.add(key(v));
            }
        }
        assertEquals(6, got.size());
        assertEquals(want.stream().map(EventFactsTest::key).toList(), got);
    }

    @Test
    void aTimePastAnyBigintIsRefused() {
        EventFacts facts = new EventFacts();
        facts.source(0, "t.json", Long.MAX_VALUE - 10, 0);
        EventTable.Row r = new EventTable.Row();
        r.ts = 11;
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> facts.finish(r, new EventFacts.Finished()));
        assertTrue(e.getMessage().contains("past any BIGINT"), e.getMessage());
    }
}
