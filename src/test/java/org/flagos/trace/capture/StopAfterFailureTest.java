package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.lmax.disruptor.EventHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

/**
 * A stage wrapped so that once any stage of the capture has failed, slots pass it untouched: its
 * events reach the stage until then and never after, while start and shutdown always do.
 */
class StopAfterFailureTest {
    @Test
    void eventsStopAtTheFirstFailureStartAndShutdownDoNot() throws Exception {
        List<String> calls = new ArrayList<>();
        EventHandler<TraceRecord> stage = new EventHandler<>() {
            @Override
            public void onEvent(TraceRecord r, long sequence, boolean endOfBatch) {
                calls.add("event " + sequence + (endOfBatch ? " end" : ""));
                r.bytes = sequence;
            }

            @Override
            public void onStart() {
                calls.add("start");
            }

            @Override
            public void onShutdown() {
                calls.add("shutdown");
            }
        };
        AtomicBoolean failed = new AtomicBoolean();
        StopAfterFailure wrapped = new StopAfterFailure(stage, failed::get);
        wrapped.onStart();
        TraceRecord slot = new TraceRecord();
        wrapped.onEvent(slot, 1, false);
        wrapped.onEvent(slot, 2, true);
        failed.set(true);
        TraceRecord untouched = new TraceRecord();
        wrapped.onEvent(untouched, 3, true);
        wrapped.onShutdown();
        assertEquals(List.of("start", "event 1", "event 2 end", "shutdown"), calls);
        assertEquals(2, slot.bytes);
        assertEquals(0, untouched.bytes, "passed through as it came");
    }
}
