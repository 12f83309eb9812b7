package org.flagos.trace.capture;

import com.lmax.disruptor.dsl.ProducerType;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.DeviceClockFile;
import org.flagos.trace.pipeline.DeviceClockMapping;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.DevicePropertiesFile;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.pipeline.ActivityBufferDecoder;
import org.flagos.trace.pipeline.DecodeStats;
import org.flagos.trace.pipeline.DeviceProperties;
import org.flagos.trace.pipeline.KernelNames;
import org.flagos.trace.pipeline.NameTable;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.vendors.Vendors;

/**
 * Replays a saved capture ({@code .fltrbuf} vendor buffers, optionally with host ops and a kernel
 * name table) through the pipeline into a trace: host ops first, then every buffer in file order,
 * then the end of the capture.
 */
public final class CaptureReplay {
    /** One frame as read from the file: its vendor and its payload view. */
    public record Frame(int vendor, ByteBuffer payload) {
    }

    /**
     * What to replay.
     *
     * @param frameOrder reorders the frames before decoding (tests use it to show the result does
     *                   not depend on arrival order); identity in normal use
     */
    public record Request(ByteBuffer capture, String source, HostOps ops, KernelNames kernelNames,
                          List<DeviceProperties> devices, Map<String, String> metadata, String traceName,
                          UnaryOperator<List<Frame>> frameOrder, int ringSize, DeviceClockMapping clock) {
        /** A request for a capture whose records are in epoch ns. */
        public Request(ByteBuffer capture, String source, HostOps ops, KernelNames kernelNames,
                       List<DeviceProperties> devices, Map<String, String> metadata, String traceName,
                       UnaryOperator<List<Frame>> frameOrder, int ringSize) {
            this(capture, source, ops, kernelNames, devices, metadata, traceName, frameOrder, ringSize,
                    DeviceClockMapping.IDENTITY);
        }
    }

    /** What came out: the summary, every count, the events written, and why reading stopped early. */
    public record Result(OpSummary summary, CaptureAccounting accounting, long events, String truncation) {
        public boolean truncated() {
            return truncation != null;
        }
    }

    /**
     * Builds a request from files; {@code ops} may be null. The kernel name table, and device
     * properties when none are given, are looked for beside the capture.
     */
    public static Request request(Path capture, Path ops, Path names, List<DeviceProperties> devices,
                                  Map<String, String> metadata) {
        ByteBuffer bytes = CaptureBytes.load(capture);
        HostOps hostOps = ops == null ? null : OpsJsonlReader.read(ops);
        Path devicesBeside = DevicePropertiesFile.besides(capture);
        if (devices.isEmpty() && Files.exists(devicesBeside)) {
            devices = DevicePropertiesFile.read(devicesBeside); // saved by the live session that dumped it
        }
        Path namesPath = names != null ? names : KernelNameFile.besides(capture);
        KernelNames kernelNames = names != null || Files.exists(namesPath) ? KernelNameFile.read(namesPath) : KernelNames.NONE;
        Path clockBeside = DeviceClockFile.besides(capture);
        DeviceClockMapping clock = Files.exists(clockBeside) ? DeviceClockFile.read(clockBeside) : DeviceClockMapping.IDENTITY;
        return new Request(bytes, capture.toString(), hostOps, kernelNames, devices, metadata,
                capture.getFileName().toString(), UnaryOperator.identity(), CapturePipeline.DEFAULT_RING_SIZE, clock);
    }

    public static Result run(Request request, OutputStream out) throws InterruptedException {
        FltrbufFrames cursor = new FltrbufFrames(request.capture(), request.source());
        List<Frame> frames = new ArrayList<>();
        while (cursor.next()) {
            frames.add(new Frame(cursor.vendor(), cursor.payload()));
        }
        frames = request.frameOrder().apply(frames);

        int vendor = frames.isEmpty() ? 1 : frames.get(0).vendor();
        Vendors.DecoderFactory factory = Vendors.decoderFor(vendor);
        if (factory == null) {
            throw new CaptureFormatException(request.source() + ": frames of " + Vendors.dumpVendorName(vendor)
                    + " but this build has no decoder for it");
        }
        NameTable names = new NameTable();
        ActivityBufferDecoder decoder = factory.create(request.kernelNames(), names, request.devices(), request.clock());
        HostOps ops = request.ops();
        CaptureWindowFilter window = ops == null ? CaptureWindowFilter.unbounded()
                : new CaptureWindowFilter(ops.windowStartNs(), ops.windowEndNs());
        TraceHeader header = new TraceHeader(request.traceName(), request.devices(), null, request.metadata(), "flagtrace", -1);
        DecodeStats stats = new DecodeStats();
        try (CapturePipeline pipeline = new CapturePipeline(names, decoder.apiNames(), decoder.stages(), window, header, out,
                stats, ProducerType.SINGLE, request.ringSize())) {
            return replay(request, frames, vendor, decoder, stats, ops, pipeline, cursor.truncation());
        }
    }

    private static Result replay(Request request, List<Frame> frames, int vendor, ActivityBufferDecoder decoder,
                                 DecodeStats stats, HostOps ops, CapturePipeline pipeline, String truncation)
            throws InterruptedException {
        if (ops != null) {
            for (String warning : ops.warnings()) {
                pipeline.accounting().note(warning);
            }
            for (HostOp op : ops.ops()) {
                pipeline.publish(op);
            }
        }
        for (Frame frame : frames) {
            if (frame.vendor() != vendor) {
                pipeline.accounting().note("frame of " + Vendors.dumpVendorName(frame.vendor()) + " in a "
                        + Vendors.dumpVendorName(vendor) + " capture skipped (" + frame.payload().remaining() + " bytes)");
                continue;
            }
            decoder.decode(frame.payload(), pipeline, stats);
        }
        if (truncation != null) {
            pipeline.accounting().note(request.source() + ": " + truncation + "; every whole record before the cut was kept");
        }
        if (frames.isEmpty()) {
            pipeline.accounting().note(request.source() + ": the capture holds no activity buffer (nothing after its magic)");
        }
        OpSummary summary = pipeline.finish();
        return new Result(summary, pipeline.accounting(), pipeline.events(), truncation);
    }

    private CaptureReplay() {
    }
}
