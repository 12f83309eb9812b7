package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CycleTrace}'s files: a move takes the cycle's buffer dump and its sidecars along, named after
 * the new trace; a failed move puts back what it had moved; a sidecar left at the new name by someone
 * else is deleted (a replay would read it as this cycle's); deleting removes every file, partial ones
 * too. The dump is a real capture (h200-app-tiny2k, its kernel names and host ops).
 */
class CycleTraceTest {
    private static final String SUFFIX = ".pt.trace.json";

    @TempDir
    Path dir;
    private Path cycleDir;
    private Path trace;
    private Path dump;

    @BeforeEach
    void cycleFiles() throws IOException {
        cycleDir = Files.createDirectories(dir.resolve("cycles"));
        trace = Files.writeString(cycleDir.resolve("cycle-1" + SUFFIX), "{\"traceEvents\":[]}");
        dump = Files.copy(Captures.capture("h200-app-tiny2k"), cycleDir.resolve("cycle-1.fltrbuf"));
        Files.copy(Captures.names("h200-app-tiny2k"), cycleDir.resolve("cycle-1.names.tsv"));
        Files.copy(Captures.ops("h200-app-tiny2k"), cycleDir.resolve("cycle-1.ops.jsonl"));
    }

    private CycleTrace cycle(Path dumpOrNull) {
        return new CycleTrace(2, 5, 7, null, trace, dumpOrNull, SUFFIX);
    }

    @Test
    void aMoveTakesTheDumpAndItsSidecarsAlongUnderTheTracesName() throws IOException {
        byte[] capture = Files.readAllBytes(dump);
        CycleTrace cycle = cycle(dump);
        assertEquals(List.of(trace, dump, cycleDir.resolve("cycle-1.ops.jsonl"), cycleDir.resolve("cycle-1.names.tsv")), cycle.files());
        Path out = Files.createDirectories(dir.resolve("tb"));
        Path target = out.resolve("host_1.123" + SUFFIX);
        assertEquals(target, cycle.moveTo(target));
        assertTrue(cycle.moved());
        assertEquals(target, cycle.path());
        assertEquals(out.resolve("host_1.123.fltrbuf"), cycle.dump());
        assertEquals(List.of(target, out.resolve("host_1.123.fltrbuf"), out.resolve("host_1.123.ops.jsonl"), out.resolve("host_1.123.names.tsv")),
                cycle.files());
        assertArrayEquals(capture, Files.readAllBytes(cycle.dump()));
        try (var left = Files.list(cycleDir)) {
            assertEquals(0, left.count(), "nothing left behind");
        }
    }

    @Test
    void theDumpIsNamedAfterTheTargetWhateverItsEnding() throws IOException {
        Path out = Files.createDirectories(dir.resolve("out"));
        CycleTrace cycle = cycle(dump);
        cycle.moveTo(out.resolve("a.json.gz")); // not the session's suffix: .gz, then .json come off
        assertEquals(out.resolve("a.fltrbuf"), cycle.dump());
        cycle.moveTo(out.resolve("b" + SUFFIX));
        assertEquals(out.resolve("b.fltrbuf"), cycle.dump());
        cycle.moveTo(out.resolve("c.trace"));
        assertEquals(out.resolve("c.trace.fltrbuf"), cycle.dump());
        assertTrue(Files.exists(out.resolve("c.trace.names.tsv")));
    }

    @Test
    void aSidecarAtTheNewNameThatTheCycleDoesNotHaveIsDeleted() throws IOException {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path stale = Files.writeString(out.resolve("t.devices.json"), "{}");
        Path staleOps = Files.writeString(out.resolve("t.ops.jsonl.gz"), "old");
        cycle(dump).moveTo(out.resolve("t" + SUFFIX));
        assertFalse(Files.exists(stale), "another capture's device properties");
        assertFalse(Files.exists(staleOps), "another capture's gzipped host ops");
        assertTrue(Files.exists(out.resolve("t.ops.jsonl")));
    }

    @Test
    void aFailedMovePutsBackWhatItHadMoved() throws IOException {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path stale = Files.writeString(out.resolve("t.devices.json"), "{}");
        CycleTrace cycle = cycle(dump);
        // the dump goes to out/, the trace cannot: its target names a folder that is not there
        Path target = out.resolve("t" + SUFFIX);
        Files.createDirectories(target.resolve("x"));
        assertThrows(IOException.class, () -> cycle.moveTo(target));
        assertFalse(cycle.moved());
        assertEquals(trace, cycle.path());
        assertEquals(dump, cycle.dump());
        assertTrue(Files.exists(dump) && Files.exists(cycleDir.resolve("cycle-1.names.tsv")) && Files.exists(cycleDir.resolve("cycle-1.ops.jsonl")));
        assertFalse(Files.exists(out.resolve("t.fltrbuf")));
        assertTrue(Files.exists(stale), "nothing deleted when the move failed");
        assertThrows(NoSuchFileException.class, () -> cycle(dump).moveTo(dir.resolve("no/such/folder/t" + SUFFIX)));
        assertTrue(Files.exists(dump), "nothing moved into a folder that is not there");
    }

    @Test
    void deletingRemovesTheTraceTheDumpItsSidecarsAndPartialFiles() throws IOException {
        Files.writeString(cycleDir.resolve("cycle-1.fltrbuf.partial"), "half");
        Files.writeString(cycleDir.resolve("cycle-1.devices.json.partial"), "half");
        cycle(dump).deleteFiles();
        try (var left = Files.list(cycleDir)) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void withoutADumpOnlyTheTraceMoves() throws IOException {
        CycleTrace cycle = cycle(null);
        assertEquals(List.of(trace), cycle.files());
        Path target = dir.resolve("only" + SUFFIX);
        cycle.moveTo(target);
        assertEquals(List.of(target), cycle.files());
        assertTrue(Files.exists(dump), "a dump the cycle does not own stays");
        assertEquals("cycle 2 (steps 5-7)", cycle.toString());
    }
}
