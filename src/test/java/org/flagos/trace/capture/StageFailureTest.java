package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stage that fails leaves its state broken: the capture must end with one failure, not call the
 * broken stage again. The stage here throws an {@link OutOfMemoryError} on one record and would
 * spin forever if called after it, as the join's map did after an OOM in a resize at -Xmx64m.
 */
class StageFailureTest {
    /** Throws on the 500th activity, then never returns if it is called again. */
    static final class BreaksOnce implements EventHandler<TraceRecord> {
        private int activities;
        private boolean broken;

        @Override
        public void onEvent(TraceRecord record, long sequence, boolean endOfBatch) {
            while (broken) {
                Thread.onSpinWait(); // state left inconsistent: the next call loops, as Agrona's map did
            }
            if (record.type == RecordType.ACTIVITY && ++activities == 500) {
                broken = true;
                throw new OutOfMemoryError("Java heap space (simulated, mid-resize)");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"one-per-stage", "shared"})
    void aFailedStageEndsTheCaptureInsteadOfHangingIt(String threading) {
        String before = System.getProperty("flagtrace.threading");
        System.setProperty("flagtrace.threading", threading);
        try {
            CaptureFailedException failure = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(
                    CaptureFailedException.class, () -> replayWith(new BreaksOnce())));
            assertTrue(failure.getMessage().contains("out of memory"), failure.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty("flagtrace.threading");
            } else {
                System.setProperty("flagtrace.threading", before);
            }
        }
    }

    private static void replayWith(EventHandler<TraceRecord> stage) throws Exception {
        String name = "h200-app-tiny2k";
        NameTable names = new NameTable();
        ActivityBufferDecoder decoder = Vendors.decoderFor(1).create(KernelNameFile.read(Captures.names(name)), names, List.of());
        DecodeStats stats = new DecodeStats();
        // A ring much smaller than the capture: a stuck stage would block the producer here.
        try (CapturePipeline pipeline = CapturePipeline.builder().names(names).apiNames(decoder.apiNames())
                .vendorStages(List.of(stage)).window(CaptureWindowFilter.unbounded())
                .header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1)).format(TraceFormat.JSON)
                .out(new ByteArrayOutputStream()).decodeStats(stats).producers(ProducerType.SINGLE).ringSize(1 << 8).build()) {
            FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(name)), name);
            while (frames.next()) {
                decoder.decode(frames.payload(), pipeline, stats);
            }
            pipeline.finish();
        }
    }
}
