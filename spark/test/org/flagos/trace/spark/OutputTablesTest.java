package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a failed run of the entry point removes: only the folders it made, on Hadoop's local file system. */
class OutputTablesTest {
    @TempDir
    Path dir;

    private static List<String> names(Path folder) throws Exception {
        try (Stream<Path> all = Files.list(folder)) {
            return all.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aFailureRemovesTheTablesAndTheOutputFolderThisRunMade() throws Exception {
        Path out = dir.resolve("out");
        OutputTables tables = OutputTables.at(out.toString(), new Configuration());
        Files.createDirectories(Path.of(tables.claim("events")).resolve("rank=0"));
        Files.writeString(Files.createDirectories(Path.of(tables.claim("rank_device"))).resolve("part-0.csv"), "rank\n0\n");
        RuntimeException failure = new RuntimeException("a task failed");
        tables.removeAfter(failure);
        assertFalse(Files.exists(out));
        assertEquals(0, failure.getSuppressed().length);
    }

    @Test
    void whatWasThereBeforeIsKept() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.createDirectories(out.resolve("rank_device"));
        Files.writeString(out.resolve("mine.txt"), "keep");
        OutputTables tables = OutputTables.at(out.toString(), new Configuration());
        Files.createDirectories(Path.of(tables.claim("events")));
        assertTrue(Files.isDirectory(Path.of(tables.claim("rank_device"))));
        tables.removeAfter(new RuntimeException("refused: rank_device exists"));
        assertEquals(List.of("mine.txt", "rank_device"), names(out));
    }

    /** The local file system, but a folder named {@code events} is not removed and one named {@code kernel_stats} fails to be. */
    public static final class RefusingFileSystem extends LocalFileSystem {
        @Override
        public boolean delete(org.apache.hadoop.fs.Path f, boolean recursive) throws IOException {
            return switch (f.getName()) {
                case "events" -> false;
                case "kernel_stats" -> throw new IOException("Permission denied");
                default -> super.delete(f, recursive);
            };
        }
    }

    /** Hadoop's settings with {@link RefusingFileSystem} as the local file system. */
    static Configuration refusing() {
        Configuration conf = new Configuration();
        conf.set("fs.file.impl", RefusingFileSystem.class.getName());
        conf.setBoolean("fs.file.impl.disable.cache", true);
        return conf;
    }

    @Test
    void aFolderThatCannotBeRemovedIsNamedAndTheOthersAreRemovedStill() throws Exception {
        Path out = dir.resolve("out-refusing");
        OutputTables tables = OutputTables.at(out.toString(), refusing());
        for (String name : List.of("events", "rank_device", "kernel_stats", "rank_steps")) {
            Files.writeString(Files.createDirectories(Path.of(tables.claim(name))).resolve("part-0"), "x");
        }
        RuntimeException failure = new RuntimeException("a task failed");
        tables.removeAfter(failure);
        assertEquals(List.of("events", "kernel_stats"), names(out));
        assertEquals(1, failure.getSuppressed().length);
        assertEquals("could not remove " + out + "/events, " + out + "/kernel_stats (Permission denied)"
                + ", made by this failed run; remove them by hand before running again", failure.getSuppressed()[0].getMessage());
        assertEquals("a task failed; " + failure.getSuppressed()[0].getMessage(), SparkAnalyses.oneLine(failure));
    }
}
