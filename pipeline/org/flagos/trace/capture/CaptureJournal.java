package org.flagos.trace.capture;

import java.io.IOException;
import java.util.Map;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.ingest.HostOpSource;
import org.flagos.trace.ingest.MarksJsonlReader;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalSchema;
import org.flagos.trace.journal.JournalSession;
import org.flagos.trace.journal.JournalWriter;
import org.flagos.trace.journal.MappedFault;

/**
 * Journals a saved capture as a replay reads it: the session (window start, devices, metadata),
 * the clock mapping, the name table, the host ops, the marks, every frame's buffer in file order, and the
 * stop marker (window end). Replaying the journal then gives the trace the capture's replay gives.
 */
public final class CaptureJournal {
    /**
     * Writes {@code request}'s capture into a new journal.
     *
     * @param names the capture's name table entries (kernel pointers and API name handles)
     * @return buffers journaled
     */
    public static long write(CaptureReplay.Request request, Map<Long, String> names, JournalOptions options) throws IOException {
        HostOpSource ops = request.ops();
        Map<String, String> metadata = new java.util.LinkedHashMap<>(request.metadata());
        request.endFacts().forEach(metadata::putIfAbsent); // a journal's fields are its metadata: how a run's window ended too
        JournalSession session = new JournalSession(request.traceName(), request.source(),
                ops == null ? JournalSchema.NO_TIME : ops.windowStartNs(), request.devices(), metadata, -1, false);
        try {
            return write(request, names, options, session, ops);
        } catch (InternalError e) {
            if (!MappedFault.is(e)) {
                throw e;
            }
            // raised at the JVM's next safe point, so it may escape the writer's own catch (MappedFault)
            throw new IOException("writing the journal in " + options.dir() + " failed: " + MappedFault.WORDS
                    + "; the journal holds the documents written before the failure; free some space and journal again", e);
        }
    }

    private static long write(CaptureReplay.Request request, Map<Long, String> names, JournalOptions options,
                              JournalSession session, HostOpSource ops) throws IOException {
        try (JournalWriter journal = JournalWriter.open(options, session)) {
            if (!request.clock().isIdentity()) {
                journal.clock(request.clock());
            }
            for (Map.Entry<Long, String> name : names.entrySet()) {
                journal.kernelName(name.getKey(), name.getValue());
            }
            if (ops != null) {
                try (HostOpCursor cursor = ops.cursor()) {
                    for (HostOp op; (op = cursor.next()) != null; ) {
                        journal.op(op);
                    }
                }
            }
            if (request.marks() != null) {
                try (MarksJsonlReader marks = MarksJsonlReader.open(request.marks())) {
                    for (HostMark mark; (mark = marks.next()) != null; ) {
                        journal.mark(mark);
                    }
                }
            }
            try (FltrbufFrames frames = request.file() != null ? FltrbufFrames.open(request.file())
                    : new FltrbufFrames(request.capture(), request.source())) { // streamed: any size
                while (frames.next()) {
                    if (frames.payload().hasRemaining()) { // an empty frame holds no record (padding or damage)
                        journal.buffer(frames.vendor(), frames.payload());
                    }
                }
            }
            journal.stop(ops == null ? JournalSchema.NO_TIME : ops.windowEndNs());
            return journal.buffers();
        }
    }

    private CaptureJournal() {
    }
}
