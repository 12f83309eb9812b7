package org.flagos.trace.report;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.flagos.trace.tracefile.TraceBlocks;
import org.flagos.trace.tracefile.TraceReader;

/**
 * A plain JSON trace file read in chunks on several threads, each through the one trace reader
 * ({@link TraceReader}, its rules and limits), the events the summary reads handed on in file order: what
 * the summary's reader is given is what one thread's walk would give it, event for event.
 *
 * <p>The file is cut between events ({@link TraceChunks}). The first chunk is the file with its middle taken
 * out: its start up to the first cut and its end from the last cut (the blocks before and after the events,
 * with the first and the last events), one document. Every other chunk, the events between two cuts, is read
 * as a document of its own, wrapped as the file wraps its events (so an event nests as deep as in the file).
 * The events of the first chunk's start are handed on first, then each middle chunk's in order, then those of
 * the first chunk's end. Whatever any chunk's read throws (a fault of the file, or a cut that was not between
 * events), nothing is said: the caller reads the whole file again on one thread, which says what is wrong in
 * its own words, at its own line. Only the faults of the events the sink is handed, in file order, are thrown
 * here, as one thread's walk would throw them.
 *
 * <p>A middle chunk is first scanned straight from its bytes ({@link SummaryScan}), which takes the events of the
 * common form only, as the reader would take them; a chunk with anything else in it is read by the reader.
 */
final class ChunkedTraceRead {
    /** How a file is read in chunks. */
    record Settings(int threads, long minBytes, long headBytes, long chunkBytes) {
        /** One thread: never in chunks. */
        static final Settings ONE_THREAD = new Settings(1, Long.MAX_VALUE, 0, 0);

        /**
         * Threads at most: the chunks' events are handed on by one thread, which four scanning threads already keep busy.
         * More only add CPU (each one starts in the interpreter) and memory (each one's chunk): a cold summary of the 2.1 GB
         * trace with the JVM seeing 16 cores took 6.9-7.3 s of CPU and 470-530 MB with 16 scanning threads, 5.3-5.8 s and
         * 230-235 MB with 4, the same table (docs/benchmarks.md, "On the device machine's 16 cores").
         */
        static final int MAX_THREADS = 4;

        /** Every core up to {@link #MAX_THREADS}; files of 64 MiB or more, in chunks of 8 MiB. */
        static Settings byDefault() {
            return new Settings(Math.min(MAX_THREADS, Runtime.getRuntime().availableProcessors()), 64L << 20, 1L << 20, 8L << 20);
        }
    }

    /** One chunk read: its events, its blocks, and (the first chunk) how many of its events are of the file's start. */
    private record Chunk(SummaryEvents events, TraceBlocks blocks, int startEvents, int startMemories) {
    }

    /** A thread's scan of middle chunks: its buffer of a chunk's bytes, and its scan (whose texts it keeps from chunk to chunk). */
    private static final class ThreadScan {
        final SummaryScan scan = new SummaryScan();
        byte[] bytes = new byte[0];
    }

    private static final ThreadLocal<ThreadScan> SCANS = ThreadLocal.withInitial(ThreadScan::new);

    /** Thrown into a chunk's read once the file is given up, to end it early. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super("stopped", null, false, false);
        }
    }

    private ChunkedTraceRead() {
    }

    /**
     * Where {@code path} is cut for reading in chunks, or null where it is read on one thread (a single core, too
     * small, gzip or not UTF-8 JSON, no cut found): only the file's start and a few bytes at each cut are read.
     */
    static TraceChunks.Plan plan(Path path, Settings settings) throws IOException {
        if (settings.threads() < 2 || !Files.isRegularFile(path)) {
            return null;
        }
        try (FileChannel file = FileChannel.open(path)) {
            long size = file.size();
            return size < settings.minBytes() ? null : TraceChunks.plan(file, size, settings.headBytes(), settings.chunkBytes());
        }
    }

    /**
     * Reads {@code path}, cut as {@code plan} says, on {@code threads} threads and hands {@code sink} every event the
     * summary reads, in file order; returns the blocks around the events. Null when a chunk's read failed: the
     * caller then reads the file on one thread from its start, with a sink of its own (this one may have been
     * handed some of the events).
     */
    static TraceBlocks read(Path path, TraceChunks.Plan plan, int threads, SummaryEvents.Sink sink) throws IOException {
        return read(path, plan, threads, sink, new AtomicInteger());
    }

    /** As {@link #read(Path, TraceChunks.Plan, int, SummaryEvents.Sink)}, counting in {@code scanned} the middle chunks scanned from their bytes. */
    static TraceBlocks read(Path path, TraceChunks.Plan plan, int threads, SummaryEvents.Sink sink, AtomicInteger scanned)
            throws IOException {
        try (FileChannel file = FileChannel.open(path)) {
            return read(path, file, plan, threads, sink, scanned);
        }
    }

