package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes an {@code .ops.jsonl} file as a live session runs: the window start, one line per op as it
 * ends (so a parent follows its children), the window end. Appears under its name only when closed.
 */
public final class OpsJsonlWriter implements AutoCloseable {
    private static final JsonFactory JSON = new JsonFactory();

    private final Path target;
    private final Path partial;
    private final Writer out;

    public OpsJsonlWriter(Path target, long windowStartNs) throws IOException {
        this(target);
        windowStart(windowStartNs);
    }

    /** A writer whose window start is written later ({@link #windowStart}), before any op: a window that opens after the file. */
    public OpsJsonlWriter(Path target) throws IOException {
        this.target = target.toAbsolutePath();
        this.partial = this.target.resolveSibling(this.target.getFileName() + ".partial");
        this.out = new BufferedWriter(Files.newBufferedWriter(partial, StandardCharsets.UTF_8));
    }

    /** Writes the window start line. */
    public synchronized void windowStart(long windowStartNs) throws IOException {
        out.write("{\"window_start\":" + windowStartNs + "}\n");
    }

    /** Appends one op line; thread-safe. */
    public synchronized void op(HostOp op) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            org.flagos.trace.model.JsonText.writeStringField(g, "name", op.name());
            g.writeNumberField("external_id", op.externalId().value());
            if (op.hasThread()) {
                g.writeNumberField("thread", op.thread());
            }
            if (op.threadName() != null) {
                org.flagos.trace.model.JsonText.writeStringField(g, "thread_name", op.threadName());
            }
            g.writeNumberField("start", op.startNs());
            g.writeNumberField("end", op.endNs());
            if (op.args() != null) {
                g.writeFieldName("args");
                g.writeRawValue(op.args().toJson());
            }
            if (op.stack() != null) {
                g.writeFieldName("stack");
                g.writeRawValue(op.stack().framesJson());
            }
            if (op.annotation()) { // written only when true: an op's line keeps the bytes it had before the field
                g.writeBooleanField("annotation", true);
            }
            g.writeEndObject();
        }
        out.write('\n');
    }

    /** Writes the window end and renames the file into place. */
    public synchronized void close(long windowEndNs) throws IOException {
        out.write("{\"window_end\":" + windowEndNs + "}\n");
        out.close();
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
        Files.deleteIfExists(partial);
    }

    /** Beside a capture: {@code NAME.fltrbuf} to {@code NAME.ops.jsonl}. */
    public static Path besides(Path capture) {
        return CaptureSidecars.OPS.besides(capture);
    }
}
