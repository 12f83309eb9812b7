package org.flagos.trace.journal;

import java.nio.file.Path;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.ValueIn;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;

/**
 * A journal's valid ops, one at a time, in journal order (the order they closed in), up to the last document the
 * reader's scan found good. Op documents the scan counted as invalid are skipped. Holds one op.
 */
public final class JournalOpCursor extends JournalTypeCursor<HostOp> implements HostOpCursor {
    private final JournalDocuments.Op doc = new JournalDocuments.Op();

    JournalOpCursor(Path dir, ExcerptTailer tailer, long lastIndex) {
        super(dir, tailer, lastIndex, JournalSchema.OP);
    }

    @Override
    HostOp take(ValueIn in) {
        JournalReader.read(in, doc);
        return doc.invalid() == null ? doc.toHostOp() : null;
    }

    @Override
    public HostOp next() {
        return nextOfType();
    }

    @Override
    public void close() {
        super.close();
    }
}
