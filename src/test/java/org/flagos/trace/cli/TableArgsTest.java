package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.flagos.trace.report.TableLayout;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --wide} picks torch's eleven-column table; without it, the compact one. */
class TableArgsTest {
    @Test
    void wideOnlyWhenAsked() {
        TableArgs plain = new TableArgs();
        new CommandLine(plain).parseArgs();
        assertEquals(TableLayout.COMPACT, plain.layout());
        TableArgs wide = new TableArgs();
        new CommandLine(wide).parseArgs("--wide");
        assertEquals(TableLayout.WIDE, wide.layout());
    }
}
