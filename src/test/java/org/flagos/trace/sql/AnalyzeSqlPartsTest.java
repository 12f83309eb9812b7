package org.flagos.trace.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The SQL loader's shared fragments (step_ops.sql, launch_calls.sql and device_work.sql, each put into two queries) and
 * analyze's memory budget (DuckDbAnalyses.memoryLimit: DuckDB gets what the heap and the JVM leave).
 */
class AnalyzeSqlPartsTest {
    @Test
    void sharedPartsAreWrittenOnceAndPutIntoEachQueryThatUsesThem() {
        // fragment, the queries that use it, the name of its common table expression there
        String[][] uses = {
            {"step_ops", "rank_steps", "step_ops"}, {"step_ops", "step_stragglers", "step_ops"},
            {"launch_calls", "queue_length", "launches"}, {"launch_calls", "cp_nodes", "launches"},
            {"device_work", "queue_length", "device"}, {"device_work", "cp_nodes", "work_items"},
        };
        for (String[] u : uses) {
            String fragment = Analyses.load(u[0]);
            String body = fragment.substring(fragment.indexOf("\nSELECT ") + 1).strip();
            String sql = Analyses.load(u[1]);
            assertTrue(!sql.contains(Analyses.FRAGMENT_MARKER), u[1]);
            assertTrue(sql.contains(u[2] + " AS (\n  " + body + "\n)"), u[0] + " in " + u[1] + ":\n" + sql);
        }
        assertTrue(Analyses.load("launch_calls").contains("cudaLaunchKernel"), "the launch calls' marker is expanded in a fragment too");
        assertThrows(IllegalStateException.class, () -> Analyses.fragments("SELECT * FROM (flagtrace_fragment(no such)) t"));
    }

    @Test
    void analyzeBudgetLeavesDuckDbWhatTheHeapAndTheJvmDoNotTake() {
        assertEquals(1L << 30, DuckDbAnalyses.bytes("1g"));
        assertEquals(768L << 20, DuckDbAnalyses.bytes("768M"));
        assertEquals(65536L << 10, DuckDbAnalyses.bytes("65536k"));
        assertEquals(123, DuckDbAnalyses.bytes("123"));
        assertThrows(IllegalArgumentException.class, () -> DuckDbAnalyses.bytes("1.5g"));
        String before = System.getProperty(DuckDbAnalyses.BUDGET_PROPERTY);
        try {
            System.clearProperty(DuckDbAnalyses.BUDGET_PROPERTY);
            assertEquals(DuckDbAnalyses.MEMORY_LIMIT, DuckDbAnalyses.memoryLimit());
            long heap = Runtime.getRuntime().maxMemory();
            long budget = heap + (4L << 30);
            System.setProperty(DuckDbAnalyses.BUDGET_PROPERTY, Long.toString(budget));
            String limit = DuckDbAnalyses.memoryLimit();
            assertTrue(limit.endsWith("MiB"), limit);
            long mib = Long.parseLong(limit.substring(0, limit.length() - 3));
            // the heap, what the JVM holds beside it and DuckDB's limit add up to the budget (within the MiB rounded off)
            long total = heap + DuckDbAnalyses.JVM_OWN + (mib << 20);
            assertTrue(total <= budget && total > budget - (1L << 20), limit + " with a heap of " + heap);
            assertEquals(Math.min(Runtime.getRuntime().availableProcessors(), (mib << 20) / DuckDbAnalyses.PER_THREAD),
                    DuckDbAnalyses.threads(), "a thread per core, as far as the limit gives each its share");
            System.setProperty(DuckDbAnalyses.BUDGET_PROPERTY, "1m"); // less than the heap: DuckDB still gets the least
            assertEquals((DuckDbAnalyses.LEAST_LIMIT >> 20) + "MiB", DuckDbAnalyses.memoryLimit());
            assertEquals(1, DuckDbAnalyses.threads(), "the least limit: one thread, whatever the cores");
            // the launcher's budget for analyze: 1g with -Xmx256m leaves 616 MiB, two threads at the most
            System.setProperty(DuckDbAnalyses.BUDGET_PROPERTY, Long.toString(heap + DuckDbAnalyses.JVM_OWN + (616L << 20)));
            assertEquals(Math.min(Runtime.getRuntime().availableProcessors(), 2), DuckDbAnalyses.threads());
        } finally {
            if (before == null) {
                System.clearProperty(DuckDbAnalyses.BUDGET_PROPERTY);
            } else {
                System.setProperty(DuckDbAnalyses.BUDGET_PROPERTY, before);
            }
        }
    }
}
