package org.flagos.trace.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.report.HtmlReport;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.TraceFile;

/**
 * {@code flagtrace report TRACE.json[.gz] -o REPORT.html}: one self-contained page with the op
 * table, device-time charts and the capture's loss counts. Kept apart from {@link FlagtraceCli}'s own
 * parsing so that it moves to the new command framework as one piece.
 */
final class ReportCommand {
    static final String USAGE = "       flagtrace report TRACE.json[.gz] -o REPORT.html";
    static final String HELP = String.join("\n",
            "report  writes one self-contained HTML page (no network) for any torch-compatible trace: the op table,",
            "        top kernels, device time by op, each stream's busy time, and the capture's loss counts.");

    private ReportCommand() {
    }

    static int run(String[] args, PrintStream out) throws IOException {
        Path trace = null;
        Path html = null;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "-h": case "--help":
                    out.println(USAGE.trim() + "\n" + HELP);
                    return FlagtraceCli.OK;
                case "-o": case "--output":
                    if (++i >= args.length) {
                        throw new FlagtraceCli.UsageException(arg + " needs a value");
                    }
                    html = Path.of(args[i]);
                    break;
                default:
                    if (arg.startsWith("-") || trace != null) {
                        throw new FlagtraceCli.UsageException("unexpected argument '" + arg + "'");
                    }
                    trace = Path.of(arg);
            }
        }
        if (trace == null || html == null) {
            throw new FlagtraceCli.UsageException("report needs a trace file and -o REPORT.html");
        }
        OutputPaths.check(Map.of("trace", trace), Map.of("-o", html));
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        try (AtomicOutput o = new AtomicOutput(html)) {
            HtmlReport.write(trace.getFileName().toString(), file, averages, o.stream());
            o.finish();
            o.commit();
        }
        out.println("wrote " + html + " (open it in any browser; it needs no network)");
        return FlagtraceCli.OK;
    }
}
