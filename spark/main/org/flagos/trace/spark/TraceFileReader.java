package org.flagos.trace.spark;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.unsafe.types.UTF8String;
import org.flagos.trace.encoders.EventFacts;
import org.flagos.trace.encoders.EventRows;
import org.flagos.trace.encoders.EventTable;
import org.flagos.trace.model.ClockAnchor;
import org.flagos.trace.report.TraceTables;
import org.flagos.trace.tracefile.TraceBlocks;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;
import org.flagos.trace.tracefile.TraceSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One trace file's rows, on an executor: {@link TraceTables} (the reader {@code flagtrace tables} uses) reads the
 * file twice, first for the facts its rows share (rank, host, base time, a merge's slots and pids: a trace may
 * say them after its events), then for its rows, each finished as it comes by {@link EventFacts#finish} (the rule {@code tables} uses) and
 * handed to Spark through a short queue from a reading thread. Every fault of the file (not a trace, damaged
 * gzip, no rank) shows in the first pass, before any row: the file is read whole or, with {@code mode
 * DROPMALFORMED}, left out whole (logged, and counted in the scan's {@code skippedFiles}).
 */
final class TraceFileReader implements PartitionReader<InternalRow> {
    private static final Logger LOG = LoggerFactory.getLogger(TraceFileReader.class);
    private static final int BATCH = 1024;
    private static final Object END = new Object();

    private final String file;
    private final java.nio.file.Path name;
    private final org.apache.hadoop.fs.Path path;
    private final FileSystem fs;
    private final TraceScan.Settings settings;
    private final UTF8String fileText;
    private final UTF8String jobId;
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(8);
    private Thread reading;
    private InternalRow[] batch = new InternalRow[0];
    private int at;
    private int filled;
    private boolean done;
    private long skipped;
    /** Added to every time of the file ({@code clock_offset_ns}); set before the reading thread starts. */
    private long offset;

    TraceFileReader(String file, Configuration conf, TraceScan.Settings settings) {
        this.file = file;
        this.path = new org.apache.hadoop.fs.Path(file);
        URI uri = path.toUri();
        // The words of the trace reader's faults start with this name: a local file's own path, else the whole address.
        this.name = java.nio.file.Path.of(uri.getScheme() == null || uri.getScheme().equals("file") ? uri.getPath() : file);
        this.settings = settings;
        this.fileText = UTF8String.fromString(file);
        String job = settings.jobId() != null ? settings.jobId() : path.getParent() == null ? "" : path.getParent().getName();
        this.jobId = UTF8String.fromString(job);
        try {
            this.fs = path.getFileSystem(conf);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }

    /** The second pass: each row finished with the facts of the first (given again, and ignored), and emitted. */
    private final class Finishing implements EventRows {
        final EventFacts facts;
        final EventFacts.Finished f = new EventFacts.Finished();

        Finishing(EventFacts facts) {
            this.facts = facts;
        }

        @Override
        public void source(int source, String name, long baseNs, long pidStride) {
            // learnt in the first pass
        }

        @Override
        public void slot(int slot, Integer rank, String host) {
            // learnt in the first pass
        }

        @Override
        public void pid(int slot, long tracePid, long originalPid) {
            // learnt in the first pass
        }

        @Override
        public void add(EventTable.Row r) throws IOException {
            emit(facts.finish(r, f), r);
        }
    }

    /** The first pass: the facts; a fault ends the file (an error, or with DROPMALFORMED no rows). */
    private EventFacts facts(Integer given) throws IOException {
        String notATrace = TraceScan.local(fs) ? TraceSource.notATrace(TraceScan.local(path)) : null;
        if (notATrace != null) { // before the open: a FIFO's would wait for ever, and /dev/zero never ends
            throw new TraceFormatException(name + " " + notATrace);
        }
        EventFacts facts = new EventFacts(); // the first pass keeps the facts, and drops the rows
        TraceTables read = new TraceTables(facts);
        if (given != null) {
            read.giveRank(given);
        }
        read.read(name, fs.open(path));
        if (!read.unranked().isEmpty()) {
            throw new TraceFormatException(read.unranked().get(0) + " names no rank (no distributedInfo.rank, no flagtrace_process.rank"
                    + (settings.rankFromPath() == null ? ""
                            : ", and option rankFromPath " + settings.rankFromPath() + " does not match its path")
                    + "): give the rank with option rankFromPath, a regular expression whose first group is the rank in"
                    + " the file's path (docs/analysis.md)");
        }
        offset = settings.realtime() ? realtimeOffset(read.blocks()) : 0;
        return facts;
    }

    /**
     * What puts the trace's times on its host's real-time clock: the real-time minus the trace clock at its start
     * anchor (the anchor merge aligns on, {@link ClockAnchor#start}); 0 for a trace without anchors (its clock kept,
     * as the column says) and for a merged trace (already on its reference's clock).
     */
    private long realtimeOffset(TraceBlocks blocks) throws TraceFormatException {
        ClockAnchor start = blocks.merged() ? null : ClockAnchor.start(blocks.anchors());
        if (start == null) {
            return 0;
        }
        long o;
        try {
            o = Math.subtractExact(start.realtimeNs(), start.traceNs());
        } catch (ArithmeticException e) {
            o = Long.MAX_VALUE;
        }
        if (Math.abs(o) >= TraceLimits.MAX_TIME_NS) {
            throw new TraceFormatException(name + ": its clock anchor puts its clock more than " + TraceLimits.MAX_TIME_NS
                    + " ns from real time: not a clock of the same time (option clock trace reads it as it is)");
        }
        return o;
    }

    private void start() throws IOException {
        Integer given = TraceScan.rankFromPath(settings.rankFromPath(), file);
        EventFacts known;
        try {
            known = facts(given);
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() != null && e.getMessage().contains(name.toString()) ? e.getMessage() : file + ": " + e;
            if (!settings.dropMalformed()) {
                throw new TraceFormatException(why);
            }
            skipped = 1;
            LOG.warn("flagtrace: skipped a malformed trace file (mode DROPMALFORMED): {}", why);
            done = true;
            return;
        }
        reading = new Thread(() -> {
            try {
                TraceTables read = new TraceTables(new Finishing(known));
                if (given != null) {
                    read.giveRank(given);
                }
                read.read(name, fs.open(path));
                flush();
                queue.put(END);
            } catch (InterruptedException | InterruptedIOException e) {
                // the task stopped reading (a limit, a cancel)
            } catch (Throwable t) {
                try {
                    queue.put(t);
                } catch (InterruptedException stopped) {
                    // the task stopped reading
                }
            }
        }, "flagtrace reader " + path.getName());
        reading.setDaemon(true);
        reading.start();
    }

    private InternalRow[] filling = new InternalRow[BATCH];
    private int count;

    /** One finished row (on the reading thread). */
    private void emit(EventFacts.Finished f, EventTable.Row r) throws IOException {
        Object[] v = new Object[FlagtraceDataSource.SCHEMA.size()];
        v[0] = f.rank;
        v[1] = f.slot;
        v[2] = string(f.host);
        v[3] = number(r.pid);
        v[4] = number(r.tid);
        v[5] = string(r.ph);
        v[6] = string(r.cat);
        v[7] = string(r.name);
        v[8] = f.tsNs + offset;
        v[9] = number(r.dur);
        v[10] = integer(r.device);
        v[11] = number(r.stream);
        v[12] = number(r.correlation);
        v[13] = number(r.externalId);
        v[14] = number(r.flowId);
        v[15] = number(r.bytes);
        v[16] = string(f.copyKind);
        v[17] = number(r.totalAllocated);
        v[18] = number(r.totalReserved);
        v[19] = integer(r.fromDevice);
        v[20] = integer(r.toDevice);
        v[21] = number(r.fromContext);
        v[22] = number(r.toContext);
        v[23] = number(r.inElems);
        v[24] = number(r.outElems);
        v[25] = string(r.dtype);
        v[26] = integer(r.groupSize);
        v[27] = string(r.processGroup);
        v[28] = jobId;
        v[29] = fileText;
        v[30] = offset;
        filling[count++] = new GenericInternalRow(v);
        if (count == BATCH) {
            flush();
        }
    }

    private void flush() throws IOException {
        if (count == 0) {
            return;
        }
        InternalRow[] full = count == BATCH ? filling : java.util.Arrays.copyOf(filling, count);
        filling = new InternalRow[BATCH];
        count = 0;
        try {
            queue.put(full);
        } catch (InterruptedException e) {
            throw new InterruptedIOException("stopped");
        }
    }

    private static Object number(long v) {
        return v == EventTable.NONE ? null : v;
    }

    private static Object integer(long v) {
        return v == EventTable.NONE ? null : (int) v;
    }

    private static Object string(String s) {
        return s == null ? null : UTF8String.fromString(s);
    }

    @Override
    public boolean next() throws IOException {
        if (reading == null && !done) {
            start();
        }
        if (at + 1 < filled) {
            at++;
            return true;
        }
        while (!done) {
            Object o;
            try {
                o = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(file + ": interrupted");
            }
            if (o == END) {
                done = true;
            } else if (o instanceof Throwable t) {
                done = true;
                throw new IOException(t.getMessage() != null && t.getMessage().contains(name.toString()) ? t.getMessage() : file + ": " + t, t);
            } else {
                batch = (InternalRow[]) o;
                filled = batch.length;
                at = 0;
                if (filled > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public InternalRow get() {
        return batch[at];
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return new CustomTaskMetric[] {new TraceScan.SkippedCount(skipped)};
    }

    @Override
    public void close() {
        if (reading != null) {
            reading.interrupt();
        }
    }
}
