package org.flagos.trace.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The bytes {@code from} (inclusive) to {@code to} (exclusive) of a file, read at their positions: several
 * threads read ranges of one channel at once. Closing it leaves the channel open.
 */
final class FileRange extends InputStream {
    private final FileChannel file;
    private long at;
    private final long to;

    FileRange(FileChannel file, long from, long to) {
        this.file = file;
        this.at = from;
        this.to = to;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (at >= to) {
            return -1;
        }
        int n = file.read(ByteBuffer.wrap(b, off, (int) Math.min(len, to - at)), at);
        if (n < 0) {
            return -1; // the file got shorter while read: the reader says the trace ends early
        }
        at += n;
        return n;
    }
}
