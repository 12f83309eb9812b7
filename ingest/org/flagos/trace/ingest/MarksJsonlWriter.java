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
import org.flagos.trace.model.JsonText;

/**
 * Writes a {@code .marks.jsonl} file ({@link CaptureSidecars#MARKS}) as marks arrive: one line per mark,
 * {@code {"name":..,"domain":..,"pid":..,"thread":..,"ts":..}} ({@code domain} only when the mark has one).
 * Appears under its name only when closed.
 */
public final class MarksJsonlWriter implements AutoCloseable {
    private static final JsonFactory JSON = new JsonFactory();

    private final Path target;
    private final Path partial;
    private final Writer out;

    public MarksJsonlWriter(Path target) throws IOException {
        this.target = target.toAbsolutePath();
        this.partial = this.target.resolveSibling(this.target.getFileName() + ".partial");
        this.out = new BufferedWriter(Files.newBufferedWriter(partial, StandardCharsets.UTF_8));
    }

    /** Appends one mark's line. */
    public synchronized void mark(HostMark mark) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            JsonText.writeStringField(g, "name", mark.name());
            if (mark.domain() != null) {
                JsonText.writeStringField(g, "domain", mark.domain());
            }
            g.writeNumberField("pid", mark.pid());
            g.writeNumberField("thread", mark.thread());
            g.writeNumberField("ts", mark.tsNs());
            g.writeEndObject();
        }
        out.write('\n');
    }

    /** Renames the file into place. */
    public synchronized void finish() throws IOException {
        out.close();
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Abandons the file: the partial one is deleted. */
    @Override
    public synchronized void close() throws IOException {
        out.close();
        Files.deleteIfExists(partial);
    }
}
