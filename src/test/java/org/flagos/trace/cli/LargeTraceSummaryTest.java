package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Ten million events (about 1.2 GB of JSON, streamed into {@code target/}) summarised and reported
 * by the CLI in a child JVM with a 256 MiB heap, checked against a recount made while the trace
 * was generated. Tagged {@code large}: opt in with {@code -Dgroups=large}.
 */
@Tag("large")
class LargeTraceSummaryTest {
    static final int ITERATIONS = 3_333_334; // three events each
    static final int OPS = 5;
    static final int KERNELS = 7;

    final Path dir = Path.of("target", "large-trace-summary");

    /** What the generator wrote, counted as it wrote it (nanoseconds). */
    static final class Recount {
        final long[] opCalls = new long[OPS];
        final long[] opDeviceNs = new long[OPS];
        final long[] kernelCalls = new long[KERNELS];
        final long[] kernelNs = new long[KERNELS];
        long events;
        long selfCpuNs;
    }

    /**
     * Iteration k: op {@code op_(k%5)} on thread 1 + k%2 for 10 us (External id k), inside it a
     * 3 us {@code cudaLaunchKernel}, and kernel {@code kern_(k%7)} on stream 7 lasting
     * 1 + (k%4)/4 us with External id k. Each op's self CPU is 7 us, each launch's 3 us.
     */
    static Recount generate(Path trace) throws IOException {
        Recount n = new Recount();
        try (Writer w = new BufferedWriter(Files.newBufferedWriter(trace, StandardCharsets.UTF_8), 1 << 20)) {
            w.write("{\"schemaVersion\":1,\"traceEvents\":[\n");
            for (int k = 0; k < ITERATIONS; k++) {
                long ts = 1_000_000L + 20L * k;
                int op = k % OPS;
                int kernel = k % KERNELS;
                int tid = 1 + k % 2;
                long kernelNs = 1000 + 250L * (k % 4);
                w.write(k == 0 ? "" : ",\n");
                w.write("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_" + op + "\",\"pid\":1,\"tid\":" + tid + ",\"ts\":" + ts
                        + ",\"dur\":10,\"args\":{\"External id\":" + k + "}},\n");
                w.write("{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":" + tid + ",\"ts\":"
                        + (ts + 2) + ",\"dur\":3,\"args\":{\"External id\":" + k + "}},\n");
                w.write("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kern_" + kernel + "\",\"pid\":0,\"tid\":7,\"ts\":" + (ts + 5)
                        + ",\"dur\":" + kernelNs / 1000 + "." + String.format("%03d", kernelNs % 1000) + ",\"args\":{\"External id\":" + k + "}}");
                n.opCalls[op]++;
                n.opDeviceNs[op] += kernelNs;
                n.kernelCalls[kernel]++;
                n.kernelNs[kernel] += kernelNs;
                n.selfCpuNs += 7_000 + 3_000;
                n.events += 3;
            }
            w.write("\n]}\n");
        }
        return n;
    }

    record Run(int code, String out) {
    }

    Run cli(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/time"))) { // the figures docs/benchmarks.md quotes: wall time and peak RSS
            command.addAll(List.of("/usr/bin/time", "-f", "measured: " + args[0] + " wall %e s, max RSS %M KiB"));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Djava.io.tmpdir=" + dir.resolve("tmp").toAbsolutePath(), "-cp", System.getProperty("java.class.path"),
                FlagtraceCli.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the CLI ends");
        out.lines().filter(l -> l.startsWith("measured: ")).forEach(System.out::println);
        return new Run(p.exitValue(), out);
    }

    @AfterEach
    void cleanUp() throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    @Test
    void tenMillionEventsSummariseAndReportIn256MiB() throws Exception {
        Files.createDirectories(dir.resolve("tmp"));
        Path trace = dir.resolve("ten-million.json");
        Recount n = generate(trace);
        assertEquals(10_000_002, n.events);

        Path json = dir.resolve("summary.json");
        Run summary = cli("summary", trace.toString(), "--json", json.toString());
        assertEquals(0, summary.code(), summary.out());
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        assertEquals(n.events, doc.get("events").asLong());
        assertTrue(doc.get("spilled_bytes").asLong() > n.events * 8 * 6, "the sorts went through the disk: " + doc.get("spilled_bytes"));
        System.out.println("measured: spilled " + doc.get("spilled_bytes").asLong() + " bytes, trace " + Files.size(trace) + " bytes");
        assertEquals(OPS + KERNELS + 1, doc.get("rows_total").asInt());
        Map<String, JsonNode> rows = new TreeMap<>();
        for (JsonNode r : doc.get("rows")) {
            rows.put(r.get("kind").asText() + ":" + r.get("name").asText(), r);
        }
        long deviceNs = 0;
        for (int k = 0; k < KERNELS; k++) {
            JsonNode r = rows.get("device:kern_" + k);
            assertEquals(n.kernelCalls[k], r.get("count").asLong());
            assertEquals(n.kernelNs[k] / 1000.0, r.get("self_device_time_total_us").asDouble(), 1e-3, "kern_" + k);
            deviceNs += n.kernelNs[k];
        }
        for (int o = 0; o < OPS; o++) {
            JsonNode r = rows.get("host:op_" + o);
            assertEquals(n.opCalls[o], r.get("count").asLong());
            assertEquals(n.opCalls[o] * 10.0, r.get("cpu_time_total_us").asDouble(), 1e-3, "op_" + o);
            assertEquals(n.opCalls[o] * 7.0, r.get("self_cpu_time_total_us").asDouble(), 1e-3, "op_" + o);
            assertEquals(n.opDeviceNs[o] / 1000.0, r.get("self_device_time_total_us").asDouble(), 1e-3, "op_" + o);
        }
        assertEquals(ITERATIONS, rows.get("host:cudaLaunchKernel").get("count").asLong());
        assertEquals(deviceNs / 1000.0, doc.get("self_device_time_total_us").asDouble(), 1e-3);
        assertEquals(n.selfCpuNs / 1000.0, doc.get("self_cpu_time_total_us").asDouble(), 1e-3);

        Path html = dir.resolve("report.html");
        Run report = cli("report", trace.toString(), "-o", html.toString());
        assertEquals(0, report.code(), report.out());
        String page = Files.readString(html);
        assertTrue(page.matches("(?s).*<title>kern_0: [0-9.]+m?s over " + n.kernelCalls[0] + " calls</title>.*"), "the top device work chart");
        assertTrue(page.contains(n.events + " events summarised"), "the event count");
        try (Stream<Path> left = Files.list(dir.resolve("tmp"))) {
            assertEquals(0, left.count(), "every temporary file deleted");
        }
    }
}
