package org.flagos.trace.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Says on the console why a test was skipped: surefire's summary only counts skipped tests and keeps
 * the reason in {@code target/surefire-reports}. One line per test class and reason, printed when the
 * class ends, for a disabled test and for an aborted one (an assumption that did not hold, such as the
 * browser tests' {@code Browser.requireTools()} where Chromium is missing):
 *
 * <pre>[SKIPPED] CatapultViewerTest: 3 tests: browser/trace-processor test skipped: /usr/bin/chromium is missing (...)</pre>
 *
 * Registered in {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}.
 */
public final class SkipReasons implements TestExecutionListener {
    /** Per running class (its unique id): reason to the number of its tests skipped for it. */
    private final Map<String, Map<String, Integer>> skipped = new LinkedHashMap<>();

    @Override
    public synchronized void executionSkipped(TestIdentifier test, String reason) {
        String why = reason == null || reason.isBlank() ? "disabled" : reason;
        if (test.isTest()) {
            count(test, why);
        } else {
            // A whole class (or other container) skipped: it never finishes, so say it now.
            print(test, container(test), why);
        }
    }

    @Override
    public synchronized void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            String why = result.getThrowable().map(SkipReasons::message).orElse("aborted");
            if (test.isTest()) {
                count(test, why);
            } else {
                print(test, container(test), why);
            }
        }
        Map<String, Integer> reasons = skipped.remove(test.getUniqueId());
        if (reasons != null) {
            reasons.forEach((why, n) -> print(test, n + (n == 1 ? " test" : " tests"), why));
        }
    }

    private void count(TestIdentifier test, String why) {
        skipped.computeIfAbsent(classAncestor(test), k -> new LinkedHashMap<>()).merge(why.strip(), 1, Integer::sum);
    }

    private static String container(TestIdentifier test) {
        return test.getSource().filter(ClassSource.class::isInstance).isPresent() ? "the class" : test.getDisplayName();
    }

    private static void print(TestIdentifier container, String what, String why) {
        String name = className(container).map(SkipReasons::simpleName).orElse(container.getDisplayName());
        System.out.println("[SKIPPED] " + name + ": " + what + ": " + why);
        System.out.flush();
    }

    /** The unique id of the test's class: the test's id up to its last class segment. */
    private static String classAncestor(TestIdentifier test) {
        String id = test.getUniqueId();
        int method = Math.max(id.lastIndexOf("/[method:"), Math.max(id.lastIndexOf("/[test-template:"), id.lastIndexOf("/[test-factory:")));
        return method > 0 ? id.substring(0, method) : test.getParentId().orElse(id);
    }

    private static Optional<String> className(TestIdentifier test) {
        return test.getSource().flatMap(s -> s instanceof ClassSource c ? Optional.of(c.getClassName())
                : s instanceof MethodSource m ? Optional.of(m.getClassName()) : Optional.empty());
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static String message(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return t.getClass().getSimpleName();
        }
        return m.replace("Assumption failed: ", "").lines().findFirst().orElse(m);
    }
}
