package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TraceReadyHandler#tensorboard}: the worker name is refused when it cannot be part of a file name;
 * each cycle's trace lands as {@code DIR/WORKER.EPOCH_NS SUFFIX} in a directory made when missing, two
 * cycles never on one name; a directory that cannot be made is said in one line naming it.
 */
class TraceReadyHandlerTest {
    @TempDir
    Path dir;

    private CycleTrace cycle(int n, String suffix) throws IOException {
        Path trace = Files.writeString(dir.resolve("cycle-" + n + suffix), "{\"cycle\":" + n + "}");
        return new CycleTrace(n, n, n, null, trace, null, suffix);
    }

    @Test
    void aWorkerNameThatCannotBePartOfAFileNameIsRefused() {
        assertEquals("tensorboard handler: the worker name must be a non-empty file name part, was null",
                assertThrows(IllegalArgumentException.class, () -> TraceReadyHandler.tensorboard(dir, null)).getMessage());
        assertEquals("tensorboard handler: the worker name must be a non-empty file name part, was ''",
                assertThrows(IllegalArgumentException.class, () -> TraceReadyHandler.tensorboard(dir, "")).getMessage());
        assertEquals("tensorboard handler: the worker name must be a non-empty file name part, was 'rank/0'",
                assertThrows(IllegalArgumentException.class, () -> TraceReadyHandler.tensorboard(dir, "rank/0")).getMessage());
    }

    @Test
    void eachCycleLandsUnderTheWorkersNameInADirectoryMadeWhenMissing() throws Exception {
        Path tb = dir.resolve("runs/tb");
        TraceReadyHandler handler = TraceReadyHandler.tensorboard(tb, "node1_42");
        CycleTrace first = cycle(1, ".pt.trace.json");
        CycleTrace second = cycle(2, ".pt.trace.json.gz");
        handler.onTraceReady(first);
        handler.onTraceReady(second);
        assertTrue(first.path().getFileName().toString().matches("node1_42\\.\\d{19}\\.pt\\.trace\\.json"), first.path().toString());
        assertTrue(second.path().getFileName().toString().matches("node1_42\\.\\d{19}\\.pt\\.trace\\.json\\.gz"), second.path().toString());
        assertEquals(tb, first.path().getParent());
        assertEquals("{\"cycle\":2}", Files.readString(second.path()));
        try (var files = Files.list(tb)) {
            assertEquals(2, files.count());
        }
        CycleTrace third = cycle(3, ".pt.trace.json");
        handler.onTraceReady(third);
        assertTrue(!third.path().equals(first.path()) && Files.exists(first.path()), "a later cycle never replaces an earlier one");
    }

    @Test
    void aDirectoryThatCannotBeMadeIsSaidInOneLine() throws Exception {
        Path file = Files.writeString(dir.resolve("taken"), "");
        Path tb = file.resolve("tb");
        CycleTrace cycle = cycle(1, ".pt.trace.json");
        IOException e = assertThrows(IOException.class, () -> TraceReadyHandler.tensorboard(tb, "w").onTraceReady(cycle));
        assertTrue(e.getMessage().startsWith("can't create directory " + tb + ": "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(Files.exists(cycle.path()), "the trace stays where it was");
    }
}
