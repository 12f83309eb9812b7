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

    /**
     * Removes what this run wrote. A folder that cannot be removed is named in a suppressed exception of
     * {@code failure} (the one line {@link SparkAnalyses#main} prints says it), and the others are removed still.
     */
    void removeAfter(Throwable failure) {
        List<String> left = new ArrayList<>();
        for (Path table : claimed) {
            remove(table, true, left);
        }
        try {
            if (madeOutput && fs.exists(output) && fs.listStatus(output).length == 0) {
                remove(output, false, left);
            }
        } catch (IOException | RuntimeException e) {
            left.add(output + " (" + e.getMessage() + ")");
        }
        if (!left.isEmpty()) {
            failure.addSuppressed(new LeftBehind("could not remove " + String.join(", ", left) + ", made by this failed run; remove "
                    + (left.size() == 1 ? "it" : "them") + " by hand before running again"));
        }
    }

    /** The folders a failed run could not remove, in words naming each. */
    static final class LeftBehind extends IOException {
        private static final long serialVersionUID = 1L;

        LeftBehind(String words) {
            super(words);
        }
    }

    private void remove(Path folder, boolean recursive, List<String> left) {
        try {
            if (!fs.delete(folder, recursive) && fs.exists(folder)) { // false: not there, or not removed
                left.add(folder.toString());
            }
        } catch (IOException | RuntimeException e) {
            left.add(folder + " (" + e.getMessage() + ")");
        }
    }
}
