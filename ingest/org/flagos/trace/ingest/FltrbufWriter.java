package org.flagos.trace.ingest;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DeviceClockMapping;

/**
 * Writes a {@code .fltrbuf} capture (format v1) as a live tracer completes buffers, and the kernel
 * name table beside it ({@code NAME.names.tsv}) and, for a vendor with its own clock, the clock
 * mapping ({@code NAME.clock.json}) at {@link #close()}. Both appear under their final
 * names only when closed; a crash leaves a visibly partial {@code .partial} file.
 */
public final class FltrbufWriter implements BufferTap, AutoCloseable {
    private final Path target;
    private final Path partial;
    private final OutputStream out;
    private final Map<Long, String> names = new TreeMap<>(Long::compareUnsigned);
    private final byte[] header = new byte[16];
    private byte[] copy = new byte[1 << 16];
    private long frames;
    private IOException failure;
    private DeviceClockMapping clock;

    public FltrbufWriter(Path target) throws IOException {
        this.target = target.toAbsolutePath();
        Files.createDirectories(this.target.getParent());
        this.partial = this.target.resolveSibling(this.target.getFileName() + ".partial");
        this.out = new BufferedOutputStream(Files.newOutputStream(partial), 1 << 16);
        out.write(FltrbufFrames.MAGIC);
    }

    @Override
    public synchronized void buffer(int dumpVendor, ByteBuffer validBytes) {
        if (failure != null) {
            return;
        }
        try {
            int length = validBytes.remaining();
            ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(dumpVendor).putInt(0).putLong(length);
            out.write(header);
            if (copy.length < length) {
                copy = new byte[length];
            }
            validBytes.duplicate().get(copy, 0, length);
            out.write(copy, 0, length);
            frames++;
        } catch (IOException e) {
            failure = e;
        }
    }

    @Override
    public synchronized void kernelName(long handle, String vendorName) {
        names.put(handle, vendorName);
    }

    @Override
    public synchronized void clock(DeviceClockMapping mapping) {
        clock = mapping;
    }

    public synchronized long frames() {
        return frames;
    }

    /** Deletes what was written: the capture is not kept. */
    public synchronized void discard() throws IOException {
        out.close();
        Files.deleteIfExists(partial);
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
        if (failure != null) {
            Files.deleteIfExists(partial);
            throw new IOException("writing " + target + " failed", failure);
        }
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        StringBuilder table = new StringBuilder("# kernel name table: vendor name handle -> name as the vendor reported it\n");
        names.forEach((handle, name) -> table.append("0x").append(Long.toHexString(handle)).append('\t').append(name).append('\n'));
        try {
            Files.writeString(KernelNameFile.besides(target), table.toString(), StandardCharsets.UTF_8);
            if (clock != null && !clock.isIdentity()) {
                DeviceClockFile.write(DeviceClockFile.besides(target), clock);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
