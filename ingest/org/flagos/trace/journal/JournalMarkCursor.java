package org.flagos.trace.journal;

import java.nio.file.Path;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.ValueIn;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostMarkCursor;

/**
 * A journal's marks, one at a time, in journal order (the marks file's), up to the last document the reader's scan
 * found good. Holds one mark.
 */
public final class JournalMarkCursor extends JournalTypeCursor<HostMark> implements HostMarkCursor {
    private final JournalDocuments.Mark doc = new JournalDocuments.Mark();

    JournalMarkCursor(Path dir, ExcerptTailer tailer, long lastIndex) {
        super(dir, tailer, lastIndex, JournalSchema.MARK);
    }

    @Override
    HostMark take(ValueIn in) {
        JournalReader.read(in, doc);
        return doc.invalid() == null ? doc.toHostMark() : null;
    }

    @Override
    public HostMark next() {
        return nextOfType();
    }

    @Override
    public void close() {
        super.close();
    }
}
