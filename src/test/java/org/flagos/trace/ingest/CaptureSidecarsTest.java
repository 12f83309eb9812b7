package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CaptureSidecars}: every bundled capture's files are found beside it as the tests name them (h200-tiny30k's ops
 * gzipped, its capture too); a name with or without {@code .fltrbuf} and {@code .gz} gives the same sidecars; a missing
 * sidecar is null, a node of another kind is found (for its reader to refuse).
 */
class CaptureSidecarsTest {
    @TempDir
    Path dir;

    @Test
    void theBundledCapturesSidecarsAreFound() {
        for (String name : Captures.EVERY) {
            Path capture = Captures.capture(name);
            assertEquals(Captures.ops(name), CaptureSidecars.OPS.found(capture), name);
            assertEquals(Captures.names(name), CaptureSidecars.NAMES.found(capture), name);
        }
        Path tiny = Captures.capture("h200-tiny30k");
        assertEquals("h200-tiny30k.fltrbuf.gz", tiny.getFileName().toString());
        assertEquals(tiny.resolveSibling("h200-tiny30k.ops.jsonl.gz"), CaptureSidecars.OPS.found(tiny), "ops found gzipped");
        assertNull(CaptureSidecars.DEVICES.found(tiny), "h200-tiny30k has no devices file");
        Path parity = Captures.capture("h200-java-parity");
        assertEquals(parity.resolveSibling("h200-java-parity.devices.json"), CaptureSidecars.DEVICES.found(parity));
        assertNull(CaptureSidecars.CLOCK.found(parity), "CUPTI's clock is the host's: no clock file");
        Path managed = Captures.capture("h200-java-managed/h200-java-managed");
        assertEquals(managed.resolveSibling("h200-java-managed.process.json"), CaptureSidecars.PROCESS.found(managed));
    }

    @Test
    void namesAndPlaces() throws Exception {
        for (String capture : List.of("x.fltrbuf", "x.fltrbuf.gz", "x")) {
            Path c = dir.resolve(capture);
            assertEquals(dir.resolve("x.ops.jsonl"), CaptureSidecars.OPS.besides(c), capture);
            assertEquals(List.of(dir.resolve("x.ops.jsonl"), dir.resolve("x.ops.jsonl.gz")), CaptureSidecars.OPS.places(c), capture);
            assertEquals(List.of(dir.resolve("x.names.tsv")), CaptureSidecars.NAMES.places(c), capture);
            assertEquals(dir.resolve("x.clock.json"), CaptureSidecars.CLOCK.besides(c));
            assertEquals(dir.resolve("x.process.json"), CaptureSidecars.PROCESS.besides(c));
            assertEquals(dir.resolve("x.devices.json"), CaptureSidecars.DEVICES.besides(c));
        }
        assertEquals(dir.resolve("a.fltrbuf.x.ops.jsonl"), CaptureSidecars.OPS.besides(dir.resolve("a.fltrbuf.x")), "only a last .fltrbuf goes");
        Path capture = dir.resolve("y.fltrbuf");
        assertNull(CaptureSidecars.OPS.found(capture));
        Files.writeString(dir.resolve("y.ops.jsonl.gz"), "");
        assertEquals(dir.resolve("y.ops.jsonl.gz"), CaptureSidecars.OPS.found(capture));
        Files.writeString(dir.resolve("y.ops.jsonl"), "");
        assertEquals(dir.resolve("y.ops.jsonl"), CaptureSidecars.OPS.found(capture), "the plain file first");
        Files.createDirectory(dir.resolve("y.names.tsv"));
        assertEquals(dir.resolve("y.names.tsv"), CaptureSidecars.NAMES.found(capture), "a node of any kind is found");
        assertNull(CaptureSidecars.NAMES.found(dir.resolve("z.fltrbuf")));
        assertEquals("host ops", CaptureSidecars.OPS.what());
        assertEquals("rank and clock anchors", CaptureSidecars.PROCESS.what());
    }
}
