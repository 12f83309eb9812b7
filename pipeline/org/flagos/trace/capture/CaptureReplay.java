package org.flagos.trace.capture;

import com.lmax.disruptor.dsl.ProducerType;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongConsumer;
import java.util.function.UnaryOperator;
import org.flagos.trace.ingest.DeviceClockFile;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.FrameCursor;
import org.flagos.trace.ingest.HostMarkCursor;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.ingest.HostOpSource;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.MarksJsonlReader;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.ingest.ProcessFactsFile;
import org.flagos.trace.ingest.WindowEndFile;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.ProcessFacts;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.vendors.Vendors;

/**
 * Replays a saved capture ({@code .fltrbuf} vendor buffers, optionally with host ops and a kernel
 * name table) through the pipeline into a trace: every buffer in file order (streamed from the file,
 * one frame in memory at a time) with the host ops interleaved by time ({@link HostOpMerge}, the ops
 * file streamed too), then the end of the capture.
 */
public final class CaptureReplay {
    /** One frame as read from the file: its vendor and its payload view. */
    public record Frame(int vendor, ByteBuffer payload) {
    }

    /**
     * What to replay: made by {@link #of} (a capture in memory) or {@link CaptureReplay#request} (a
     * capture file with what lies beside it), changed through a {@link Builder}, where each field has its default.
     *
     * @param capture    the capture's bytes in memory, or null when {@code file} is set
     * @param source     the capture's name in messages
     * @param ops        the host ops; null: none
     * @param traceName  the trace's name (its {@code traceName} key)
     * @param frameOrder reorders the frames before decoding (tests use it to show the result does
     *                   not depend on arrival order; the frames are then held in memory);
     *                   {@link #IN_FILE_ORDER} streams them
     * @param ringSize   the pipeline's ring slots (a power of two)
     * @param clock      maps the device clock to epoch ns; {@link DeviceClockMapping#IDENTITY} when records are in epoch ns
     * @param file       the capture file, streamed frame by frame (any size, {@code .gz} inflated as
     *                   it is read); null when {@code capture} is given
     * @param process    who captured and the clock anchors (the {@code .process.json} beside a dump),
     *                   written into the trace as the live session wrote them; null: none
     * @param gpuAnnotations whether each op's span per stream is drawn (torch's {@code gpu_user_annotation})
     * @param format     the trace's format (for a file, {@link TraceFormat#of(Path)} of its name)
     * @param marks      the marks file ({@code .marks.jsonl}, drawn as instants on their threads); null: none
     * @param endFacts   the trace's top-level fields known only at the capture's end ({@code .window-end.json}: how a
     *                   window of {@code flagtrace run} ended), written after its events
     */
    public record Request(ByteBuffer capture, String source, HostOpSource ops, KernelNames kernelNames,
                          List<DeviceProperties> devices, Map<String, String> metadata, String traceName,
                          UnaryOperator<List<Frame>> frameOrder, int ringSize, DeviceClockMapping clock, Path file,
                          ProcessFacts process, boolean gpuAnnotations, TraceFormat format, Path marks,
                          Map<String, String> endFacts) {
        public Request {
            if ((capture == null) == (file == null)) {
                throw new IllegalArgumentException("a replay reads a capture in memory or a file, exactly one of them");
            }
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(kernelNames, "kernelNames");
            Objects.requireNonNull(devices, "devices");
            Objects.requireNonNull(metadata, "metadata");
            Objects.requireNonNull(traceName, "traceName");
            Objects.requireNonNull(frameOrder, "frameOrder");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(endFacts, "endFacts");
        }

        /**
         * A replay of the capture in memory {@code capture} named {@code source}, every other field at
         * its default ({@link Builder}).
         */
        public static Builder of(ByteBuffer capture, String source) {
            return new Builder().capture(capture).source(source).traceName(source);
        }

        /** A builder holding this request, to change some of it. */
        public Builder toBuilder() {
            return new Builder().capture(capture).source(source).ops(ops).kernelNames(kernelNames).devices(devices)
                    .metadata(metadata).traceName(traceName).frameOrder(frameOrder).ringSize(ringSize).clock(clock)
                    .file(file).process(process).gpuAnnotations(gpuAnnotations).format(format).marks(marks).endFacts(endFacts);
        }

        /** This request, the trace saying who captured it and when ({@code null}: nobody). */
        public Request withProcess(ProcessFacts facts) {
            return toBuilder().process(facts).build();
        }

        /** This request, drawing no GPU annotation spans. */
        public Request withoutGpuAnnotations() {
            return toBuilder().gpuAnnotations(false).build();
        }

        /** This request, writing {@code format}. */
        public Request withFormat(TraceFormat format) {
            return toBuilder().format(format).build();
        }

        /**
         * The capture's bytes: for a request of a file, the file mapped now (at most 2 GiB), for
         * callers that build another request from this one; the replay itself streams the file.
         */
        @Override
        public ByteBuffer capture() {
            return capture == null && file != null ? CaptureBytes.load(file) : capture;
        }

        /**
         * A request made one field at a time: each field and its default here, the checks in
         * {@link Request}'s constructor when {@link #build()} makes it. Defaults: no host ops, no
         * kernel name table, the decoder's devices, no metadata, the trace named as the source, frames
         * in file order, the default ring, device clocks in epoch ns, no process facts, GPU annotations drawn, JSON.
         */
        public static final class Builder {
            private ByteBuffer capture;
            private String source;
            private HostOpSource ops;
            private KernelNames kernelNames = KernelNames.NONE;
            private List<DeviceProperties> devices = List.of();
            private Map<String, String> metadata = Map.of();
            private String traceName;
            private UnaryOperator<List<Frame>> frameOrder = IN_FILE_ORDER;
            private int ringSize = CapturePipeline.DEFAULT_RING_SIZE;
            private DeviceClockMapping clock = DeviceClockMapping.IDENTITY;
            private Path file;
            private ProcessFacts process;
            private boolean gpuAnnotations = true;
            private TraceFormat format = TraceFormat.JSON;
            private Path marks;
            private Map<String, String> endFacts = Map.of();

            Builder() {
            }

            public Builder capture(ByteBuffer capture) {
                this.capture = capture;
                return this;
            }

            public Builder source(String source) {
                this.source = source;
                return this;
            }

            public Builder ops(HostOpSource ops) {
                this.ops = ops;
                return this;
            }

            public Builder kernelNames(KernelNames kernelNames) {
                this.kernelNames = kernelNames;
                return this;
            }

            public Builder devices(List<DeviceProperties> devices) {
                this.devices = devices;
                return this;
            }

            public Builder metadata(Map<String, String> metadata) {
                this.metadata = metadata;
                return this;
            }

            public Builder traceName(String traceName) {
                this.traceName = traceName;
                return this;
            }

            public Builder frameOrder(UnaryOperator<List<Frame>> frameOrder) {
                this.frameOrder = frameOrder;
                return this;
            }

            public Builder ringSize(int ringSize) {
                this.ringSize = ringSize;
                return this;
            }

            public Builder clock(DeviceClockMapping clock) {
                this.clock = clock;
                return this;
            }

            /** Streams the capture from {@code file} rather than from bytes in memory. */
            public Builder file(Path file) {
                this.file = file;
                return this;
            }

            public Builder process(ProcessFacts process) {
                this.process = process;
                return this;
            }

            public Builder gpuAnnotations(boolean gpuAnnotations) {
                this.gpuAnnotations = gpuAnnotations;
                return this;
            }

            /** The trace's format: {@link TraceFormat#of(Path)} of the output's name, for a file. */
            public Builder format(TraceFormat format) {
                this.format = format;
                return this;
            }

            /** The marks file to draw ({@code .marks.jsonl}); null: none. */
            public Builder marks(Path marks) {
                this.marks = marks;
                return this;
            }

            /** The fields written after the trace's events; none by default. */
            public Builder endFacts(Map<String, String> endFacts) {
                this.endFacts = endFacts;
                return this;
            }

            /** The request, checked. */
            public Request build() {
                return new Request(capture, source, ops, kernelNames, devices, metadata, traceName, frameOrder, ringSize, clock,
                        file, process, gpuAnnotations, format, marks, endFacts);
            }
        }
    }

