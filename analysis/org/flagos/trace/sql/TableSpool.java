package org.flagos.trace.sql;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One analysis's table as {@link ResultTable#render} shows it, built row by row with the rows' cells kept in a
 * scratch file, not in memory: a column's width is only known after its last row, and a table may have millions
 * of rows (queue_length, kernel_launches, critical_path_segments of a large job). {@link #print} gives exactly
 * the text of {@code render()} of the same rows.
 */
public final class TableSpool implements AutoCloseable {
    private final Path file;
    private final DataOutputStream out;
    private String[] header;
    private int[] width;
    private boolean[] left;
    private long rows;
    private final long limit;

    /** A spool in a new file of folder {@code scratch}, deleted by {@link #close}: every row kept. */
    public TableSpool(Path scratch) throws IOException {
        this(scratch, Long.MAX_VALUE);
    }

    /**
     * A spool that keeps the first {@code limit} rows only (the columns' widths are theirs) and counts the others:
     * a table of millions of rows printed as its head.
     */
    public TableSpool(Path scratch, long limit) throws IOException {
        if (limit < 0) {
            throw new IllegalArgumentException("a spool's limit is 0 or more rows: " + limit);
        }
        this.limit = limit;
        file = Files.createTempFile(scratch, "table-", ".cells");
        out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
    }

    /** The table's columns, before its first row. */
    public void columns(List<String> columns) {
        header = columns.toArray(String[]::new);
        width = new int[header.length];
        left = new boolean[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
        }
    }

    /** One row, values as {@link ResultTable}'s. */
    public void add(List<Object> row) throws IOException {
        if (rows++ >= limit) {
            return;
        }
        String[] c = ResultTable.cells(row);
        for (int i = 0; i < c.length; i++) {
            width[i] = Math.max(width[i], c[i].length());
            left[i] |= row.get(i) instanceof String;
            out.writeUTF(c[i]); // at most 60 characters
        }
    }

    /** The rows added, kept or not. */
    public long rows() {
        return rows;
    }

    /** The rows added and not kept: those {@link #print} leaves out. */
    public long leftOut() {
        return rows - Math.min(rows, limit);
    }

    /** Prints the table as {@link ResultTable#render} gives it: the header line, then every row kept. */
    public void print(PrintStream to) throws IOException {
        out.flush();
        to.print(ResultTable.line(header, width, left) + "\n");
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            String[] c = new String[header.length];
            for (long r = 0, kept = Math.min(rows, limit); r < kept; r++) {
                for (int i = 0; i < c.length; i++) {
                    c[i] = in.readUTF();
                }
                to.print(ResultTable.line(c, width, left) + "\n");
            }
        } catch (EOFException e) {
            throw new IOException(file + ": the table's scratch file ended early", e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            out.close();
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
