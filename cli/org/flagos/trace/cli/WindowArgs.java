package org.flagos.trace.cli;

import org.flagos.trace.journal.JournalWindow;
import picocli.CommandLine.Option;

/** {@code --from T --to T | --last D}: the window of a journal a replay exports. A picocli mixin of {@code replay}. */
final class WindowArgs {
    @Option(names = "--from", paramLabel = "T",
            description = "journal only: export from T, epoch ns or +D after the session's start")
    String from;

    @Option(names = "--to", paramLabel = "T", description = "journal only: export up to T")
    String to;

    @Option(names = "--last", paramLabel = "D", description = "journal only: export the last D (500ms, 30s, 2m)")
    String last;

    boolean given() {
        return from != null || to != null || last != null;
    }

    JournalWindow window() {
        try {
            return JournalWindow.of(from, to, last);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }
}
