package org.flagos.trace.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.CaptureJournal;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.JournalReplay;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalReader;
import org.flagos.trace.journal.JournalRoll;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.pipeline.DeviceProperties;

/**
 * The journal's command-line options, kept apart from {@link FlagtraceCli}'s parsing:
 * {@code replay DIR} (a journal, whole or {@code --from/--to/--last}), {@code replay CAPTURE
 * --journal DIR} (journal a capture, then replay it), and {@code record --journal DIR [--roll R]
 * [--retain-bytes N] [--retain-age D]} (a flight recorder when retention is bounded).
 */
final class JournalCommands {
    static final String USAGE = String.join("\n",
            "       flagtrace replay JOURNAL_DIR -o TRACE.json[.gz] [--summary SUMMARY.json] [--from T] [--to T | --last D]",
            "       flagtrace replay CAPTURE.fltrbuf ... --journal JOURNAL_DIR",
            "       flagtrace record ... --journal JOURNAL_DIR [--roll 1s|5m|10m|1h|1d] [--retain-bytes N[k|M|G]] [--retain-age D]");
    static final String HELP = String.join("\n",
            "journal  a Chronicle Queue directory a session or a replay journals into as records arrive; replay",
            "         exports it (also while it is being written, and after a kill). T: epoch ns, or +D after the",
            "         session's start; D: a duration such as 500ms, 30s, 2m. --retain-* make a flight recorder that",
            "         deletes its oldest cycles (one per --roll) past the bound.");

    /** What the journal options of one command line said; {@code rest} is the line without them. */
    static final class Parsed {
        final List<String> rest = new ArrayList<>();
        Path journal;
        String from;
        String to;
        String last;
        String roll;
        String retainBytes;
        String retainAge;

        boolean windowed() {
            return from != null || to != null || last != null;
        }

        JournalOptions options() {
            JournalOptions options = JournalOptions.to(journal);
            try {
                if (roll != null) {
                    options = options.withRoll(JournalRoll.parse(roll));
                }
                if (retainBytes != null) {
                    options = options.retainingBytes(bytes(retainBytes));
                }
                if (retainAge != null) {
                    options = options.retainingAge(Duration.ofNanos(JournalWindow.duration(retainAge)));
                }
                return options;
            } catch (IllegalArgumentException e) {
                throw new FlagtraceCli.UsageException(e.getMessage());
            }
        }
    }

    /** Takes the journal options out of {@code args}. */
    static Parsed parse(String[] args) {
        Parsed p = new Parsed();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--journal": p.journal = Path.of(value(args, ++i, arg)); break;
                case "--from": p.from = value(args, ++i, arg); break;
                case "--to": p.to = value(args, ++i, arg); break;
                case "--last": p.last = value(args, ++i, arg); break;
                case "--roll": p.roll = value(args, ++i, arg); break;
                case "--retain-bytes": p.retainBytes = value(args, ++i, arg); break;
                case "--retain-age": p.retainAge = value(args, ++i, arg); break;
                default: p.rest.add(arg);
            }
        }
        if (p.journal == null && (p.roll != null || p.retainBytes != null || p.retainAge != null)) {
            throw new FlagtraceCli.UsageException("--roll and --retain-* need --journal DIR");
        }
        return p;
    }

    private final FlagtraceCli cli;
    private final PrintStream out;
    private final PrintStream err;

    JournalCommands(FlagtraceCli cli, PrintStream out, PrintStream err) {
        this.cli = cli;
        this.out = out;
        this.err = err;
    }

    /** {@code replay} with journal options or a journal directory; null when neither (a plain replay). */
    Integer replay(String[] args) throws IOException, InterruptedException {
        Parsed p = parse(args);
        FlagtraceCli.ReplayArguments a = FlagtraceCli.ReplayArguments.parse(p.rest.toArray(new String[0]));
        if (JournalReader.isJournal(a.capture)) {
            if (p.journal != null) {
                throw new FlagtraceCli.UsageException("--journal journals a .fltrbuf capture; " + a.capture + " is a journal already");
            }
            return export(a, p);
        }
        if (p.windowed()) {
            throw new FlagtraceCli.UsageException("--from/--to/--last select a window of a journal directory, and "
                    + a.capture + " is none");
        }
        if (p.journal == null) {
            return null;
        }
        CaptureReplay.Request request = CaptureReplay.request(a.capture, a.ops, a.names, FlagtraceCli.devices(a.deviceProperties),
                a.metadata);
        Path namesPath = a.names != null ? a.names : KernelNameFile.besides(a.capture);
        Map<Long, String> names = java.nio.file.Files.exists(namesPath) ? KernelNameFile.read(namesPath).entries() : Map.of();
        long buffers = CaptureJournal.write(request, names, p.options());
        out.println("journaled " + buffers + " buffers of " + a.capture + " into " + p.journal);
        return cli.replay(a);
    }

    private int export(FlagtraceCli.ReplayArguments a, Parsed p) throws IOException, InterruptedException {
        if (a.ops != null || a.names != null) {
            throw new FlagtraceCli.UsageException("a journal carries its own ops and names: --ops and --names do not apply");
        }
        JournalWindow window;
        try {
            window = JournalWindow.of(p.from, p.to, p.last);
        } catch (IllegalArgumentException e) {
            throw new FlagtraceCli.UsageException(e.getMessage());
        }
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("-o", a.trace);
        if (a.summary != null) {
            outputs.put("--summary", a.summary);
        }
        OutputPaths.check(Map.of("journal", a.capture), outputs);
        List<DeviceProperties> devices = FlagtraceCli.devices(a.deviceProperties);
        JournalReplay.Request request = new JournalReplay.Request(a.capture, window, devices, a.metadata,
                org.flagos.trace.capture.CapturePipeline.DEFAULT_RING_SIZE);
        JournalReplay.Result result;
        try (AtomicOutput trace = new AtomicOutput(a.trace);
             AtomicOutput summary = a.summary == null ? null : new AtomicOutput(a.summary)) {
            result = JournalReplay.run(request, trace.stream());
            if (summary != null) {
                SummaryJson.write(result.replay().summary(), summary.stream());
                summary.finish();
            }
            trace.finish();
            trace.commit();
            if (summary != null) {
                summary.commit();
            }
        }
        cli.report(result.replay(), a);
        if (!window.isAll()) {
            out.println("window " + result.windowStartNs() + " .. " + result.windowEndNs() + " ns (epoch)");
        }
        if (result.replay().truncated()) {
            err.println("flagtrace: warning: " + result.replay().truncation() + "; the trace holds every event before the damage");
            return FlagtraceCli.TRUNCATED;
        }
        return FlagtraceCli.OK;
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
            throw new FlagtraceCli.UsageException("--retain-bytes wants a positive size such as 512M or 2G, got '" + spec + "'");
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new FlagtraceCli.UsageException(option + " needs a value");
        }
        return args[i];
    }
}
