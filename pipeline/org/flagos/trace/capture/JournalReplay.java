package org.flagos.trace.capture;

import com.lmax.disruptor.dsl.ProducerType;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.journal.JournalFacts;
import org.flagos.trace.journal.JournalReader;
import org.flagos.trace.journal.JournalVisitor;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.pipeline.ActivityBufferDecoder;
import org.flagos.trace.pipeline.DecodeStats;
import org.flagos.trace.pipeline.DeviceProperties;
import org.flagos.trace.pipeline.NameTable;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.vendors.Vendors;

/**
 * Re-runs the stages from a journal (live or of a replayed capture, finished or still being
 * written, whole or only a window of it) into a trace: the decoder is chosen by the buffers'
 * vendor id as {@link CaptureReplay} chooses it, ops and buffers are published in journal order,
 * and records are kept when they lie wholly inside the window.
 */
public final class JournalReplay {
    /**
     * What to export.
     *
     * @param devices  device properties overriding the journal's; empty: the journal's
     * @param metadata extra trace keys, added to the journal's
     */
    public record Request(Path journal, JournalWindow window, List<DeviceProperties> devices, Map<String, String> metadata,
                          int ringSize) {
        public static Request of(Path journal, JournalWindow window) {
            return new Request(journal, window, List.of(), Map.of(), CapturePipeline.DEFAULT_RING_SIZE);
        }
    }

    /** The result, and the window [lo, hi] applied (epoch ns). */
    public record Result(CaptureReplay.Result replay, long windowStartNs, long windowEndNs, JournalFacts facts) {
    }

    public static Result run(Request request, OutputStream out) throws InterruptedException {
        try (JournalReader reader = JournalReader.open(request.journal())) {
            JournalFacts facts = reader.scan();
            long[] window;
            try {
                window = request.window().resolve(facts);
            } catch (IllegalArgumentException e) {
                throw new CaptureFormatException(request.journal() + ": " + e.getMessage());
            }
            int vendor = facts.vendor() == -1 ? 1 : facts.vendor();
            Vendors.DecoderFactory factory = Vendors.decoderFor(vendor);
            if (factory == null) {
                throw new CaptureFormatException(request.journal() + ": buffers of " + Vendors.dumpVendorName(vendor)
                        + " but this build has no decoder for it");
            }
            List<DeviceProperties> devices = request.devices().isEmpty() ? facts.devices() : request.devices();
            Map<Long, String> names = facts.names();
            NameTable table = new NameTable();
            ActivityBufferDecoder decoder = factory.create(names::get, table, devices, facts.clock());
            Map<String, String> metadata = new java.util.LinkedHashMap<>(facts.metadata());
            metadata.putAll(request.metadata());
            TraceHeader header = new TraceHeader(facts.traceName(), devices, null, metadata, "flagtrace", -1);
            DecodeStats stats = new DecodeStats();
            boolean bounded = window[0] != Long.MIN_VALUE || window[1] != Long.MAX_VALUE;
            CaptureWindowFilter filter = bounded ? new CaptureWindowFilter(window[0], window[1]) : CaptureWindowFilter.unbounded();
            try (CapturePipeline pipeline = new CapturePipeline(table, decoder.apiNames(), decoder.stages(), filter, header, out,
                    stats, ProducerType.SINGLE, request.ringSize())) {
                Publisher publisher = new Publisher(pipeline, decoder, stats, vendor);
                String damage = reader.replay(publisher);
                if (publisher.otherVendor > 0) {
                    pipeline.accounting().note(publisher.otherVendor + " buffers of another vendor than "
                            + Vendors.dumpVendorName(vendor) + " skipped");
                }
                if (facts.firstSeq() > 0) {
                    pipeline.accounting().note(request.journal() + ": the first " + facts.firstSeq()
                            + " documents were deleted by the flight recorder's retention; the trace starts with what it kept");
                }
                if (damage != null) {
                    pipeline.accounting().note(damage + "; every event before the damage was kept");
                }
                OpSummary summary = pipeline.finish();
                CaptureReplay.Result result = new CaptureReplay.Result(summary, pipeline.accounting(), pipeline.events(),
                        pipeline.traceEvents(), damage);
                return new Result(result, window[0], window[1], facts);
            }
        }
    }

    /** Publishes what the reader hands over; one instance per replay (no capturing lambda per record). */
    private static final class Publisher implements JournalVisitor {
        private final CapturePipeline pipeline;
        private final ActivityBufferDecoder decoder;
        private final DecodeStats stats;
        private final int vendor;
        long otherVendor;

        Publisher(CapturePipeline pipeline, ActivityBufferDecoder decoder, DecodeStats stats, int vendor) {
            this.pipeline = pipeline;
            this.decoder = decoder;
            this.stats = stats;
            this.vendor = vendor;
        }

        @Override
        public void op(HostOp op) {
            pipeline.publish(op);
        }

        @Override
        public void buffer(int bufferVendor, int layout, ByteBuffer bytes) {
            if (bufferVendor != vendor) {
                otherVendor++;
                return;
            }
            decoder.decode(bytes, pipeline, stats);
        }
    }

    private JournalReplay() {
    }
}
