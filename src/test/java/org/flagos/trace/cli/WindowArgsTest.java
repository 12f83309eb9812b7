package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --from/--to/--last} parsed as {@code replay} parses them; a bad window is a usage error with the window's own message. */
class WindowArgsTest {
    private static WindowArgs parsed(String... args) {
        WindowArgs window = new WindowArgs();
        new CommandLine(window).parseArgs(args);
        return window;
    }

    @Test
    void givenWhenAnyOfTheThreeIs() {
        assertFalse(parsed().given());
        assertTrue(parsed().window().isAll());
        assertTrue(parsed("--from", "+1s").given());
        assertTrue(parsed("--to", "5").given());
        assertTrue(parsed("--last", "2m").given());
        assertFalse(parsed("--last", "2m").window().isAll());
        assertFalse(parsed("--from", "+1s", "--to", "+2s").window().isAll());
    }

    @Test
    void aBadWindowIsAUsageError() {
        assertEquals("--last and --from cannot both be given",
                assertThrows(UsageException.class, () -> parsed("--from", "1", "--last", "1s").window()).getMessage());
        assertEquals("--from +3s is after --to +2s: the window would end before it starts; give a --to later than --from",
                assertThrows(UsageException.class, () -> parsed("--from", "+3s", "--to", "+2s").window()).getMessage());
        assertEquals("'yesterday' is neither epoch ns nor +DURATION (e.g. +2s)",
                assertThrows(UsageException.class, () -> parsed("--to", "yesterday").window()).getMessage());
    }
}
