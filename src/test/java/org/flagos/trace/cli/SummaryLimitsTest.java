package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summary's bounds on what a trace may make it hold, and damaged {@code .pftrace} input: each
 * refused in one line that names the path, before memory is spent on it.
 */
class SummaryLimitsTest {
    @TempDir
    Path dir;
    final CliRunner cli = new CliRunner();

    void assertOneLineError(Path input, String expected) {
        assertEquals(1, cli.run("summary", input.toString()));
        String err = cli.stderr();
        assertEquals(1, err.strip().split("\n").length, err);
        assertTrue(err.startsWith("flagtrace: error: " + input + " "), err);
        assertTrue(err.contains(expected), err);
        assertEquals("", cli.stdout());
    }

    @Test
    void nestingDeeperThanTheBoundIsRefused() throws IOException {
        int depth = 65_537; // one past the bound: each op holds the next, on one thread
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < depth; i++) {
            b.append(i == 0 ? "" : ",").append("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":")
                    .append(i).append(",\"dur\":").append(2L * (depth - i)).append('}');
        }
        Path deep = Files.writeString(dir.resolve("deep.json"), b.append(']').toString());
        assertOneLineError(deep, "nests events more than 65536 deep on one thread");
        // one level less is summarised, and every event of the chain counts (the one summary rule, docs/summary.md)
        Path ok = Files.writeString(dir.resolve("ok.json"), b.toString().replaceFirst("\\{[^}]*\\},", ""));
        Path json = dir.resolve("ok-summary.json");
        assertEquals(0, cli.run("summary", ok.toString(), "--json", json.toString()), cli.stderr());
        JsonNode rows = new ObjectMapper().readTree(json.toFile()).get("rows");
        assertEquals(1, rows.size());
        assertEquals(65_536, rows.get(0).get("count").asInt(), "65,536 calls of f, each the only child of an f: each counts");
        assertEquals(65_536.0 * 65_537, rows.get(0).get("cpu_time_total_us").asDouble(), 1e-9); // durations 2, 4, ..., 2 x 65,536
        // each f's self time is its 2 µs outside its child, the innermost's its whole 2 µs
        assertEquals(2.0 * 65_536, rows.get(0).get("self_cpu_time_total_us").asDouble(), 1e-9);
    }

    @Test
    void aDamagedPftraceIsOneLine() throws Exception {
        Path pf = dir.resolve("t.pftrace");
        try (OutputStream out = Files.newOutputStream(pf)) {
            String name = Captures.EVERY.get(0);
            CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, java.util.List.of(), java.util.Map.of())
                    .withFormat(TraceFormat.PERFETTO), out);
        }
        byte[] whole = Files.readAllBytes(pf);
        Path json = dir.resolve("t.json");
        try (OutputStream out = Files.newOutputStream(json)) {
            String name = Captures.EVERY.get(0);
            CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, java.util.List.of(), java.util.Map.of()), out);
        }
        assertEquals(0, cli.run("summary", json.toString()), cli.stderr());
        String fromJson = cli.stdout();
        assertEquals(0, cli.run("summary", pf.toString()), cli.stderr());
        assertEquals(fromJson, cli.stdout(), "the .pftrace prints the JSON trace's table");
        Path gz = dir.resolve("t.pftrace.gz");
        try (OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(whole);
        }
        assertEquals(0, cli.run("summary", gz.toString()), cli.stderr());
        assertEquals(fromJson, cli.stdout(), "and gzipped too");
        assertEquals(0, cli.run("report", pf.toString(), "-o", dir.resolve("pf.html").toString()), cli.stderr());
        assertTrue(Files.readString(dir.resolve("pf.html")).contains("<svg id=\"top-kernels\""));
        Path cut = Files.write(dir.resolve("cut.pftrace"), Arrays.copyOf(whole, whole.length - 7));
        assertOneLineError(cut, "ends in the middle of a packet (truncated?)");
        // a packet that claims 2 GiB: refused from its length, nothing allocated for it
        Path huge = Files.write(dir.resolve("huge.pftrace"), new byte[] {0x0A, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08});
        assertOneLineError(huge, "is not a trace: the packet at byte 0 is longer than 4194304 bytes (it says 2147483648)");
        // a packet whose inner field runs past the packet's end
        Path inner = Files.write(dir.resolve("inner.pftrace"), new byte[] {0x0A, 0x03, 0x5A, 0x10, 0x00});
        assertOneLineError(inner, "is not a trace: the packet at byte 0 has a field of 16 bytes where 1 are left");
    }
}
