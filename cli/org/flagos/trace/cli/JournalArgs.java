package org.flagos.trace.cli;

import java.nio.file.Path;
import java.time.Duration;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalRoll;
import org.flagos.trace.journal.JournalWindow;
import picocli.CommandLine.Option;

/**
 * {@code --journal DIR [--roll R] [--retain-bytes N] [--retain-age D]}: journal what a command reads
 * into a Chronicle Queue directory; with a retention bound, a flight recorder that deletes its oldest
 * cycles. A picocli mixin of {@code replay} and {@code record}.
 */
final class JournalArgs {
    @Option(names = "--journal", paramLabel = "JOURNAL_DIR",
            description = "also journal everything read into this new or empty Chronicle Queue directory")
    Path journal;

    @Option(names = "--roll", paramLabel = "1s|5m|10m|1h|1d",
            description = "start a new journal cycle (one file) this often (default: 1h)")
    String roll;

    @Option(names = "--retain-bytes", paramLabel = "N[K|M|G]",
            description = "flight recorder: delete the oldest cycles past this size")
    String retainBytes;

    @Option(names = "--retain-age", paramLabel = "D",
            description = "flight recorder: delete cycles older than this (500ms, 30s, 2m, 6h)")
    String retainAge;

    /** The journal options, or null when no --journal was given (then --roll and --retain-* are refused). */
    JournalOptions options() {
        if (journal == null) {
            if (roll != null || retainBytes != null || retainAge != null) {
                throw new UsageException("--roll and --retain-* need --journal DIR");
            }
            return null;
        }
        JournalOptions options = JournalOptions.to(journal);
        try {
            if (roll != null) {
                options = options.withRoll(JournalRoll.parse(roll));
            }
            if (retainBytes != null) {
                options = options.retainingBytes(bytes(retainBytes));
            }
            if (retainAge != null) {
                long ns = JournalWindow.duration(retainAge);
                if (ns <= 0) {
                    throw new UsageException("--retain-age wants a positive duration such as 30s or 6h, got '" + retainAge + "'");
                }
                options = options.retainingAge(Duration.ofNanos(ns));
            }
            return options;
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** {@code 512M}, {@code 2G}, {@code 1000000}: bytes. */
    static long bytes(String spec) {
        long scale = 1;
        String number = spec;
        char unit = spec.isEmpty() ? ' ' : Character.toUpperCase(spec.charAt(spec.length() - 1));
        if (unit == 'K' || unit == 'M' || unit == 'G') {
            scale = unit == 'K' ? 1L << 10 : unit == 'M' ? 1L << 20 : 1L << 30;
            number = spec.substring(0, spec.length() - 1);
        }
        try {
            long value = Long.parseLong(number);
            if (value <= 0 || value > Long.MAX_VALUE / scale) {
                throw new NumberFormatException();
            }
            return value * scale;
        } catch (NumberFormatException e) {
            throw new UsageException("--retain-bytes wants a positive size such as 512M or 2G, got '" + spec + "'");
        }
    }
}
