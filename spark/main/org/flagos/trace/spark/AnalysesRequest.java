package org.flagos.trace.spark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.flagos.trace.sql.Analyses;

/**
 * What {@link SparkAnalyses#main} was asked for, read from its arguments (no CLI library: spark-submit's class path
 * holds only Spark's jars and this one). One input kind: a Parquet events table (a path Spark reads, {@code rank=N/}
 * partitions included), a table or view of Spark's catalog ({@code --table}), or trace files read by the
 * {@code flagtrace} data source ({@code --traces}); the last argument is the output folder.
 *
 * @param kind         how {@link #inputs} are read
 * @param inputs       the paths (or the one table name)
 * @param output       the folder each analysis is written under, as {@code OUTPUT/NAME/}; it must not exist
 * @param format       {@code csv} (a header in each part, RFC 4180 quoting as {@code flagtrace analyze} writes) or
 *                     {@code parquet}
 * @param names        the analyses to run, in {@link Analyses#NAMES}' order
 * @param sourceOptions the data source's options ({@code --job-id}, {@code --rank-from-path}, {@code --clock},
 *                     {@code --mode}); empty unless {@code --traces}
 */
public record AnalysesRequest(Input kind, List<String> inputs, String output, String format, List<String> names,
        Map<String, String> sourceOptions) {

    /** How the input is read. */
    public enum Input {
        /** a Parquet events table */
        PARQUET,
        /** a table or view of the session's catalog */
        TABLE,
        /** trace files, through the {@code flagtrace} data source */
        TRACES
    }

    /** The words {@link SparkAnalyses#main} prints for a wrong call. */
    public static final String USAGE = "usage: spark-submit --class org.flagos.trace.spark.SparkAnalyses flagtrace-VERSION-spark.jar"
            + " [--table | --traces] [--format csv|parquet] [--only NAME,...] [--job-id ID] [--rank-from-path REGEX]"
            + " [--clock realtime|trace] [--mode FAILFAST|DROPMALFORMED] INPUT... OUT";

    /** A call that cannot be carried out: its one line says why. */
    public static final class Refused extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why);
        }
    }

    /** The request {@code args} make, or {@link Refused} naming what is wrong. */
    public static AnalysesRequest parse(String... args) {
        Input kind = Input.PARQUET;
        String format = "csv";
        List<String> names = Analyses.NAMES;
        Map<String, String> options = new LinkedHashMap<>();
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--table" -> kind = exclusive(kind, Input.TABLE);
                case "--traces" -> kind = exclusive(kind, Input.TRACES);
                case "--format" -> {
                    format = value(args, ++i, a).toLowerCase(Locale.ROOT);
                    if (!format.equals("csv") && !format.equals("parquet")) {
                        throw new Refused("--format " + args[i] + ": csv or parquet");
                    }
                }
                case "--only" -> names = only(value(args, ++i, a));
                case "--job-id" -> options.put("jobId", value(args, ++i, a));
                case "--rank-from-path" -> options.put("rankFromPath", value(args, ++i, a));
                case "--clock" -> options.put("clock", value(args, ++i, a));
                case "--mode" -> options.put("mode", value(args, ++i, a));
                default -> {
                    if (a.startsWith("--")) {
                        throw new Refused("unknown option " + a + "; " + USAGE);
                    }
                    positional.add(a);
                }
            }
        }
        if (positional.size() < 2) {
            throw new Refused(USAGE);
        }
        List<String> inputs = List.copyOf(positional.subList(0, positional.size() - 1));
        if (kind != Input.TRACES && inputs.size() != 1) {
            throw new Refused("one events table, not " + inputs.size() + " (" + String.join(" ", inputs)
                    + "); several inputs are trace files: --traces");
        }
        if (kind != Input.TRACES && !options.isEmpty()) {
            throw new Refused("--job-id, --rank-from-path, --clock and --mode are the data source's: with --traces only");
        }
        return new AnalysesRequest(kind, inputs, positional.get(positional.size() - 1), format, names, Map.copyOf(options));
    }

    /** Whether the critical path's tables must be built for {@link #names}. */
    public boolean needsCriticalPath() {
        return needsCriticalPath(names);
    }

    /** Whether the critical path's tables must be built before the analyses {@code names}. */
    public static boolean needsCriticalPath(List<String> names) {
        return names.stream().anyMatch(org.flagos.trace.sql.CriticalPath.TABLES::contains);
    }

    private static Input exclusive(Input now, Input asked) {
        if (now != Input.PARQUET && now != asked) {
            throw new Refused("--table and --traces exclude each other");
        }
        return asked;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new Refused(option + " needs a value");
        }
        return args[i];
    }

    private static List<String> only(String list) {
        List<String> asked = new ArrayList<>();
        for (String n : list.split(",")) {
            String name = n.trim();
            if (!Analyses.NAMES.contains(name)) {
                throw new Refused("--only " + name + ": no such analysis (" + String.join(", ", Analyses.NAMES) + ")");
            }
            asked.add(name);
        }
        return Analyses.NAMES.stream().filter(asked::contains).toList();
    }
}