    /** Frames as the file holds them, streamed: the identity that {@link Request#frameOrder} recognizes. */
    public static final UnaryOperator<List<Frame>> IN_FILE_ORDER = UnaryOperator.identity();

    /**
     * What came out: the summary, every count, the events written (records, flow halves, host ops),
     * every element of the file's {@code traceEvents} (those and the row labels and span markers),
     * and why reading stopped early.
     */
    public record Result(OpSummary summary, CaptureAccounting accounting, long events, long traceEvents, String truncation) {
        public boolean truncated() {
            return truncation != null;
        }
    }

    /**
     * Builds a request from files; {@code ops} may be null (no host ops: a caller that wants the ops
     * saved beside the capture passes {@code CaptureSidecars.OPS.found(capture)}). The kernel name
     * table, the device clock, the marks, how a run's window ended, and device properties when none are given, are looked for beside the
     * capture ({@link CaptureSidecars}). The capture is streamed when replayed; its magic is checked
     * here, so a wrong file fails before anything is written.
     */
    public static Request request(Path capture, Path ops, Path names, List<DeviceProperties> devices,
                                  Map<String, String> metadata) {
        FltrbufFrames.open(capture).close();
        HostOpSource hostOps = ops == null ? null : OpsJsonlReader.scan(ops); // checked whole now, streamed when replayed
        Path devicesBeside = CaptureSidecars.DEVICES.found(capture);
        if (devices.isEmpty() && devicesBeside != null) {
            devices = DevicePropertiesFile.read(devicesBeside); // saved by the live session that dumped it
        }
        Path namesPath = names != null ? names : CaptureSidecars.NAMES.found(capture);
        KernelNames kernelNames = namesPath != null ? KernelNameFile.read(namesPath) : KernelNames.NONE;
        Path clockBeside = CaptureSidecars.CLOCK.found(capture);
        DeviceClockMapping clock = clockBeside != null ? DeviceClockFile.read(clockBeside) : DeviceClockMapping.IDENTITY;
        Path processBeside = CaptureSidecars.PROCESS.found(capture);
        ProcessFacts process = processBeside != null ? ProcessFactsFile.read(processBeside) : null;
        Path endBeside = CaptureSidecars.WINDOW_END.found(capture);
        Map<String, String> endFacts = endBeside != null ? WindowEndFile.read(endBeside) : Map.of();
        return new Request.Builder().file(capture).source(capture.toString()).ops(hostOps).kernelNames(kernelNames)
                .devices(devices).metadata(metadata).traceName(capture.getFileName().toString()).clock(clock).process(process)
                .marks(CaptureSidecars.MARKS.found(capture)).endFacts(endFacts).build();
    }

