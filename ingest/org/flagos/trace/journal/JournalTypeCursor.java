package org.flagos.trace.journal;

import java.nio.file.Path;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.ValueIn;

/**
 * A journal's valid documents of one type, one at a time, in journal order, read by a tailer of their own up to the
 * last document the reader's scan found good: a replay interleaves them with the records by time while another
 * tailer reads the buffers. Documents the subclass finds invalid are skipped. Holds one document.
 *
 * @param <T> what a document of the type becomes
 */
abstract class JournalTypeCursor<T> {
    private final Path dir;
    private final ExcerptTailer tailer;
    private final long lastIndex;
    private final String type;
    private final StringBuilder event = new StringBuilder();
    private boolean done;
    private String damage;

    JournalTypeCursor(Path dir, ExcerptTailer tailer, long lastIndex, String type) {
        this.dir = dir;
        this.tailer = tailer;
        this.lastIndex = lastIndex;
        this.type = type;
        this.done = lastIndex == Long.MIN_VALUE;
    }

    /** The document {@code in} holds, or null when it is not valid (skipped). */
    abstract T take(ValueIn in);

    /** The next valid document of the type, or null after the last. */
    final T nextOfType() {
        while (!done) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent() || dc.index() > lastIndex) {
                    done = true;
                    return null;
                }
                done = dc.index() == lastIndex; // never ask Chronicle for a document past the scanned ones
                ValueIn in = dc.wire().readEventName(event);
                if (type.contentEquals(event)) {
                    T taken = take(in);
                    if (taken != null) {
                        return taken;
                    }
                }
            } catch (RuntimeException | InternalError e) { // the scan read these documents whole: a file changed since
                done = true;
                damage = dir + ": " + (type.startsWith("o") ? "an " : "a ") + type + " document after the scan cannot be read ("
                        + JournalReader.describe(e) + ")";
            }
        }
        return null;
    }

    /** Why the documents ended early (a file changed after the scan), or null. */
    public String damage() {
        return damage;
    }

    /** Reads no further. */
    public void close() {
        done = true;
    }
}
