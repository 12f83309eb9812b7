package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@link LoadLoop} inside one Maven invocation, only when asked ({@code scripts/load-loop} does):
 * {@code -Dflagtrace.loadLoop.runs=20 -Dflagtrace.loadLoop.classes=FQCN,FQCN,...}.
 */
@EnabledIfSystemProperty(named = "flagtrace.loadLoop.runs", matches = "[1-9][0-9]*")
class LoadLoopTest {
    @Test
    void everyClassPassesEveryRun() throws Exception {
        int runs = Integer.getInteger("flagtrace.loadLoop.runs");
        String[] classes = System.getProperty("flagtrace.loadLoop.classes", "").split(",");
        Map<String, LoadLoop.Tally> tallies = LoadLoop.run(runs, Arrays.asList(classes), System.out);
        assertTrue(LoadLoop.report(tallies, System.out), "a class failed a run: see the tally");
    }
}
