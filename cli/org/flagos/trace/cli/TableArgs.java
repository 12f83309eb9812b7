package org.flagos.trace.cli;

import org.flagos.trace.report.TableLayout;
import picocli.CommandLine.Option;

/** {@code --wide}: torch's eleven-column table instead of the compact one, for every command that prints a summary. */
final class TableArgs {
    @Option(names = "--wide", description = "print torch's own key_averages table (11 columns, about 200 characters"
            + " wide) instead of the compact one (100 columns)")
    boolean wide;

    TableLayout layout() {
        return wide ? TableLayout.WIDE : TableLayout.COMPACT;
    }
}
