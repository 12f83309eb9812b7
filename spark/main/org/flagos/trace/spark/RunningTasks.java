package org.flagos.trace.spark;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * The tasks of a Spark context that run now, counted from the start and end events its listener bus delivers to
 * this listener. Not Spark's status tracker: the store it reads has an executor's running tasks written at most
 * once a {@code spark.ui.liveUpdate.period} (100 ms by default), but when they fall to 0, so tasks that start and
 * fail within that period are not in it (FailedJobTasksTest; CI of stop 48 found an empty OUT left by one).
 */
final class RunningTasks extends SparkListener implements AutoCloseable {
    private final SparkContext context;
    private final AtomicInteger running = new AtomicInteger();

    private RunningTasks(SparkContext context) {
        this.context = context;
    }

    /** Counting from now on: made before the jobs whose tasks it is to wait for start. */
    static RunningTasks on(SparkContext context) {
        RunningTasks tasks = new RunningTasks(context);
        context.addSparkListener(tasks);
        return tasks;
    }

    @Override
    public void onTaskStart(SparkListenerTaskStart start) {
        running.incrementAndGet();
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
        running.decrementAndGet();
    }

    /**
     * Waits, a minute at most, until no task runs: a failed job's other tasks are cancelled, not stopped, and one
     * still writing its part would put back a table folder removed under it. The listener bus is emptied first:
     * every start was posted before the failure reached this thread, so then each running task is counted.
     */
    void awaitNone() {
        long end = System.nanoTime() + 60_000_000_000L;
        try {
            context.listenerBus().waitUntilEmpty(60_000L);
        } catch (java.util.concurrent.TimeoutException late) {
            // counted as they arrive: the wait below is bounded as well
        }
        while (System.nanoTime() < end && running.get() > 0) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException stop) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        context.removeSparkListener(this);
    }
}
