package org.flagos.trace.capture;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.encoders.ChromeJsonSink;
import org.flagos.trace.encoders.ParquetSink;
import org.flagos.trace.encoders.PerfettoProtoSink;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.stages.TraceSink;

/**
 * The format of a trace file, chosen by its name: {@code .pftrace} (or {@code .pftrace.gz}) is
 * Perfetto's protobuf trace, {@code .parquet} the events table (docs/tables.md), anything else
 * torch-compatible JSON ({@link #forPath}, the one suffix table). The format is a value that travels
 * with what asks for the trace ({@code CaptureReplay.Request.format}, {@code JournalReplay.Request.format},
 * {@code SessionOptions.traceFormat()}) to {@link CapturePipeline}, which asks it for its sink; the
 * output stream only carries bytes (and, from {@link AtomicOutput}, where scratch files go).
 */
public enum TraceFormat {
    /** torch-compatible Chrome trace JSON ({@link ChromeJsonSink}). */
    JSON(".json", ".json.gz") {
        @Override
        public TraceSink sink(OutputStream out, NameTable names, TraceHeader header, Function<EventKind, String> apiCategory) {
            return new ChromeJsonSink(out, names, header, apiCategory);
        }
    },
    /** Perfetto's TracePacket protobuf stream ({@link PerfettoProtoSink}). */
    PERFETTO(".pftrace", ".pftrace.gz") {
        @Override
        public TraceSink sink(OutputStream out, NameTable names, TraceHeader header, Function<EventKind, String> apiCategory) {
            return new PerfettoProtoSink(out, names, header, apiCategory);
        }
    },
    /**
     * The {@code events} table as one Parquet file ({@link ParquetSink}, docs/tables.md), written straight
     * to the stream; the sink's compressor is freed when the stream closes, whether or not the walk finished.
     */
    PARQUET(".parquet") {
        @Override
        public TraceSink sink(OutputStream out, NameTable names, TraceHeader header, Function<EventKind, String> apiCategory) {
            ParquetSink sink = new ParquetSink(out, names, header, apiCategory);
            if (out instanceof ScratchOutput holder) {
                holder.onClose = sink::discard;
            }
            return sink;
        }
    };

    private final List<String> suffixes;

    TraceFormat(String... suffixes) {
        this.suffixes = List.of(suffixes);
    }

    /** The endings a file of this format is named with: the one suffix table of trace files. */
    public List<String> suffixes() {
        return suffixes;
    }

    /**
     * The format a file named {@code file} holds by its ending, or empty when no format's suffix ends
     * it (a suffix alone, {@code .json}, is no name). The one place a file name picks a format.
     */
    public static Optional<TraceFormat> forPath(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString();
        for (TraceFormat f : values()) {
            for (String suffix : f.suffixes) {
                if (name.endsWith(suffix) && name.length() > suffix.length()) {
                    return Optional.of(f);
                }
            }
        }
        return Optional.empty();
    }

    /** Every format's suffixes in words: ".json, .json.gz, ... or .parquet". */
    public static String suffixWords(List<TraceFormat> formats) {
        List<String> all = new ArrayList<>();
        for (TraceFormat f : formats) {
            all.addAll(f.suffixes);
        }
        return all.size() == 1 ? all.get(0) : String.join(", ", all.subList(0, all.size() - 1)) + " or " + all.get(all.size() - 1);
    }

    /**
     * The encoder of this format over {@code out}, for the trace walk.
     *
     * @param apiCategory the category of API records per kind, as the vendor names it
     */
    public abstract TraceSink sink(OutputStream out, NameTable names, TraceHeader header,
                                   Function<EventKind, String> apiCategory);

    /** The format a file of this name holds. */
    public static TraceFormat of(Path file) {
        return forPath(file).orElse(JSON); // a device or FIFO of any name gets JSON
    }

    /**
     * The stream {@link AtomicOutput} opens: plain bytes to the file, plus a cleanup a sink asks to run
     * when the stream closes. It says nothing of the format: that comes with the request.
     */
    static final class ScratchOutput extends FilterOutputStream {
        /** Run once when the stream closes (a sink's cleanup); null for none. */
        Runnable onClose;

        ScratchOutput(OutputStream out) {
            super(out);
        }

        @Override
        public void close() throws IOException {
            Runnable hook = onClose;
            onClose = null;
            try {
                if (hook != null) {
                    hook.run();
                }
            } finally {
                super.close();
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }
    }
}
