package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * {@link ResultTable}'s three renderings of one result: CSV by RFC 4180 (quoted only when a field holds a comma, a
 * quote or a line break; NULL empty), JSON with integers as numbers and NULL as null, and the terminal text (numbers
 * to the right, a column of names to the left, NULL as {@code -}, names made safe and cut to 60 characters, no
 * trailing blanks); and the copy it keeps is its own.
 */
class ResultTableTest {
    private static final String LONG_NAME = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";

    private static ResultTable kernels() {
        return new ResultTable("top_kernels", List.of("name", "calls", "total_ns"), List.of(
                Arrays.asList("gemm, \"tiled\"", 12L, 123456L),
                Arrays.asList(LONG_NAME, 3L, null),
                Arrays.asList("line\nbreak\r", 1L, 7L)));
    }

    @Test
    void csvQuotesOnlyWhatRfc4180Needs() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        kernels().writeCsv(out);
        assertEquals("name,calls,total_ns\n"
                + "\"gemm, \"\"tiled\"\"\",12,123456\n"
                + "\"" + LONG_NAME + "\",3,\n"
                + "\"line\nbreak\r\",1,7\n", out.toString(StandardCharsets.UTF_8));
        assertEquals("plain,,\n", ResultTable.csvLine(Arrays.asList("plain", null, "")));
        assertEquals("\"a\rb\"\n", ResultTable.csvLine(List.of("a\rb")));
    }

    @Test
    void jsonKeepsIntegersAsNumbersAndNullAsNull() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        kernels().writeJson(out);
        JsonNode rows = TraceJson.MAPPER.readTree(out.toByteArray());
        assertEquals(3, rows.size());
        assertEquals("gemm, \"tiled\"", rows.get(0).get("name").textValue());
        assertTrue(rows.get(0).get("total_ns").isIntegralNumber());
        assertEquals(123456L, rows.get(0).get("total_ns").longValue());
        assertTrue(rows.get(1).get("total_ns").isNull(), "NULL is null, not 0 or a missing field");
        assertEquals(List.of("name", "calls", "total_ns"), fieldNames(rows.get(2)), "columns in the table's order");
        ByteArrayOutputStream other = new ByteArrayOutputStream();
        new ResultTable("t", List.of("v"), List.of(List.of(2.5))).writeJson(other);
        assertEquals("2.5", TraceJson.MAPPER.readTree(other.toByteArray()).get(0).get("v").textValue(),
                "anything but a Long is written as text");
    }

    @Test
    void textAlignsNumbersRightNamesLeftAndCutsLongNames() {
        String cut = LONG_NAME.substring(0, 57) + "...";
        assertEquals(60, cut.length());
        String expected = String.join("\n",
                "name" + " ".repeat(56) + "  calls  total_ns",
                "gemm, \"tiled\"" + " ".repeat(47) + "     12    123456",
                cut + "      3         -",
                "line\\nbreak\\r" + " ".repeat(47) + "      1         7") + "\n";
        assertEquals(expected, kernels().render());
        assertEquals("n\n7\n", new ResultTable("t", List.of("n"), List.of(List.of(7L))).render(),
                "a one-column table of numbers: no padding left over at the line's end");
        assertEquals("name  n\n   -  1\n", new ResultTable("t", List.of("name", "n"), List.of(Arrays.asList(null, 1L))).render(),
                "a column that holds no text is right-aligned, NULL shown as -");
    }

    @Test
    void theTableKeepsItsOwnUnmodifiableCopy() {
        List<String> columns = new ArrayList<>(List.of("n"));
        List<Object> row = new ArrayList<>(List.of(1L));
        List<List<Object>> rows = new ArrayList<>(List.of(row));
        ResultTable t = new ResultTable("t", columns, rows);
        columns.add("m");
        row.set(0, 2L);
        rows.add(List.of(3L));
        assertEquals(List.of("n"), t.columns());
        assertEquals(List.of(List.of(1L)), t.rows());
        assertThrows(UnsupportedOperationException.class, () -> t.rows().get(0).set(0, 9L));
        assertThrows(UnsupportedOperationException.class, () -> t.rows().add(List.of()));
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
