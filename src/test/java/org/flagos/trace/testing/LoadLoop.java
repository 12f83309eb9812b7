package org.flagos.trace.testing;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs test classes again and again in one JVM and tallies the runs each class passed: the loop
 * behind {@code scripts/load-loop} (many sessions in one JVM, each run of a class a fresh instance).
 * A run of a class passes when its tests all succeeded and at least one ran (a class whose tests were
 * all skipped does not pass). {@code java ... org.flagos.trace.testing.LoadLoop RUNS CLASS...} exits 1
 * unless every run of every class passed; {@link LoadLoopTest} runs it inside Maven.
 */
public final class LoadLoop {
    /** Runs, passes and the first failures of one class. */
    public static final class Tally {
        public int runs;
        public int passed;
        public final List<String> failures = new ArrayList<>();
    }

    /** Runs each of {@code classes} (fully qualified names) {@code runs} times, in turn; a line per run to {@code out}. */
    public static Map<String, Tally> run(int runs, List<String> classes, PrintStream out) throws ClassNotFoundException {
        if (runs < 1 || classes.isEmpty()) {
            throw new IllegalArgumentException("runs " + runs + " and classes " + classes + ": at least one of each");
        }
        Launcher launcher = LauncherFactory.create();
        Map<String, Tally> tallies = new LinkedHashMap<>();
        List<Class<?>> loaded = new ArrayList<>();
        for (String name : classes) {
            loaded.add(Class.forName(name));
            tallies.put(name, new Tally());
        }
        for (int run = 1; run <= runs; run++) {
            for (Class<?> c : loaded) {
                LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectClass(c)).build();
                SummaryGeneratingListener listener = new SummaryGeneratingListener();
                long t0 = System.nanoTime();
                launcher.execute(request, listener);
                TestExecutionSummary summary = listener.getSummary();
                Tally tally = tallies.get(c.getName());
                tally.runs++;
                boolean pass = summary.getTotalFailureCount() == 0 && summary.getTestsSucceededCount() > 0;
                if (pass) {
                    tally.passed++;
                } else if (tally.failures.size() < 3) {
                    StringBuilder why = new StringBuilder("run " + run + ":");
                    for (TestExecutionSummary.Failure f : summary.getFailures()) {
                        why.append(' ').append(f.getTestIdentifier().getDisplayName()).append(": ").append(f.getException());
                    }
                    if (summary.getTestsSucceededCount() == 0) {
                        why.append(" no test succeeded (").append(summary.getTestsSkippedCount()).append(" skipped)");
                    }
                    tally.failures.add(why.toString());
                }
                out.printf(Locale.ROOT, "load-loop: run %d %s %s (%d tests, %d failed, %.1f s)%n", run, c.getSimpleName(),
                        pass ? "PASS" : "FAIL", summary.getTestsFoundCount(), summary.getTotalFailureCount(),
                        (System.nanoTime() - t0) / 1e9);
                for (TestExecutionSummary.Failure f : summary.getFailures()) { // at once: a long loop may be stopped
                    out.println("  failed: " + f.getTestIdentifier().getDisplayName() + ": " + f.getException());
                }
            }
        }
        return tallies;
    }

    /** The tally, a line per class, and whether every run passed. */
    public static boolean report(Map<String, Tally> tallies, PrintStream out) {
        boolean all = true;
        for (Map.Entry<String, Tally> e : tallies.entrySet()) {
            Tally t = e.getValue();
            out.printf(Locale.ROOT, "load-loop tally: %s %d of %d%n", e.getKey().substring(e.getKey().lastIndexOf('.') + 1), t.passed, t.runs);
            for (String f : t.failures) {
                out.println("  " + f);
            }
            all &= t.passed == t.runs;
        }
        return all;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: LoadLoop RUNS CLASS...");
            System.exit(2);
        }
        Map<String, Tally> tallies = run(Integer.parseInt(args[0]), List.of(args).subList(1, args.length), System.out);
        System.exit(report(tallies, System.out) ? 0 : 1);
    }

    private LoadLoop() {
    }
}
