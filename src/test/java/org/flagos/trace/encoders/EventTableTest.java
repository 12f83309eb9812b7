package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table's own encoding: names of any text (quotes, commas, line breaks, tabs, non-ASCII, empty)
 * come back as they went in, an empty string is not null, nulls stay null, every long survives, the
 * slots' ranks and a merge's pids are filled in, and no scratch file is left.
 */
class EventTableTest {
    @TempDir
    Path dir;

    @Test
    void everyValueComesBackAsItWentIn() throws Exception {
        List<String> names = List.of("plain", "a,b", "he said \"x\"", "\"", "line\nbreak", "cr\r\nlf", "tab\there", "",
                "ünïcödé ✓ 𝄞", "trailing\\");
        Path parquet = dir.resolve("t.parquet");
        try (EventTable t = new EventTable(dir)) {
            t.source(0, "t.json", 1_000_000_000L, 0);
            t.slot(0, 7, "host'1");
            EventTable.Row r = new EventTable.Row();
            for (int i = 0; i < names.size(); i++) {
                r.reset();
                r.source = 0;
                r.ph = "X";
                r.cat = i == 0 ? null : "kernel";
                r.name = names.get(i);
                r.pid = i;
                r.tid = Long.MAX_VALUE - i;
                r.ts = -5 + i;
                r.dur = i == 1 ? EventTable.NONE : i;
                r.correlation = Long.MIN_VALUE + 1 + i; // unsigned ids past 2^63 read as negative
                t.add(r);
            }
            assertEquals(names.size(), t.writeParquet(parquet));
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT name, cat, pid, tid, ts_ns, dur_ns, correlation, rank, host FROM '"
                     + parquet + "' ORDER BY pid")) {
            List<String> got = new ArrayList<>();
            int i = 0;
            while (rs.next()) {
                got.add(rs.getString(1));
                if (i == 0) {
                    assertNull(rs.getString(2));
                }
                assertEquals(Long.MAX_VALUE - i, rs.getLong(4));
                assertEquals(1_000_000_000L - 5 + i, rs.getLong(5));
                rs.getLong(6);
                assertEquals(i == 1, rs.wasNull());
                assertEquals(Long.MIN_VALUE + 1 + i, rs.getLong(7));
                assertEquals(7, rs.getInt(8));
                assertEquals("host'1", rs.getString(9));
                i++;
            }
            assertEquals(names, got);
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertTrue(files.allMatch(f -> f.equals(parquet)), "scratch left in " + dir);
        }
    }

    @Test
    void aDeadProcesssScratchIsDeletedAndALiveOnesKept() throws Exception {
        long dead = 999_999_999L; // past any pid_max
        Path csv = Files.writeString(dir.resolve(EventTable.SCRATCH_PREFIX + dead + "-1.csv"), "x");
        Path spill = Files.createDirectories(dir.resolve(EventTable.SCRATCH_PREFIX + dead + "-1.tmp"));
        Files.writeString(spill.resolve("block"), "x");
        Path live = Files.writeString(dir.resolve(EventTable.SCRATCH_PREFIX + ProcessHandle.current().pid() + "-2.csv"), "x");
        Path other = Files.writeString(dir.resolve("keep.csv"), "x");
        new EventTable(dir).close();
        assertTrue(Files.exists(live) && Files.exists(other));
        assertTrue(!Files.exists(csv) && !Files.exists(spill));
    }
}
