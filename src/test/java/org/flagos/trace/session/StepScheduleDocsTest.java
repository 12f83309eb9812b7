package org.flagos.trace.session;

import org.flagos.trace.testing.ChildJvm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/step-schedule.md's example, the code block under its {@code StepExample.java} marker,
 * compiled as it stands against the build's classes and run (on whatever tracer this machine has):
 * it writes the two traces the page says, with the steps it says.
 */
class StepScheduleDocsTest {
    private static final String MARKER = "<!-- example: StepExample.java -->";

    @TempDir
    Path dir;

    static String example(Path page) throws Exception {
        String text = Files.readString(page);
        int at = text.indexOf(MARKER);
        assertTrue(at >= 0, "the page has the example marker");
        int start = text.indexOf("```java\n", at) + "```java\n".length();
        int end = text.indexOf("```", start);
        return text.substring(start, end);
    }

    @Test
    void theExampleWritesTwoCyclesWithTheStepsThePageSays() throws Exception {
        Path src = dir.resolve("src");
        Path classes = dir.resolve("classes");
        Files.createDirectories(src);
        Files.createDirectories(classes);
        Path source = src.resolve("StepExample.java");
        Files.writeString(source, example(Path.of("docs/step-schedule.md")));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK runs the tests");
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, diagnostics, diagnostics, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                source.toString());
        assertEquals(0, rc, diagnostics.toString(StandardCharsets.UTF_8));
        Path log = dir.resolve("log");
        // In a JVM of its own: the example's Profiler.start selects this process's tracer once and says
        // so on stderr once, which ProfilerSessionTest checks in the test JVM.
        // Its temporary files and JavaCPP's extracted libraries stay in the build tree, as the test JVM's do.
        List<String> command = ChildJvm.command("-cp", classes + java.io.File.pathSeparator + System.getProperty("java.class.path"),
                "StepExample", log.toString());
        Process child = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(dir.resolve("example.out").toFile()).start();
        if (!child.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor();
            throw new AssertionError("the example did not finish in 120 s");
        }
        assertEquals(0, child.exitValue(), Files.readString(dir.resolve("example.out")));
        List<List<String>> steps = new ArrayList<>();
        try (Stream<Path> files = Files.list(log)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                assertTrue(p.getFileName().toString().matches(".+_\\d+\\.\\d{19}\\.pt\\.trace\\.json"), p.toString());
                JsonNode trace = TraceJson.MAPPER.readTree(p.toFile());
                List<String> names = new ArrayList<>();
                List<String> stepNames = new ArrayList<>();
                for (JsonNode e : trace.get("traceEvents")) {
                    if ("cpu_op".equals(e.path("cat").asText())) {
                        names.add(e.get("name").asText());
                    } else if ("user_annotation".equals(e.path("cat").asText())) {
                        stepNames.add(e.get("name").asText()); // torch's category for a step
                    }
                }
                steps.add(stepNames.stream().filter(n -> n.startsWith("ProfilerStep#")).toList());
                assertEquals(2, names.stream().filter("train"::equals).count(), "one train op a recorded step");
            }
        }
        assertEquals(List.of(List.of("ProfilerStep#2", "ProfilerStep#3"), List.of("ProfilerStep#6", "ProfilerStep#7")), steps,
                "the page says: steps 2-3 and 6-7");
    }
}
