package org.flagos.trace.sql;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.flagos.trace.model.TerminalText;

/**
 * One analysis's result: its column names and its rows, each value a {@link Long}, a {@link String}
 * or null (the analyses give integers in ns and names only, so two engines' tables compare exactly).
 */
public record ResultTable(String name, List<String> columns, List<List<Object>> rows) {
    private static final JsonFactory JSON = new JsonFactory();

    /** An immutable copy. */
    public ResultTable {
        columns = List.copyOf(columns);
        List<List<Object>> copy = new ArrayList<>(rows.size());
        for (List<Object> r : rows) {
            copy.add(Collections.unmodifiableList(new ArrayList<>(r)));
        }
        rows = Collections.unmodifiableList(copy);
    }

    /** As CSV (RFC 4180: a header line, fields quoted when they hold a comma, quote or line break; NULL empty). */
    public void writeCsv(OutputStream out) throws IOException {
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write(csvLine(columns));
        for (List<Object> r : rows) {
            w.write(csvLine(r));
        }
        w.flush();
    }

    /** One CSV line of {@code values} (RFC 4180 quoting, NULL empty), line break included. */
    public static String csvLine(List<?> values) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            Object v = values.get(i);
            String s = v == null ? "" : v.toString();
            if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
                s = '"' + s.replace("\"", "\"\"") + '"';
            }
            b.append(s);
        }
        return b.append('\n').toString();
    }

    /** As a JSON array of objects, one per row, keyed by column name. */
    public void writeJson(OutputStream out) throws IOException {
        try (JsonGenerator g = jsonGenerator(out)) {
            g.writeStartArray();
            for (List<Object> r : rows) {
                writeJsonRow(g, columns, r);
            }
            g.writeEndArray();
        }
    }

    /** A JSON generator as {@link #writeJson} writes with (pretty printed), over {@code out}. */
    public static JsonGenerator jsonGenerator(OutputStream out) throws IOException {
        JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8);
        g.useDefaultPrettyPrinter();
        return g;
    }

    /** One row as {@link #writeJson} writes it: an object keyed by column name. */
    public static void writeJsonRow(JsonGenerator g, List<String> columns, List<Object> r) throws IOException {
        g.writeStartObject();
        for (int i = 0; i < columns.size(); i++) {
            Object v = r.get(i);
            if (v == null) {
                g.writeNullField(columns.get(i));
            } else if (v instanceof Long l) {
                g.writeNumberField(columns.get(i), l);
            } else {
                g.writeStringField(columns.get(i), v.toString());
            }
        }
        g.writeEndObject();
    }

    /** As text: the name, then columns padded to their widest value (names cut to 60 characters). */
    public String render() {
        int[] width = new int[columns.size()];
        List<String[]> cells = new ArrayList<>();
        cells.add(columns.toArray(String[]::new));
        for (List<Object> r : rows) {
            cells.add(cells(r));
        }
        boolean[] left = new boolean[columns.size()];
        for (List<Object> r : rows) {
            for (int i = 0; i < left.length; i++) {
                left[i] |= r.get(i) instanceof String;
            }
        }
        for (String[] c : cells) {
            for (int i = 0; i < c.length; i++) {
                width[i] = Math.max(width[i], c[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] c : cells) {
            b.append(line(c, width, left)).append('\n');
        }
        return b.toString();
    }

    /** A row's cells as {@link #render} shows them: NULL as {@code -}, names made safe for a terminal and cut to 60 characters. */
    static String[] cells(List<Object> r) {
        String[] c = new String[r.size()];
        for (int i = 0; i < c.length; i++) {
            Object v = r.get(i);
            String s = v == null ? "-" : TerminalText.safe(v.toString()); // the files keep names whole
            c[i] = s.length() > 60 ? s.substring(0, 57) + "..." : s;
        }
        return c;
    }

    /** One line of {@link #render}: each cell padded to its column's width (text to the left, numbers to the right), no trailing blanks. */
    static String line(String[] c, int[] width, boolean[] left) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < c.length; i++) {
            String pad = " ".repeat(width[i] - c[i].length());
            line.append(i == 0 ? "" : "  ").append(left[i] ? c[i] + pad : pad + c[i]);
        }
        return line.toString().stripTrailing();
    }
}
