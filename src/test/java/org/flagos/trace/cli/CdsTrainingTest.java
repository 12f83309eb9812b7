package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.journal.JournalReader;
import org.flagos.trace.testing.ProgramRun;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class-data-sharing training run, in its own JVM as {@code ./flagtrace} starts it: every command
 * does what it should in the scratch folder (their files are there and read back), it prints nothing, and its exit
 * status is 0; when one command fails, 1.
 */
class CdsTrainingTest {
    /** What the journal needs of the JVM (the pom's chronicle.jvm.flags). */
    private static final List<String> FLAGS = List.of("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED");

    @TempDir
    Path dir;

    /** Runs the training over {@code scratch}; its exit status, after checking it printed nothing. */
    private int train(Path scratch) throws Exception {
        ProgramRun run = ProgramRun.start(dir, FLAGS, CdsTraining.class.getName(), scratch.toString());
        assertTrue(run.process().waitFor(10, TimeUnit.MINUTES), "the training ends");
        assertEquals("", run.stdout());
        assertEquals("", run.stderr());
        run.clean();
        return run.process().exitValue();
    }

    @Test
    void everyCommandDoesWhatItShouldAndNothingIsPrinted() throws Exception {
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        assertEquals(0, train(scratch));
        for (String file : List.of("c.fltrbuf", "c.ops.jsonl", "c.names.tsv", "demo/trace.json", "demo/summary.json", "t.json", "s.json",
                "j.json.gz", "k.json", "r.html")) {
            assertTrue(Files.size(scratch.resolve(file)) > 0, file);
        }
        assertTrue(JournalReader.isJournal(scratch.resolve("j")), "the replay's journal");
        assertEquals(TraceJson.MAPPER.readTree(scratch.resolve("demo/trace.json").toFile()).get("traceEvents").size(),
                TraceJson.MAPPER.readTree(scratch.resolve("t.json").toFile()).get("traceEvents").size(),
                "the demo and the replay of the same capture");
    }

    @Test
    void oneCommandFailingMakesTheTrainingFail() throws Exception {
        Path scratch = Files.createDirectories(dir.resolve("scratch"));
        Files.createDirectories(scratch.resolve("r.html")); // report cannot write its page over a folder
        assertEquals(1, train(scratch));
        assertTrue(Files.size(scratch.resolve("k.json")) > 0, "the commands before it ran");
    }
}
