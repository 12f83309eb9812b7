package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;
import me.tongfei.progressbar.InteractiveConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar (me.tongfei:progressbar) on stderr while a long capture replays, told the bytes
 * read after each frame. Drawn only on a terminal: {@link #start} gives null for a pipe, a file, a
 * CI log or a short capture. Its refresh thread ends when it is closed.
 */
final class ReplayProgress implements LongConsumer, AutoCloseable {
    private static final long MIB = 1L << 20;

    private final ProgressBar bar;

    private ReplayProgress(ProgressBar bar) {
        this.bar = bar;
    }

    /** Whether a bar is wanted: on a terminal, for a capture of at least {@code minBytes}. */
    static boolean wanted(boolean terminal, long captureBytes, long minBytes) {
        return terminal && captureBytes >= minBytes;
    }

    /** A bar for replaying {@code capture}, or null when none is wanted. */
    static ReplayProgress start(CliContext context, Path capture) {
        long size;
        try {
            size = Files.size(capture);
        } catch (IOException e) {
            return null; // the replay itself reports an unreadable capture
        }
        if (!wanted(context.terminal(), size, context.progressMinBytes())) {
            return null;
        }
        // A gzip capture's uncompressed length is unknown until its end: the bar then counts bytes without a total.
        boolean gz = capture.getFileName().toString().endsWith(".gz");
        ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("replay")
                .setInitialMax(gz ? -1 : size)
                .setUnit(" MiB", MIB)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(250)
                .setConsumer(context.progressWidth() > 0
                        ? new InteractiveConsoleProgressBarConsumer(context.err(), context.progressWidth())
                        : new InteractiveConsoleProgressBarConsumer(context.err()))
                .showSpeed()
                .clearDisplayOnFinish()
                .build();
        return new ReplayProgress(bar);
    }

    @Override
    public void accept(long bytesRead) {
        bar.stepTo(bytesRead);
    }

    @Override
    public void close() {
        bar.close();
        letRefreshThreadEnd();
    }

    /**
     * The library refreshes every bar from one shared scheduler whose thread it never stops (a daemon,
     * idle once the bar is closed). Letting its core thread time out ends that thread a few
     * milliseconds after the last bar, so no thread outlives the run; if the library changes its
     * internals, the idle daemon is all that is left.
     */
    private static void letRefreshThreadEnd() {
        try {
            java.lang.reflect.Field field = Class.forName("me.tongfei.progressbar.Util").getDeclaredField("executor");
            field.setAccessible(true);
            if (field.get(null) instanceof java.util.concurrent.ThreadPoolExecutor pool) {
                pool.allowCoreThreadTimeOut(true);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // an idle daemon thread remains; nothing else depends on it
        }
    }
}
