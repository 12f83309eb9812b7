package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table spooled row by row prints exactly what {@link ResultTable#render} gives for the same rows: widths
 * from the widest cell (the header included), text columns to the left, NULL as "-", names cut to 60
 * characters and made safe for a terminal; the scratch file is gone after close.
 */
class TableSpoolTest {
    @TempDir
    Path dir;

    @Test
    void printsWhatRenderGives() throws Exception {
        List<String> columns = List.of("rank", "name", "a_long_column_name", "n");
        List<List<Object>> rows = new ArrayList<>();
        rows.add(Arrays.asList(0L, "aten::mm", 12345678901L, null));
        rows.add(Arrays.asList(-1L, "x".repeat(80), 7L, 3L));
        rows.add(Arrays.asList(63L, null, null, 1234567L));
        rows.add(Arrays.asList(5L, "tab\there, line\nbreak \u001b[31m", 0L, -2L));
        for (int i = 0; i < 5000; i++) {
            rows.add(Arrays.asList((long) i, "k" + (i % 7), (long) i * i, i % 3 == 0 ? null : (long) -i));
        }
        ResultTable table = new ResultTable("t", columns, rows);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Path file;
        try (TableSpool spool = new TableSpool(dir)) {
            spool.columns(columns);
            for (List<Object> r : rows) {
                spool.add(r);
            }
            assertEquals(rows.size(), spool.rows());
            spool.print(new PrintStream(out, true, StandardCharsets.UTF_8));
            try (var files = Files.list(dir)) {
                file = files.findFirst().orElseThrow();
            }
        }
        assertEquals(table.render(), out.toString(StandardCharsets.UTF_8));
        assertEquals(false, Files.exists(file));
    }

    /**
     * With a limit, the spool prints what render gives for its first rows alone (their widths, not the others'), counts
     * every row, and keeps no more than it prints: a wide row past the limit changes nothing, and its file holds the
     * kept rows only.
     */
    @Test
    void aLimitPrintsTheFirstRowsAsRenderGivesThemAndKeepsNoMore() throws Exception {
        List<String> columns = List.of("rank", "name");
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            rows.add(Arrays.asList((long) i, i == 999 ? "y".repeat(60) : "k" + i));
        }
        for (int limit : new int[] {0, 3, 1000, 5000}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long kept;
            try (TableSpool spool = new TableSpool(dir, limit)) {
                spool.columns(columns);
                for (List<Object> r : rows) {
                    spool.add(r);
                }
                assertEquals(rows.size(), spool.rows(), "every row counted");
                assertEquals(Math.max(0, rows.size() - limit), spool.leftOut());
                spool.print(new PrintStream(out, true, StandardCharsets.UTF_8));
                try (var files = Files.list(dir)) {
                    kept = Files.size(files.findFirst().orElseThrow());
                }
            }
            List<List<Object>> head = rows.subList(0, Math.min(limit, rows.size()));
            assertEquals(new ResultTable("t", columns, head).render(), out.toString(StandardCharsets.UTF_8), "limit " + limit);
            if (limit == 3) {
                assertEquals(3 * (2 + 1 + 2 + 2), kept, "three rows of two cells, each a length and its bytes");
            }
        }
        assertEquals("a spool's limit is 0 or more rows: -1",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new TableSpool(dir, -1)).getMessage());
    }

    @Test
    void anEmptyTableIsItsHeader() throws Exception {
        List<String> columns = List.of("rank", "kind", "ts_ns");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TableSpool spool = new TableSpool(dir)) {
            spool.columns(columns);
            spool.print(new PrintStream(out, true, StandardCharsets.UTF_8));
        }
        assertEquals(new ResultTable("t", columns, List.of()).render(), out.toString(StandardCharsets.UTF_8));
    }
}
