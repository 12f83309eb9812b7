package org.flagos.trace.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The agent's option string: every key, its defaults, and one line for each way it can be wrong. */
class AgentOptionsTest {
    @Test
    void defaultsTraceBesideTheProgramUntilItExits() {
        AgentOptions o = AgentOptions.parse(null, 4242);
        assertEquals(Path.of("flagtrace-4242.json").toAbsolutePath(), o.trace());
        assertNull(o.journal());
        assertEquals(0, o.delayNs());
        assertEquals(0, o.durationNs(), "0: until the program exits or stop");
        assertFalse(o.stop());
        assertEquals(o, AgentOptions.parse("", 4242));
    }

    @Test
    void readsEveryKey() {
        AgentOptions o = AgentOptions.parse("trace=/x/t.json.gz, journal=/x/j ,delay=1.5,duration=0.25", 1);
        assertEquals(Path.of("/x/t.json.gz"), o.trace());
        assertEquals(Path.of("/x/j"), o.journal());
        assertEquals(1_500_000_000L, o.delayNs());
        assertEquals(250_000_000L, o.durationNs());
        assertTrue(AgentOptions.parse("stop", 1).stop());
        assertEquals(Path.of("/x/flagtrace-77.json"), AgentOptions.parse("dir=/x", 77).trace(), "one trace per process of a tree");
    }

    @Test
    void refusesWhatItCannotDoWithOneLineNamingTheOption() {
        assertRefused("nope=1", "unknown option 'nope'");
        assertRefused("trace=a.json,trace=b.json", "'trace' given twice");
        assertRefused("delay=1,delay=2", "'delay' given twice");
        assertRefused("duration=abc", "not a number of seconds");
        assertRefused("duration=-1", "seconds from 0 to 86400");
        assertRefused("delay=NaN", "seconds from 0 to 86400");
        assertRefused("duration=1e12", "seconds from 0 to 86400");
        assertRefused("duration=0", "duration=0 would record nothing");
        assertRefused("trace=", "'trace' needs a path");
        assertRefused("delay", "'delay' needs seconds");
        assertRefused("stop=now", "'stop' takes no value");
        assertRefused("stop,trace=a.json", "'stop' takes no other option");
        assertRefused("trace=a.json,dir=/x", "'trace' and 'dir' both name the trace");
    }

    private static void assertRefused(String options, String words) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(options, 1), options);
        assertTrue(e.getMessage().contains(words), options + ": " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }
}
