package org.flagos.trace.capture;

import com.lmax.disruptor.dsl.ProducerType;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.journal.JournalFacts;
import org.flagos.trace.journal.JournalMarkCursor;
import org.flagos.trace.journal.JournalOpCursor;
import org.flagos.trace.journal.JournalReader;
import org.flagos.trace.journal.JournalVisitor;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.vendors.Vendors;

/**
 * Re-runs the stages from a journal (live or of a replayed capture, finished or still being
 * written, whole or only a window of it) into a trace: the decoder is chosen by the buffers'
 * vendor id as {@link CaptureReplay} chooses it, the buffers are published in journal order with
 * the ops interleaved by time exactly as a capture's replay interleaves its ops file
 * ({@link HostOpMerge}; the ops are read by a second tailer), and records are kept when they lie
 * wholly inside the window. Whatever the trace lacks is a warning: damage, op documents skipped,
 * a journal without its end (an interrupted capture).
 */
public final class JournalReplay {
    /**
     * What to export.
     *
     * @param devices  device properties overriding the journal's; empty: the journal's
     * @param metadata extra trace keys, added to the journal's
     * @param gpuAnnotations whether each op's span per stream is drawn (torch's {@code gpu_user_annotation})
     * @param format   the trace's format (for a file, {@link TraceFormat#of(Path)} of its name)
     */
    public record Request(Path journal, JournalWindow window, List<DeviceProperties> devices, Map<String, String> metadata,
                          int ringSize, boolean gpuAnnotations, TraceFormat format) {
        public Request {
            java.util.Objects.requireNonNull(format, "format");
        }

        /** A request with GPU annotations drawn, writing JSON. */
        public Request(Path journal, JournalWindow window, List<DeviceProperties> devices, Map<String, String> metadata,
                       int ringSize) {
            this(journal, window, devices, metadata, ringSize, true, TraceFormat.JSON);
        }

        /** This request, drawing no GPU annotation spans. */
        public Request withoutGpuAnnotations() {
            return new Request(journal, window, devices, metadata, ringSize, false, format);
        }

        /** This request, writing {@code format}. */
        public Request withFormat(TraceFormat format) {
            return new Request(journal, window, devices, metadata, ringSize, gpuAnnotations, format);
        }

        public static Request of(Path journal, JournalWindow window) {
            return new Request(journal, window, List.of(), Map.of(), CapturePipeline.DEFAULT_RING_SIZE);
        }
    }

    /**
     * The result, and the window [lo, hi] applied (epoch ns).
     *
     * @param warnings what the trace lacks of the journal, one line each (also in the trace's notes);
     *                 empty when it holds everything
     */
    public record Result(CaptureReplay.Result replay, long windowStartNs, long windowEndNs, JournalFacts facts,
                         List<String> warnings) {
        public Result {
            warnings = List.copyOf(warnings);
        }
    }

