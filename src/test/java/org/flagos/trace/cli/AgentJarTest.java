package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The agent's options are checked as the agent checks them, and its jar is the one given or flagtrace's own. */
class AgentJarTest {
    @Test
    void goodOptionsPassUnchanged() {
        assertEquals("", AgentJar.checked("", 42));
        assertEquals("duration=5,trace=t.json", AgentJar.checked("duration=5,trace=t.json", 42));
        assertEquals("stop", AgentJar.checked("stop", 42));
    }

    @Test
    void badOptionsAreAUsageErrorWithTheAgentsMessage() {
        assertEquals("'trace' and 'dir' both name the trace: give one",
                assertThrows(UsageException.class, () -> AgentJar.checked("trace=a.json,dir=d", 42)).getMessage());
        assertEquals("duration=0 would record nothing; leave it out to record until the program exits",
                assertThrows(UsageException.class, () -> AgentJar.checked("duration=0", 42)).getMessage());
        assertTrue(assertThrows(UsageException.class, () -> AgentJar.checked("frobnicate=1", 42)).getMessage()
                .startsWith("unknown option 'frobnicate'"));
    }

    @Test
    void aGivenJarIsMadeAbsolute() {
        Path given = Path.of("some", "agent.jar");
        assertEquals(given.toAbsolutePath(), AgentJar.of(given));
    }

    @Test
    void flagtraceRunFromClassesHasNoJarToHandOver() {
        // the tests run from target/classes, not a jar
        UsageException e = assertThrows(UsageException.class, () -> AgentJar.of(null));
        assertTrue(e.getMessage().startsWith("the agent must be loaded from flagtrace's jar, and this flagtrace runs from "),
                e.getMessage());
        assertTrue(e.getMessage().contains("classes"), e.getMessage());
    }
}
