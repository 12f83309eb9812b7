package org.flagos.trace.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The run {@code ./flagtrace} records its class-data-sharing archive from
 * ({@code -XX:ArchiveClassesAtExit}): every command once, in one JVM, on the bundled capture, so
 * that the classes a user's first command needs are archived already parsed and verified. Prints
 * nothing; the exit status says whether every command did what it should.
 */
public final class CdsTraining {
    private CdsTraining() {
    }

    /** {@code args[0]}: an empty scratch directory, removed by the caller. */
    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        Path capture = dir.resolve("c.fltrbuf");
        Path ops = dir.resolve("c.ops.jsonl");
        copy("h200-app.fltrbuf", capture);
        copy("h200-app.ops.jsonl", ops);
        copy("h200-app.names.tsv", dir.resolve("c.names.tsv"));
        String trace = dir.resolve("t.json").toString();
        String[][] runs = {
            {"--help"},
            {"replay", "--help"},
            {"demo", "-o", dir.resolve("demo").toString()},
            {"replay", capture.toString(), "--ops", ops.toString(), "--device-properties", "h200", "-o", trace,
                "--summary", dir.resolve("s.json").toString(), "--journal", dir.resolve("j").toString()},
            {"replay", dir.resolve("j").toString(), "-o", dir.resolve("j.json.gz").toString()},
            {"summary", trace, "--json", dir.resolve("k.json").toString()},
            {"report", trace, "-o", dir.resolve("r.html").toString()},
            {"merge", trace, dir.resolve("t2.json").toString(), "--assume-aligned", "-o", dir.resolve("m.json").toString()},
        };
        int failed = 0;
        for (String[] run : runs) {
            if (run[0].equals("merge")) { // two ranks: the replay's trace and a copy of it
                Files.copy(Path.of(trace), Path.of(run[2]), StandardCopyOption.REPLACE_EXISTING);
            }
            failed += new FlagtraceCli(sink, sink).run(run) == ExitCodes.OK ? 0 : 1;
        }
        // A usage error too: its message path is what a typo meets on a cold start.
        failed += new FlagtraceCli(sink, sink).run("replay", "--frob") == ExitCodes.USAGE ? 0 : 1;
        System.exit(failed == 0 ? 0 : 1);
    }

    private static void copy(String resource, Path to) throws IOException {
        try (InputStream in = CdsTraining.class.getResourceAsStream("/org/flagos/trace/demo/" + resource)) {
            if (in == null) {
                throw new IOException("bundled demo file " + resource + " is missing from the jar");
            }
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
