package org.flagos.trace.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The table folders one run of {@link SparkAnalyses#write} makes under its output folder, so that a run that fails
 * leaves nothing half-written: each folder is claimed before its table is written, and on failure every claimed
 * folder (and the output folder, where this run made it and nothing else is in it) is removed. A folder that was
 * there before is never claimed, so never removed (Spark's {@code ErrorIfExists} refuses to write into it).
 */
final class OutputTables {
    private final FileSystem fs;
    private final Path output;
    private final boolean madeOutput;
    private final List<Path> claimed = new ArrayList<>();

    private OutputTables(FileSystem fs, Path output, boolean madeOutput) {
        this.fs = fs;
        this.output = output;
        this.madeOutput = madeOutput;
    }

    /** The output folder {@code output} on the file system Hadoop's {@code conf} gives it (local, hdfs://, s3a://). */
    static OutputTables at(String output, Configuration conf) {
        try {
            Path path = new Path(output);
            FileSystem fs = path.getFileSystem(conf);
            return new OutputTables(fs, path, !fs.exists(path));
        } catch (IOException e) {
            throw new UncheckedIOException(output + ": " + e.getMessage(), e);
        }
    }

    /** The folder of table {@code name}, claimed for this run unless it is there already. */
    String claim(String name) {
        Path table = new Path(output, name);
        try {
            if (!fs.exists(table)) {
                claimed.add(table);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(table + ": " + e.getMessage(), e);
        }
        return table.toString();
    }

    /** Removes what this run wrote; a failure to remove is added to {@code failure}'s suppressed. */
    void removeAfter(Throwable failure) {
        try {
            for (Path table : claimed) {
                fs.delete(table, true);
            }
            if (madeOutput && fs.exists(output) && fs.listStatus(output).length == 0) {
                fs.delete(output, false);
            }
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
