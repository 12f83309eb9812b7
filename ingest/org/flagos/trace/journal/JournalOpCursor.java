package org.flagos.trace.journal;

import java.nio.file.Path;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.ValueIn;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;

/**
 * A journal's valid ops, one at a time, in journal order (the order they closed in), read by a
 * tailer of their own up to the last document the reader's scan found good: a replay interleaves
 * them with the records by time while another tailer reads the buffers. Op documents the scan
 * counted as invalid are skipped. Holds one op.
 */
public final class JournalOpCursor implements HostOpCursor {
    private final Path dir;
    private final ExcerptTailer tailer;
    private final long lastIndex;
    private final JournalDocuments.Op doc = new JournalDocuments.Op();
    private final StringBuilder event = new StringBuilder();
    private boolean done;
    private String damage;

    JournalOpCursor(Path dir, ExcerptTailer tailer, long lastIndex) {
        this.dir = dir;
        this.tailer = tailer;
        this.lastIndex = lastIndex;
        this.done = lastIndex == Long.MIN_VALUE;
    }

    @Override
    public HostOp next() {
        while (!done) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent() || dc.index() > lastIndex) {
                    done = true;
                    return null;
                }
                done = dc.index() == lastIndex; // never ask Chronicle for a document past the scanned ones
                ValueIn in = dc.wire().readEventName(event);
                if (JournalSchema.OP.contentEquals(event)) {
                    JournalReader.read(in, doc);
                    if (doc.invalid() == null) {
                        return doc.toHostOp();
                    }
                }
            } catch (RuntimeException | InternalError e) { // the scan read these documents whole: a file changed since
                done = true;
                damage = dir + ": an op document after the scan cannot be read (" + JournalReader.describe(e) + ")";
            }
        }
        return null;
    }

    /** Why the ops ended early (a file changed after the scan), or null. */
    public String damage() {
        return damage;
    }

    @Override
    public void close() {
        done = true;
    }
}