    public static Result run(Request request, OutputStream out) throws InterruptedException {
        return run(request, out, null);
    }

    /**
     * As {@link #run(Request, OutputStream)}, telling {@code progress} the capture bytes read after
     * each frame (uncompressed bytes for a {@code .gz}); null for none.
     */
    public static Result run(Request request, OutputStream out, LongConsumer progress) throws InterruptedException {
        try (FltrbufFrames cursor = request.file() != null ? FltrbufFrames.open(request.file())
                : new FltrbufFrames(request.capture(), request.source())) {
            if (request.frameOrder() == IN_FILE_ORDER) {
                return run(request, cursor, null, null, null, out, progress);
            }
            List<Frame> frames = new ArrayList<>();
            while (cursor.next()) {
                ByteBuffer payload = cursor.payload();
                if (request.file() != null) { // streamed payloads are reused: keep a copy
                    payload = ByteBuffer.allocate(payload.remaining()).order(ByteOrder.LITTLE_ENDIAN).put(payload.duplicate()).flip();
                }
                frames.add(new Frame(cursor.vendor(), payload));
            }
            return run(request, cursor, request.frameOrder().apply(frames), null, null, out, progress);
        }
    }

    /** What a capture still arriving learns only at its end, told just before the pipeline finishes. */
    interface Ending {
        /** Sets what the trace's end needs (the window's end, anchors, how it ended) once every frame has been decoded. */
        void beforeFinish(CapturePipeline pipeline, CaptureWindowFilter window);
    }

