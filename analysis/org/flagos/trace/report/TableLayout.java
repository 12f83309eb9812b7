package org.flagos.trace.report;

/** How {@link KeyAveragesTable} lays a summary out. */
public enum TableLayout {
    /**
     * The default wherever a summary is printed: name, self and total CPU time, self and total device
     * time and calls, every line at most {@value KeyAveragesTable#COMPACT_WIDTH} characters (names cut
     * with "...", as torch cuts them).
     */
    COMPACT,
    /** torch's own {@code key_averages().table()}: eleven columns, names up to 55 characters. */
    WIDE
}
