package org.flagos.trace.capture;

import com.lmax.disruptor.EventHandler;
import java.util.function.BooleanSupplier;
import org.flagos.trace.model.TraceRecord;

/**
 * Runs a stage until any stage of the capture has failed, then passes slots through untouched. A
 * stage that threw (an {@link OutOfMemoryError} in the middle of a map's resize, say) may have left
 * its state broken, and the next call could loop forever inside it: measured, a replay at
 * {@code -Xmx64m} hung that way in the join's binding map. Passing slots on keeps the ring moving,
 * so producers never block on a dead stage and the writer reaches the end of the capture, where the
 * failure is reported in one line and the output discarded.
 */
final class StopAfterFailure implements EventHandler<TraceRecord> {
    private final EventHandler<TraceRecord> stage;
    private final BooleanSupplier failed;

    StopAfterFailure(EventHandler<TraceRecord> stage, BooleanSupplier failed) {
        this.stage = stage;
        this.failed = failed;
    }

    @Override
    public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) throws Exception {
        if (!failed.getAsBoolean()) {
            stage.onEvent(record, sequence, endOfBatch);
        }
    }

    @Override
    public void onStart() {
        stage.onStart();
    }

    @Override
    public void onShutdown() {
        stage.onShutdown();
    }
}
