package org.flagos.trace.journal;

/**
 * One reusable document of each journal type: a reader reads every excerpt into the one of its
 * type, a writer fills the one of its type and appends it, so that neither allocates per document.
 * Not thread-safe: one set per reader or writer.
 */
final class JournalDocumentSet {
    final JournalDocuments.Session session = new JournalDocuments.Session();
    final JournalDocuments.Device device = new JournalDocuments.Device();
    final JournalDocuments.Clock clock = new JournalDocuments.Clock();
    final JournalDocuments.Name name = new JournalDocuments.Name();
    final JournalDocuments.Op op = new JournalDocuments.Op();
    final JournalDocuments.Buffer buffer = new JournalDocuments.Buffer();
    final JournalDocuments.Stop stop = new JournalDocuments.Stop();
    final JournalDocuments.Anchor anchor = new JournalDocuments.Anchor();
    final JournalDocuments.Mark mark = new JournalDocuments.Mark();
}
