package org.flagos.trace.spark;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.flagos.trace.tracefile.TraceSource;

/**
 * The scan of {@link FlagtraceDataSource}: the files are listed on the driver (a file, a folder's files, or a
 * pattern, on any Hadoop file system), one input partition per file (a trace is one JSON document: not
 * splittable), each read by a {@link TraceFileReader} on an executor.
 */
final class TraceScan implements Scan, Batch {
    /** The options, as read once on the driver (docs/analysis.md). */
    record Settings(List<String> paths, String rankFromPath, String jobId, boolean dropMalformed, boolean realtime) implements Serializable {
        /**
         * The paths of {@code load(PATH, PATH...)}: Spark hands them over as one option, a JSON array of strings.
         * Read with Jackson's streaming parser, the only Jackson the main jar builds against.
         */
        static List<String> pathArray(String json) throws IOException {
            List<String> paths = new ArrayList<>();
            try (JsonParser in = new JsonFactory().createParser(json)) {
                if (in.nextToken() != JsonToken.START_ARRAY) {
                    throw new IOException("not an array");
                }
                JsonToken t;
                while ((t = in.nextToken()) == JsonToken.VALUE_STRING) {
                    paths.add(in.getText());
                }
                if (t != JsonToken.END_ARRAY || in.nextToken() != null) {
                    throw new IOException("an element that is not a string, or text after the array");
                }
            }
            return paths;
        }

        static Settings of(CaseInsensitiveStringMap options) {
            List<String> paths = new ArrayList<>();
            if (options.containsKey("paths")) {
                try {
                    paths.addAll(pathArray(options.get("paths")));
                } catch (IOException e) {
                    throw new IllegalArgumentException("flagtrace: option paths is not a JSON array of paths: " + options.get("paths"), e);
                }
            }
            if (options.containsKey("path")) {
                paths.add(options.get("path"));
            }
            if (paths.isEmpty()) {
                throw new IllegalArgumentException("flagtrace: no trace given: load(PATH...) with trace files or folders of them");
            }
            String regex = options.get("rankFromPath");
            if (regex != null) {
                try {
                    if (Pattern.compile(regex).matcher("").groupCount() < 1) {
                        throw new IllegalArgumentException("flagtrace: option rankFromPath " + regex + " has no group: its first group is the rank");
                    }
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException("flagtrace: option rankFromPath is no regular expression: " + e.getDescription(), e);
                }
            }
            String mode = options.getOrDefault("mode", "FAILFAST").toUpperCase(Locale.ROOT);
            if (!mode.equals("FAILFAST") && !mode.equals("DROPMALFORMED")) {
                throw new IllegalArgumentException("flagtrace: option mode " + options.get("mode") + ": FAILFAST (the default) or DROPMALFORMED");
            }
            String clock = options.getOrDefault("clock", "realtime").toLowerCase(Locale.ROOT);
            if (!clock.equals("realtime") && !clock.equals("trace")) {
                throw new IllegalArgumentException("flagtrace: option clock " + options.get("clock") + ": realtime (the default: each trace"
                        + " with clock anchors put on its host's real-time clock) or trace (the times as the trace has them)");
            }
            return new Settings(List.copyOf(paths), regex, options.get("jobId"), mode.equals("DROPMALFORMED"), clock.equals("realtime"));
        }
    }

    private final Settings settings;

    TraceScan(Settings settings) {
        this.settings = settings;
    }

    @Override
    public StructType readSchema() {
        return FlagtraceDataSource.SCHEMA;
    }