    private static TraceBlocks read(Path path, FileChannel file, TraceChunks.Plan plan, int threads, SummaryEvents.Sink sink,
                                    AtomicInteger scanned) throws IOException {
        AtomicBoolean stop = new AtomicBoolean();
        Queue<SummaryEvents> spare = new ConcurrentLinkedQueue<>(); // columns handed on, for the next chunks' scans
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "flagtrace-trace-chunk");
            t.setDaemon(true);
            return t;
        });
        try {
            int chunks = plan.cuts().length; // the first (start and end) and the middle ones
            int ahead = threads + 2; // chunks read ahead of the one handed on: memory stays a few chunks' columns
            ArrayDeque<Future<Chunk>> pending = new ArrayDeque<>();
            int next = 0;
            while (next < chunks && pending.size() < ahead) {
                pending.add(submit(pool, path, file, plan, next++, stop, scanned, spare));
            }
            Chunk first = take(pending.poll());
            if (first == null || first.startEvents() < 0) {
                return null;
            }
            first.events().replay(0, first.startEvents(), 0, sink);
            for (int k = 1; k < chunks; k++) {
                if (next < chunks) {
                    pending.add(submit(pool, path, file, plan, next++, stop, scanned, spare));
                }
                Chunk c = take(pending.poll());
                if (c == null) {
                    return null;
                }
                c.events().replay(0, c.events().size(), 0, sink);
                spare.add(c.events());
            }
            first.events().replay(first.startEvents(), first.events().size(), first.startMemories(), sink);
            return first.blocks();
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    /**
     * The events of the middle chunk {@code [from, to)} of {@code file}, scanned from its bytes; null where the scan
     * does not take them (or the file ended early): the reader is to read the chunk.
     */
    private static SummaryEvents scan(FileChannel file, long from, long to, AtomicBoolean stop, Queue<SummaryEvents> spare)
            throws IOException {
        ThreadScan t = SCANS.get();
        int n = (int) (to - from); // a chunk is a few MiB: TraceChunks cuts it so
        if (t.bytes.length < n + SummaryScan.SLACK) {
            t.bytes = new byte[Math.max(n + SummaryScan.SLACK, t.bytes.length + t.bytes.length / 2)];
        }
        ByteBuffer into = ByteBuffer.wrap(t.bytes, 0, n);
        while (into.hasRemaining()) { // a MiB at a time: the channel copies through a direct buffer of that size
            into.limit(Math.min(n, into.position() + (1 << 20)));
            if (file.read(into, from + into.position()) < 0) {
                return null;
            }
            into.limit(n);
        }
        t.bytes[n] = 0; // the scan's end
        SummaryEvents events = spare.poll();
        if (events == null) {
            events = new SummaryEvents(n / 256); // about as many as a trace of torch's keeps of its bytes
        }
        events.clear();
        try {
            t.scan.scan(t.bytes, 0, n, events, stop::get);
        } catch (SummaryScan.Unusual e) {
            return null;
        }
        if (stop.get()) {
            throw new Stopped();
        }
        return events;
    }

    /** The chunk's read, or null when it failed. */
    private static Chunk take(Future<Chunk> f) throws IOException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the trace");
        }
    }

    private static Future<Chunk> submit(ExecutorService pool, Path path, FileChannel file, TraceChunks.Plan plan, int k,
                                        AtomicBoolean stop, AtomicInteger scanned, Queue<SummaryEvents> spare) {
        return pool.submit(() -> {
            long[] cuts = plan.cuts();
            if (k > 0) {
                SummaryEvents events = scan(file, cuts[k - 1] + 1, cuts[k], stop, spare);
                if (events != null) {
                    scanned.incrementAndGet();
                    return new Chunk(events, null, 0, 0);
                }
            }
            InputStream bytes;
            if (k == 0) {
                bytes = new SequenceInputStream(new FileRange(file, 0, cuts[0]), new FileRange(file, cuts[cuts.length - 1], plan.size()));
            } else {
                String open = plan.bareArray() ? "[" : "{\"traceEvents\":[";
                String close = plan.bareArray() ? "]" : "]}";
                bytes = new SequenceInputStream(java.util.Collections.enumeration(java.util.List.of(
                        new ByteArrayInputStream(open.getBytes(StandardCharsets.US_ASCII)),
                        new FileRange(file, cuts[k - 1] + 1, cuts[k]), // after the comma at the cut
                        new ByteArrayInputStream(close.getBytes(StandardCharsets.US_ASCII)))));
            }
            SummaryEvents events = new SummaryEvents();
            int[] start = {k == 0 ? -1 : 0, 0};
            long[] seen = {0};
            TraceBlocks blocks = TraceReader.read(bytes, path, TraceReader.Options.FIELDS, e -> {
                if (stop.get()) {
                    throw new Stopped();
                }
                events.add(e);
                if (k == 0 && ++seen[0] == plan.headEvents()) {
                    start[0] = events.size();
                    start[1] = events.memories();
                }
            });
            return new Chunk(events, blocks, start[0], start[1]);
        });
    }
}
