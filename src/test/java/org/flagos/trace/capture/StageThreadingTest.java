package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.testing.ChildJvm;
import org.junit.jupiter.api.Test;

/**
 * {@code -Dflagtrace.threading} picks the mapping; without it (or with another spelling) the core count
 * does, one thread per stage from 4 cores. Each case runs in a child JVM told its core count
 * ({@code -XX:ActiveProcessorCount}), so both sides of the threshold are seen on any machine.
 */
class StageThreadingTest {
    /** The child: prints what {@link StageThreading#current()} chooses in its JVM. */
    public static final class Print {
        public static void main(String[] args) {
            System.out.print(StageThreading.current());
        }
    }

    private static String chosen(int cores, String property) throws Exception {
        List<String> flags = new ArrayList<>(List.of("-XX:ActiveProcessorCount=" + cores, "-Xshare:auto", "-XX:TieredStopAtLevel=1"));
        if (property != null) {
            flags.add("-Dflagtrace.threading=" + property);
        }
        flags.addAll(List.of("-cp", System.getProperty("java.class.path"), Print.class.getName()));
        Process child = new ProcessBuilder(ChildJvm.command(flags.toArray(String[]::new))).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child ends");
        assertEquals(0, child.exitValue(), out);
        return out;
    }

    @Test
    void thePropertyChoosesWhateverTheCores() throws Exception {
        assertEquals("ONE_PER_STAGE", chosen(2, "one-per-stage"));
        assertEquals("LIGHT_STAGES_SHARED", chosen(8, "shared"));
    }

    @Test
    void otherwiseFourCoresOrMoreGetAThreadPerStage() throws Exception {
        assertEquals("LIGHT_STAGES_SHARED", chosen(3, null));
        assertEquals("ONE_PER_STAGE", chosen(4, null));
        assertEquals("ONE_PER_STAGE", chosen(8, "Shared"), "not one of the two spellings: the cores choose");
        assertEquals("LIGHT_STAGES_SHARED", chosen(2, ""));
    }
}