    /** A window that cannot be exported from this journal (it ends before it starts, or lies outside the journal). */
    public static final class WindowException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WindowException(String message) {
            super(message, null, false, false);
        }
    }

    public static Result run(Request request, OutputStream out) throws InterruptedException {
        try (JournalReader reader = JournalReader.open(request.journal())) {
            JournalFacts facts = reader.scan();
            long[] window;
            try {
                window = request.window().resolve(facts);
            } catch (IllegalArgumentException e) {
                throw new WindowException(request.journal() + ": " + e.getMessage());
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
            String processText = metadata.remove(org.flagos.trace.journal.JournalSession.PROCESS_KEY);
            org.flagos.trace.model.ProcessFacts process = processText == null ? null
                    : org.flagos.trace.ingest.ProcessFactsFile.parse(processText, request.journal().toString());
            if (process != null) {
                for (org.flagos.trace.model.ClockAnchor anchor : facts.anchors()) {
                    process = process.with(anchor);
                }
            }
            metadata.putAll(request.metadata());
            TraceHeader header = new TraceHeader(facts.traceName(), devices, null, metadata, "flagtrace", -1,
                    process == null ? null : process.identity());
            DecodeStats stats = new DecodeStats();
            boolean bounded = window[0] != Long.MIN_VALUE || window[1] != Long.MAX_VALUE;
            CaptureWindowFilter filter = bounded ? new CaptureWindowFilter(window[0], window[1]) : CaptureWindowFilter.unbounded();
            try (CapturePipeline pipeline = CapturePipeline.builder().names(table).apiNames(decoder.apiNames())
                    .vendorStages(decoder.stages()).window(filter).header(header).format(request.format()).out(out)
                    .decodeStats(stats).producers(ProducerType.SINGLE).ringSize(request.ringSize()).build();
                 JournalOpCursor ops = facts.ops() > 0 ? reader.ops() : null;
                 JournalMarkCursor markCursor = facts.marks() > 0 ? reader.marks() : null) {
                if (process != null) { // the start anchor from the session's metadata, the stop one from its own document
                    pipeline.accounting().clockAnchors(process.anchors());
                }
                if (!request.gpuAnnotations()) {
                    pipeline.withoutGpuAnnotations();
                }
                HostOpMerge merge = ops == null ? null : new HostOpMerge(pipeline, ops);
                if (merge != null) {
                    merge.publishFirstInWindow(window[0], window[1]);
                }
                RecordSink opSink = merge == null ? pipeline : merge;
                // Only a journal with marks has a mark merge, as a capture's replay does.
                HostMarkMerge marks = markCursor == null ? null : new HostMarkMerge(pipeline, opSink, markCursor);
                Publisher publisher = new Publisher(marks == null ? opSink : marks, decoder, stats, vendor);
                String damage = reader.buffers(publisher);
                if (merge != null) {
                    merge.publishRest();
                    if (damage == null) {
                        damage = ops.damage();
                    }
                }
                if (marks != null) {
                    marks.publishRest();
                    if (damage == null) {
                        damage = markCursor.damage();
                    }
                }
                List<String> warnings = new ArrayList<>();
                if (publisher.otherVendor > 0) {
                    pipeline.accounting().note(publisher.otherVendor + " buffers of another vendor than "
                            + Vendors.dumpVendorName(vendor) + " skipped");
                }
                if (facts.firstSeq() > 0) {
                    pipeline.accounting().note(request.journal() + ": the first " + facts.firstSeq()
                            + " documents were deleted by the flight recorder's retention; the trace starts with what it kept");
                }
                if (damage != null) {
                    warnings.add(damage + "; the trace holds every event before the damage");
                }
                if (facts.invalidOps() > 0) {
                    warnings.add(request.journal() + ": " + facts.invalidOps() + " op document" + (facts.invalidOps() == 1 ? " was" : "s were")
                            + " skipped as damaged (first: " + facts.firstInvalidOp() + "); the trace holds every other event");
                }
                if (!facts.ended()) {
                    warnings.add(request.journal() + ": the journal has no end (no stop document): the capture was interrupted,"
                            + " its recorder killed or still writing; the trace holds what was journaled until then");
                }
                for (String warning : warnings) {
                    pipeline.accounting().note(warning);
                }
                OpSummary summary = pipeline.finish();
                CaptureReplay.Result result = new CaptureReplay.Result(summary, pipeline.accounting(), pipeline.events(),
                        pipeline.traceEvents(), damage);
                return new Result(result, window[0], window[1], facts, warnings);
            }
        }
    }

    /** Publishes what the reader hands over; one instance per replay (no capturing lambda per record). */
    private static final class Publisher implements JournalVisitor {
        private final RecordSink sink;
        private final ActivityBufferDecoder decoder;
        private final DecodeStats stats;
        private final int vendor;
        long otherVendor;

        Publisher(RecordSink sink, ActivityBufferDecoder decoder, DecodeStats stats, int vendor) {
            this.sink = sink;
            this.decoder = decoder;
            this.stats = stats;
            this.vendor = vendor;
        }

        @Override
        public void op(HostOp op) {
            throw new IllegalStateException("the ops come from the reader's op cursor");
        }

        @Override
        public void buffer(int bufferVendor, int layout, ByteBuffer bytes) {
            if (bufferVendor != vendor) {
                otherVendor++;
                return;
            }
            decoder.decode(bytes, sink, stats);
        }
    }

    private JournalReplay() {
    }
}
