package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.testing.ProgramRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChronicleSettings}: Chronicle's three switches are set when the class initializes, each only where
 * the user did not set it. In a child JVM, since this JVM's properties depend on which tests ran first.
 */
class ChronicleSettingsTest {
    @TempDir
    Path dir;

    /** Prints the three properties before and after {@link ChronicleSettings#apply()}. */
    public static final class Show {
        public static void main(String[] args) {
            String[] keys = {ChronicleSettings.ANALYTICS_DISABLE, ChronicleSettings.DISK_MONITOR_DISABLE, ChronicleSettings.BACKGROUND_RELEASER};
            StringBuilder out = new StringBuilder();
            for (String key : keys) {
                out.append(key).append('=').append(System.getProperty(key)).append(' ');
            }
            ChronicleSettings.apply();
            for (String key : keys) {
                out.append(key).append('=').append(System.getProperty(key)).append(' ');
            }
            System.out.println(out.toString().strip());
        }
    }

    private String run(String... flags) throws Exception {
        ProgramRun run = ProgramRun.start(dir, List.of(flags), Show.class.getName());
        try {
            assertEquals(0, run.finish(), run.stderr());
            return run.stdout().strip();
        } finally {
            run.clean();
        }
    }

    @Test
    void unsetSwitchesAreSetOnApply() throws Exception {
        assertEquals("chronicle.analytics.disable=null chronicle.disk.monitor.disable=null background.releaser=null "
                + "chronicle.analytics.disable=true chronicle.disk.monitor.disable=true background.releaser=false", run());
    }

    @Test
    void aSwitchTheUserSetIsLeftAsSet() throws Exception {
        assertEquals("chronicle.analytics.disable=false chronicle.disk.monitor.disable=null background.releaser=true "
                        + "chronicle.analytics.disable=false chronicle.disk.monitor.disable=true background.releaser=true",
                run("-Dchronicle.analytics.disable=false", "-Dbackground.releaser=true"));
    }
}
