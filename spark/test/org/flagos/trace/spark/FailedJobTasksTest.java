package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.api.java.function.ForeachPartitionFunction;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the entry point waits for before removing a failed run's folders ({@link RunningTasks}): every
 * task of the failed job, the one that was cancelled but goes on (interrupted, it does not stop) included. Spark's
 * status tracker is no measure of that: it counts an executor's running tasks from a store that its listener writes at
 * most once a {@code spark.ui.liveUpdate.period} (100 ms by default) but when the count falls to 0, so tasks that start
 * and fail within the period are not there. The period is made an hour here: what happens by chance at 100 ms, every
 * time.
 */
@Tag("spark")
class FailedJobTasksTest {
    @TempDir
    Path dir;

    @Test
    void aFailedJobsCancelledTaskHasEndedWhenTheWaitReturns() throws Exception {
        SparkSession spark = LocalSpark.builder("flagtrace-failed-job-tasks", dir).master("local[2]")
                .config("spark.ui.liveUpdate.period", "1h").getOrCreate();
        try {
            String late = dir.resolve("late").toString(); // a String: the task's function is serialized
            ForeachPartitionFunction<Long> task = rows -> {
                if (org.apache.spark.TaskContext.getPartitionId() == 0) {
                    throw new IllegalStateException("the failing task");
                }
                // The other task: cancelled with the job and interrupted (spark.sql.execution.interruptOnCancel), it
                // goes on, as a write that does not look at the interrupt does, then writes through no interruptible
                // channel.
                long until = System.nanoTime() + 3_000_000_000L;
                while (System.nanoTime() < until) {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException goesOn) {
                        // as such a write: not stopped
                    }
                }
                try (java.io.FileOutputStream out = new java.io.FileOutputStream(late)) {
                    out.write('x');
                }
            };
            try (RunningTasks tasks = RunningTasks.on(spark.sparkContext())) {
                assertThrows(Exception.class, () -> spark.range(0, 2, 1, 2).foreachPartition(task));
                tasks.awaitNone();
            }
            assertTrue(Files.exists(Path.of(late)), "the wait returned while the failed job's other task ran");
        } finally {
            spark.stop();
        }
    }
}