    /**
     * Replays the frames of {@code cursor}, or {@code reordered} when given; the marks of {@code arrivingMarks}, or of the
     * request's marks file; {@code ending}, when given, is told before the pipeline finishes (a capture still arriving).
     */
    static Result run(Request request, FrameCursor cursor, List<Frame> reordered, HostMarkCursor arrivingMarks, Ending ending,
                      OutputStream out, LongConsumer progress) throws InterruptedException {
        SkippedFrames skipped = new SkippedFrames();
        if (reordered != null) {
            reordered = new ArrayList<>(reordered);
            reordered.removeIf(frame -> {
                if (!frame.payload().hasRemaining()) {
                    skipped.empty();
                    return true;
                }
                return false;
            });
        }
        boolean any = reordered != null ? !reordered.isEmpty() : cursor.next();
        while (reordered == null && any && !cursor.payload().hasRemaining()) { // the vendor is the first frame's with a payload
            skipped.empty();
            any = cursor.next();
        }
        int vendor = !any ? 1 : reordered != null ? reordered.get(0).vendor() : cursor.vendor();
        Vendors.DecoderFactory factory = Vendors.decoderFor(vendor);
        if (factory == null) {
            throw new CaptureFormatException(request.source() + ": frames of " + Vendors.dumpVendorName(vendor)
                    + " but this build has no decoder for it");
        }
        NameTable names = new NameTable();
        ActivityBufferDecoder decoder = factory.create(request.kernelNames(), names, request.devices(), request.clock());
        HostOpSource ops = request.ops();
        CaptureWindowFilter window = ops == null ? CaptureWindowFilter.unbounded()
                : new CaptureWindowFilter(ops.windowStartNs(), ops.windowEndNs());
        ProcessFacts process = request.process();
        TraceHeader header = new TraceHeader(request.traceName(), request.devices(), null, request.metadata(), "flagtrace", -1,
                process == null ? null : process.identity());
        DecodeStats stats = new DecodeStats();
        try (CapturePipeline pipeline = CapturePipeline.builder().names(names).apiNames(decoder.apiNames())
                .vendorStages(decoder.stages()).window(window).header(header).format(request.format()).out(out)
                .decodeStats(stats).producers(ProducerType.SINGLE).ringSize(request.ringSize()).build()) {
            if (process != null) {
                pipeline.accounting().clockAnchors(process.anchors());
            }
            pipeline.accounting().endFacts(request.endFacts());
            if (!request.gpuAnnotations()) {
                pipeline.withoutGpuAnnotations();
            }
            if (ops == null) {
                pipeline.expectNoHostOps();
            } else {
                for (String warning : ops.warnings()) {
                    pipeline.accounting().note(warning);
                }
            }
            try (HostOpCursor opCursor = ops == null ? null : ops.cursor();
                 HostMarkCursor markReader = arrivingMarks != null ? arrivingMarks
                         : request.marks() == null ? null : MarksJsonlReader.open(request.marks())) {
                HostOpMerge merge = opCursor == null ? null : new HostOpMerge(pipeline, opCursor);
                if (merge != null) {
                    merge.publishFirstInWindow(ops.windowStartNs(), ops.windowEndNs());
                }
                RecordSink opSink = merge == null ? pipeline : merge;
                // Only a capture with marks has a mark merge: the records of every other replay go as they always went.
                HostMarkMerge marks = markReader == null ? null : new HostMarkMerge(pipeline, opSink, markReader);
                RecordSink sink = marks == null ? opSink : marks;
                if (reordered != null) {
                    for (Frame frame : reordered) {
                        decode(frame.vendor(), frame.payload(), vendor, decoder, stats, skipped, sink);
                    }
                } else if (any) {
                    do {
                        decode(cursor.vendor(), cursor.payload(), vendor, decoder, stats, skipped, sink);
                        if (progress != null) {
                            progress.accept(cursor.bytesRead());
                        }
                    } while (cursor.next());
                }
                if (merge != null) {
                    merge.publishRest();
                }
                if (marks != null) {
                    marks.publishRest();
                }
            }
            skipped.noteInto(pipeline.accounting(), request.source(), vendor);
            String truncation = cursor.truncation();
            if (truncation != null) {
                pipeline.accounting().note(request.source() + ": " + truncation + "; every whole record before the cut was kept");
            }
            if (!any) {
                pipeline.accounting().note(request.source() + ": the capture holds no activity buffer (nothing after its magic"
                        + " but empty frames, if any)");
            }
            if (ending != null) {
                ending.beforeFinish(pipeline, window);
            }
            OpSummary summary = pipeline.finish();
            return new Result(summary, pipeline.accounting(), pipeline.events(), pipeline.traceEvents(), truncation);
        }
    }

    private static void decode(int frameVendor, ByteBuffer payload, int vendor, ActivityBufferDecoder decoder,
                               DecodeStats stats, SkippedFrames skipped, RecordSink sink) {
        if (!payload.hasRemaining()) {
            skipped.empty();
            return;
        }
        if (frameVendor != vendor) {
            skipped.foreign(frameVendor, payload.remaining());
            return;
        }
        decoder.decode(payload, sink, stats);
    }

    private CaptureReplay() {
    }
}
