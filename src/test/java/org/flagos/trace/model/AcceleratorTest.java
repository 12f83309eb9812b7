package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Accelerator#fromEnvironment}: {@code FLAGOS_ACCELERATOR} read in any case and with spaces around,
 * unset or blank as "probe" (null), and a value that names no family as NONE with one warning listing
 * the families. Each case is a child JVM with that environment.
 */
class AcceleratorTest {
    @TempDir
    Path dir;

    /** Prints what {@link Accelerator#fromEnvironment()} gives. */
    public static final class Show {
        public static void main(String[] args) {
            System.out.println(Accelerator.fromEnvironment());
        }
    }

    /** stdout and stderr of a child with FLAGOS_ACCELERATOR set to {@code value} (removed when null). */
    private String[] run(String value) throws Exception {
        List<String> command = ChildJvm.command();
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Show.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().remove("FLAGOS_ACCELERATOR");
        builder.environment().remove("FLAGOS_TRACE");
        if (value != null) {
            builder.environment().put("FLAGOS_ACCELERATOR", value);
        }
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the child did not end");
        }
        String[] result = {Files.readString(out, StandardCharsets.UTF_8).strip(), Files.readString(err, StandardCharsets.UTF_8).strip()};
        assertEquals(0, p.exitValue(), result[1]);
        Files.delete(out);
        Files.delete(err);
        return result;
    }

    @Test
    void aFamilyIsReadInAnyCaseWithSpacesAround() throws Exception {
        assertEquals(List.of("CUDA", ""), List.of(run("cuda")));
        assertEquals(List.of("METAX", ""), List.of(run(" MetaX ")));
        assertEquals(List.of("NONE", ""), List.of(run("none")), "NONE is a choice: no device tracer, no warning");
    }

    @Test
    void unsetOrBlankMeansProbe() throws Exception {
        assertEquals(List.of("null", ""), List.of(run(null)));
        assertEquals(List.of("null", ""), List.of(run("  ")));
    }

    @Test
    void aValueThatNamesNoFamilyIsNoneWithOneWarning() throws Exception {
        assertEquals(List.of("NONE", "flagtrace[accelerator] WARNING: FLAGOS_ACCELERATOR=tpu is not one of "
                + "[CUDA, METAX, ASCEND, MUSA, DCU, GCU, PPU, NONE]; profiling without a device tracer"), List.of(run("tpu")));
    }
}
