package org.flagos.trace.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.report.KeyAverages;
import org.flagos.trace.report.KeyAveragesJson;
import org.flagos.trace.report.KeyAveragesTable;
import org.flagos.trace.report.SortKey;
import org.flagos.trace.report.TraceFile;

/**
 * {@code flagtrace summary TRACE.json[.gz] [--json OUT] [--sort KEY] [--limit N]}: torch's
 * key_averages table for any torch-compatible trace. Kept apart from {@link FlagtraceCli}'s own
 * parsing so that it moves to the new command framework as one piece.
 */
final class SummaryCommand {
    static final String USAGE = "       flagtrace summary TRACE.json[.gz] [--json OUT.json] [--sort KEY] [--limit N]";
    static final String HELP = String.join("\n",
            "summary prints torch's key_averages table (self/total CPU and device time, calls) of any",
            "        torch-compatible trace, PyTorch's own included; --sort takes torch's keys ("
                    + SortKey.names() + ";",
            "        default self_device_time_total, or cpu_time_total without device time).");

    private SummaryCommand() {
    }

    static int run(String[] args, PrintStream out) throws IOException {
        Path trace = null;
        Path json = null;
        SortKey sort = null;
        int limit = -1;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "-h": case "--help":
                    out.println(USAGE.trim() + "\n" + HELP);
                    return FlagtraceCli.OK;
                case "--json": json = Path.of(value(args, ++i, arg)); break;
                case "--sort": {
                    String key = value(args, ++i, arg);
                    sort = SortKey.parse(key);
                    if (sort == null) {
                        throw new FlagtraceCli.UsageException("--sort takes one of " + SortKey.names() + "; got '" + key + "'");
                    }
                    break;
                }
                case "--limit": {
                    String n = value(args, ++i, arg);
                    try {
                        limit = Integer.parseInt(n);
                    } catch (NumberFormatException e) {
                        limit = -1;
                    }
                    if (limit < 0) {
                        throw new FlagtraceCli.UsageException("--limit takes a row count (0 or more); got '" + n + "'");
                    }
                    break;
                }
                default:
                    if (arg.startsWith("-") || trace != null) {
                        throw new FlagtraceCli.UsageException("unexpected argument '" + arg + "'");
                    }
                    trace = Path.of(arg);
            }
        }
        if (trace == null) {
            throw new FlagtraceCli.UsageException("summary needs a trace file");
        }
        Map<String, Path> inputs = new LinkedHashMap<>();
        inputs.put("trace", trace);
        Map<String, Path> outputs = new LinkedHashMap<>();
        if (json != null) {
            outputs.put("--json", json);
        }
        OutputPaths.check(inputs, outputs);
        TraceFile file = TraceFile.read(trace);
        KeyAverages averages = KeyAverages.of(file);
        if (sort == null) {
            sort = averages.hasDeviceTime() ? SortKey.SELF_DEVICE_TIME_TOTAL : SortKey.CPU_TIME_TOTAL;
        }
        if (json != null) {
            try (AtomicOutput o = new AtomicOutput(json)) {
                KeyAveragesJson.write(file, averages, sort, limit, o.stream());
                o.finish();
                o.commit();
            }
        }
        out.print(KeyAveragesTable.render(averages, sort, limit));
        if (file.invalidEvents() > 0) {
            out.println("left out: " + file.invalidEvents() + " complete events without a usable name, ts or dur");
        }
        if (json != null) {
            out.println("wrote " + json);
        }
        return FlagtraceCli.OK;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new FlagtraceCli.UsageException(option + " needs a value");
        }
        return args[i];
    }
}