    @Override
    public String description() {
        return "flagtrace traces " + settings.paths();
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return new CustomMetric[] {new SkippedFiles()};
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<String> files = files(settings, SparkSession.active().sparkContext().hadoopConfiguration());
        InputPartition[] parts = new InputPartition[files.size()];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = new TraceFile(files.get(i));
        }
        return parts;
    }

    /**
     * The trace files {@code settings}' paths name, a task each, in this order: each path's files sorted by name. Without
     * DROPMALFORMED a local file that is no trace file ({@link TraceSource#notATrace}) is refused here, before any task opens it.
     */
    static List<String> files(Settings settings, Configuration conf) {
        List<String> files = new ArrayList<>();
        try {
            for (String given : settings.paths()) {
                org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(given);
                FileSystem fs = path.getFileSystem(conf);
                FileStatus[] matched = fs.globStatus(path);
                if (matched == null || matched.length == 0) {
                    String link = local(fs) ? TraceSource.notATrace(local(path)) : null;
                    throw new IllegalArgumentException(given + (link != null && Files.isSymbolicLink(local(path)) ? " " + link : ": no such file"));
                }
                List<String> here = new ArrayList<>();
                for (FileStatus m : matched) {
                    if (m.isDirectory()) {
                        here.addAll(local(fs) ? localFolder(m.getPath()) : folder(fs, m.getPath()));
                    } else {
                        here.add(m.getPath().toString());
                    }
                }
                here.sort(null);
                if (!settings.dropMalformed() && local(fs)) {
                    for (String f : here) { // refused here, before any task opens one: a FIFO's open would wait for ever
                        String why = TraceSource.notATrace(local(new org.apache.hadoop.fs.Path(f)));
                        if (why != null) {
                            throw new IllegalArgumentException(local(new org.apache.hadoop.fs.Path(f)) + " " + why);
                        }
                    }
                }
                if (here.isEmpty()) {
                    throw new IllegalArgumentException(given + ": no trace file in it");
                }
                files.addAll(here);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("flagtrace: cannot list " + settings.paths() + ": " + e.getMessage(), e);
        }
        return files;
    }

    /** A folder's files on a file system other than the local one, as Hadoop lists them. */
    private static List<String> folder(FileSystem fs, org.apache.hadoop.fs.Path dir) throws IOException {
        List<String> files = new ArrayList<>();
        for (FileStatus f : fs.listStatus(dir)) {
            if (f.isFile() && !hidden(f.getPath().getName())) {
                files.add(f.getPath().toString());
            }
        }
        return files;
    }

    /**
     * A local folder's entries but its folders: every entry, not only those Hadoop's listing gives, which leaves out a
     * link that leads nowhere (dangling, or a loop of links) without a word and gives a FIFO or a device as a file.
     * Each is kept, for {@link TraceSource#notATrace} to refuse (or, with {@code DROPMALFORMED}, the reader to skip and count).
     */
    private static List<String> localFolder(org.apache.hadoop.fs.Path dir) throws IOException {
        List<String> files = new ArrayList<>();
        try (DirectoryStream<java.nio.file.Path> entries = Files.newDirectoryStream(local(dir))) {
            for (java.nio.file.Path e : entries) {
                if (!hidden(e.getFileName().toString()) && !Files.isDirectory(e)) {
                    files.add(new org.apache.hadoop.fs.Path(dir, e.getFileName().toString()).toString());
                }
            }
        }
        return files;
    }

    /** Whether {@code fs} is the local file system, the only one with FIFOs, devices and links of the machine's own. */
    static boolean local(FileSystem fs) {
        return "file".equals(fs.getScheme());
    }

    /** A local Hadoop path as a path of this machine. */
    static java.nio.file.Path local(org.apache.hadoop.fs.Path path) {
        return java.nio.file.Path.of(path.toUri().getPath());
    }

    /** Hidden as Spark and Hadoop hide them: writers' temporaries, {@code _SUCCESS}. */
    static boolean hidden(String name) {
        return name.startsWith(".") || name.startsWith("_");
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        Map<String, String> conf = new HashMap<>();
        for (Map.Entry<String, String> e : SparkSession.active().sparkContext().hadoopConfiguration()) {
            conf.put(e.getKey(), e.getValue());
        }
        return new Factory(settings, conf);
    }

    /** One trace file: one task. */
    record TraceFile(String path) implements InputPartition {
    }

    /** Makes each task's reader; carries the options and the driver's Hadoop settings to the executors. */
    record Factory(Settings settings, Map<String, String> hadoop) implements PartitionReaderFactory {
        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            Configuration conf = new Configuration(false);
            hadoop.forEach(conf::set);
            return new TraceFileReader(((TraceFile) partition).path(), conf, settings);
        }
    }

    /** The rank a file's path gives by option {@code rankFromPath}, or null (no option, or no match). */
    static Integer rankFromPath(String regex, String path) {
        if (regex == null) {
            return null;
        }
        Matcher m = Pattern.compile(regex).matcher(path);
        if (!m.find() || m.group(1) == null) {
            return null;
        }
        try {
            int rank = Integer.parseInt(m.group(1));
            if (rank < 0) {
                throw new NumberFormatException();
            }
            return rank;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(path + ": option rankFromPath " + regex + " gives \"" + m.group(1) + "\", not a rank (0 or more)");
        }
    }

    /** The files left out by {@code mode DROPMALFORMED}, summed over the tasks (the scan's metric in Spark's SQL view). */
    public static final class SkippedFiles extends CustomSumMetric {
        static final String NAME = "skippedFiles";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "trace files skipped as malformed (mode DROPMALFORMED)";
        }
    }

    /** A task's count of skipped files. */
    record SkippedCount(long value) implements CustomTaskMetric {
        @Override
        public String name() {
            return SkippedFiles.NAME;
        }
    }
}
