package org.flagos.trace.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * A gzip stream compressed on worker threads, the way pigz does it: the bytes are cut into blocks
 * of {@link #BLOCK} bytes, each block is deflated on its own by one of a few workers with the last
 * 32 KiB of the block before it as the dictionary, and the compressed blocks are written in order as
 * one gzip member (every block but the last ends on a byte boundary with a sync flush; the last
 * finishes the stream). The result is one ordinary gzip member, not a concatenation, so every gzip
 * reader reads it (gzip -t, Python's gzip, Java's GZIPInputStream, the browsers behind Perfetto and
 * chrome://tracing). Block boundaries depend only on the byte count, never on timing: the same
 * bytes always compress to the same file.
 *
 * <p>Bounded: at most {@code inFlight} blocks exist (filling, compressing or waiting to be written);
 * the writing thread waits for the oldest when all are taken. The workers start with the first
 * full block and are stopped and joined by {@link #close()} whatever happened before: a failure in
 * a worker is kept, thrown to the writing thread by its next write, flush or close (in words, naming
 * the output), and no worker outlives the stream.
 *
 * <p>One writing thread, like any {@link OutputStream}; {@link #flush()} hands on what is already
 * compressed but cuts no block (a flush after every batch of trace events would otherwise cost
 * ratio and make the file depend on timing).
 */
final class ParallelGzipOutputStream extends OutputStream {
    /** Uncompressed bytes per block (pigz uses 128 KiB; larger blocks lose less at each boundary). */
    static final int BLOCK = 1 << 18;
    /** Deflate's window: the dictionary each block gets from the one before. */
    private static final int WINDOW = 1 << 15;
    /** Compressing threads: one writer fills blocks far slower than four level-1 workers empty them. */
    static final int MAX_WORKERS = 4;

    /** Deflates one block; a test replaces it to fail inside a worker. */
    interface Compressor {
        void compress(Block block, Deflater deflater);
    }

    /** One block's bytes in, its deflate stream out, and its CRC. */
    static final class Block {
        final byte[] in;
        int inLength;
        final byte[] dictionary = new byte[WINDOW];
        int dictionaryLength;
        boolean last;
        byte[] out;
        int outLength;
        long crc;
        long sequence;
        private boolean done; // guarded by this
        private Throwable failure; // guarded by this

        Block(int size) {
            in = new byte[size];
            out = new byte[size + (size >> 3) + 64];
        }

        synchronized void complete(Throwable failed) {
            failure = failed;
            done = true;
            notifyAll();
        }

        synchronized boolean isDone() {
            return done;
        }

        /** Waits until a worker has compressed this block; the worker's failure, if any. */
        synchronized Throwable await() throws InterruptedException {
            while (!done) {
                wait();
            }
            return failure;
        }

        synchronized void reset() {
            done = false;
            failure = null;
            inLength = 0;
            outLength = 0;
            dictionaryLength = 0;
            last = false;
        }
    }

    /** Deflates a block raw, with its dictionary; sync flush unless it is the last. */
    static final Compressor DEFLATE = (block, deflater) -> {
        deflater.reset();
        if (block.dictionaryLength > 0) {
            deflater.setDictionary(block.dictionary, 0, block.dictionaryLength);
        }
        deflater.setInput(block.in, 0, block.inLength);
        if (block.last) {
            deflater.finish();
        }
        int flush = block.last ? Deflater.NO_FLUSH : Deflater.SYNC_FLUSH;
        while (true) {
            if (block.outLength == block.out.length) {
                block.out = java.util.Arrays.copyOf(block.out, block.out.length * 2);
            }
            int space = block.out.length - block.outLength;
            int n = deflater.deflate(block.out, block.outLength, space, flush);
            block.outLength += n;
            if (block.last ? deflater.finished() : n < space) {
                break;
            }
        }
        CRC32 crc = new CRC32();
        crc.update(block.in, 0, block.inLength);
        block.crc = crc.getValue();
    };

    private static final byte[] HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final OutputStream out;
    private final Path target;
    private final int level;
    private final int blockSize;
    private final int workerCount;
    private final Compressor compressor;
    private final ArrayDeque<Block> free = new ArrayDeque<>();
    private final ArrayDeque<Block> pending = new ArrayDeque<>(); // submitted, in order; the writing thread's
    private final BlockingQueue<Block> work;
    private final Thread[] workers;
    private Block current;
    private long crc;
    private long total;
    /**
     * {@link #zeros} for {@link #zerosLength} bytes, kept for the next block: every block but the last
     * has the same length. Building the operator per block (zlib's crc32_combine) was 30% of the
     * Java samples of a {@code .json.gz} replay (JFR), on the writer's thread; applying it is 32 XORs.
     */
    private long[] zerosOperator;
    private long zerosLength = -1;
    private long sequence;
    private boolean headerWritten;
    private boolean closed;
    private IOException broken; // the first failure: every later call throws it again

    /** A stream of {@code level} compressing on up to {@link #MAX_WORKERS} threads (no more than there are processors). */
    ParallelGzipOutputStream(OutputStream out, Path target, int level) {
        this(out, target, level, BLOCK, Math.max(1, Math.min(MAX_WORKERS, Runtime.getRuntime().availableProcessors())), DEFLATE);
    }

    ParallelGzipOutputStream(OutputStream out, Path target, int level, int blockSize, int workerCount, Compressor compressor) {
        if (blockSize < WINDOW) {
            throw new IllegalArgumentException("a block holds at least the 32 KiB window");
        }
        this.out = out;
        this.target = target;
        this.level = level;
        this.blockSize = blockSize;
        this.workerCount = workerCount;
        this.compressor = compressor;
        int inFlight = 2 * workerCount + 1; // workers busy while one fills and one waits to be written
        for (int i = 0; i < inFlight; i++) {
            free.add(new Block(blockSize));
        }
        this.work = new ArrayBlockingQueue<>(inFlight);
        this.workers = new Thread[workerCount];
        this.current = free.poll();
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        check();
        while (len > 0) {
            int n = Math.min(len, blockSize - current.inLength);
            System.arraycopy(b, off, current.in, current.inLength, n);
            current.inLength += n;
            off += n;
            len -= n;
            if (current.inLength == blockSize) {
                submit(false);
            }
        }
    }

    /** Hands on the blocks already compressed, in order, without waiting for any or cutting one. */
    @Override
    public void flush() throws IOException {
        if (closed && broken == null) {
            return; // everything was written by close
        }
        check();
        try {
            writeDone(false);
            out.flush();
        } catch (IOException | RuntimeException | Error e) {
            throw fail(e);
        }
    }

    /** Compresses what is left, writes the trailer and closes the stream below; always stops the workers. */
    @Override
    public void close() throws IOException {
        if (closed) {
            if (broken != null) {
                throw again();
            }
            return;
        }
        closed = true;
        IOException before = broken;
        try {
            if (broken == null) {
                try {
                    submit(true);
                    writeDone(true);
                    byte[] trailer = new byte[8];
                    putInt(trailer, 0, (int) crc);
                    putInt(trailer, 4, (int) total);
                    out.write(trailer);
                } catch (IOException | RuntimeException | Error e) {
                    throw fail(e);
                }
            }
        } finally {
            stopWorkers();
            try {
                out.close();
            } catch (IOException e) {
                if (broken == null) {
                    broken = e;
                }
            }
        }
        if (broken != null) {
            throw broken == before ? again() : broken;
        }
    }

    private void check() throws IOException {
        if (broken != null) {
            throw again();
        }
        if (closed) {
            throw new IOException("the compressed stream of " + target + " is closed");
        }
    }

    /** The failure already thrown once, as a new exception (the same one twice cannot be suppressed by itself). */
    private IOException again() {
        return new IOException(broken.getMessage(), broken);
    }

    /** Remembers the first failure (a worker's or the stream's below) as the one every later call throws. */
    private IOException fail(Throwable e) {
        if (broken == null) {
            broken = e instanceof IOException ? (IOException) e : new IOException(FailureWords.of(e), e);
        }
        return broken;
    }

    /** Queues the filled block for a worker and takes a free one, waiting for the oldest to be written if none is. */
    private void submit(boolean last) throws IOException {
        Block block = current;
        block.last = last;
        block.sequence = sequence++;
        startWorkers();
        pending.add(block);
        if (!work.offer(block)) {
            throw new IllegalStateException("more blocks in flight than were made"); // cannot happen: free bounds them
        }
        if (last) {
            current = null;
            return;
        }
        writeDone(false);
        Block next = free.poll();
        while (next == null) {
            writeOldest();
            next = free.poll();
        }
        next.reset();
        int keep = Math.min(WINDOW, block.inLength);
        System.arraycopy(block.in, block.inLength - keep, next.dictionary, 0, keep); // read only, beside the worker
        next.dictionaryLength = keep;
        current = next;
    }

    /** Writes the compressed blocks at the head of the order: those done, or (all) every one, waiting. */
    private void writeDone(boolean all) throws IOException {
        while (!pending.isEmpty() && (all || pending.peek().isDone())) {
            writeOldest();
        }
    }

    private void writeOldest() throws IOException {
        Block block = pending.poll();
        Throwable failure;
        try {
            failure = block.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw fail(new java.io.InterruptedIOException("interrupted while compressing " + target));
        }
        if (failure != null) {
            throw fail(new IOException("cannot compress " + target + ": " + FailureWords.of(failure), failure));
        }
        if (!headerWritten) {
            out.write(HEADER);
            headerWritten = true;
        }
        out.write(block.out, 0, block.outLength);
        if (block.inLength != zerosLength) {
            zerosOperator = zeros(block.inLength);
            zerosLength = block.inLength;
        }
        crc = (times(zerosOperator, crc) ^ block.crc) & 0xffffffffL;
        total += block.inLength;
        free.add(block);
    }

    private void startWorkers() {
        if (workers[0] != null) {
            return;
        }
        for (int i = 0; i < workerCount; i++) {
            Thread t = new Thread(this::work, "flagtrace-gzip-" + (i + 1));
            t.setDaemon(true); // never keeps the JVM up; close() joins them anyway
            workers[i] = t;
            t.start();
        }
    }

    private void work() {
        Deflater deflater = null;
        Throwable unusable = null;
        try {
            deflater = new Deflater(level, true);
        } catch (Throwable e) { // out of memory: every block this worker takes fails with it, none waits forever
            unusable = e;
        }
        try {
            while (true) {
                Block block;
                try {
                    block = work.take();
                } catch (InterruptedException e) {
                    return; // stopWorkers
                }
                Throwable failed = unusable;
                if (failed == null) {
                    try {
                        compressor.compress(block, deflater);
                    } catch (Throwable e) { // Errors included: the writing thread must hear of it, never hang
                        failed = e;
                    }
                }
                block.complete(failed);
            }
        } finally {
            if (deflater != null) {
                deflater.end();
            }
        }
    }

    /** Interrupts and joins every worker; a worker busy with a block ends when the block does. */
    private void stopWorkers() {
        boolean interrupted = false;
        for (Thread t : workers) {
            if (t != null) {
                t.interrupt();
            }
        }
        for (Thread t : workers) {
            while (t != null && t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    /** The CRC-32 of A followed by B from their CRCs and B's length (zlib's crc32_combine). */
    static long crc32Combine(long crcA, long crcB, long lengthB) {
        if (lengthB <= 0) {
            return crcA;
        }
        return (times(zeros(lengthB), crcA) ^ crcB) & 0xffffffffL;
    }

    /**
     * The GF(2) operator (32 columns) that carries a CRC-32 register over {@code length} zero bytes:
     * {@code times(zeros(n), crcA) ^ crcB} is the CRC of A followed by B when B is n bytes long.
     * Built as zlib's crc32_combine walks the length's bits, composing the operators it would apply.
     */
    static long[] zeros(long length) {
        long[] result = new long[32];
        for (int n = 0; n < 32; n++) {
            result[n] = 1L << n; // identity
        }
        if (length <= 0) {
            return result;
        }
        long[] even = new long[32];
        long[] odd = new long[32];
        odd[0] = 0xedb88320L; // the CRC-32 polynomial, reflected
        long row = 1;
        for (int n = 1; n < 32; n++) {
            odd[n] = row;
            row <<= 1;
        }
        square(even, odd); // two zero bits
        square(odd, even); // four zero bits
        do { // one zero byte, then doubled, for each bit of the length (powers of one operator: they commute)
            square(even, odd);
            if ((length & 1) != 0) {
                result = compose(even, result);
            }
            length >>= 1;
            if (length == 0) {
                break;
            }
            square(odd, even);
            if ((length & 1) != 0) {
                result = compose(odd, result);
            }
            length >>= 1;
        } while (length != 0);
        return result;
    }

    /** The operator applying {@code then} after {@code first}. */
    private static long[] compose(long[] then, long[] first) {
        long[] product = new long[32];
        for (int n = 0; n < 32; n++) {
            product[n] = times(then, first[n]);
        }
        return product;
    }

    private static long times(long[] matrix, long vector) {
        long sum = 0;
        for (int i = 0; vector != 0; i++, vector >>>= 1) {
            if ((vector & 1) != 0) {
                sum ^= matrix[i];
            }
        }
        return sum;
    }

    private static void square(long[] square, long[] matrix) {
        for (int n = 0; n < 32; n++) {
            square[n] = times(matrix, matrix[n]);
        }
    }
}
