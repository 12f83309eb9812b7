package org.flagos.trace.benchmarks;

import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.model.DeviceProperties;

/** The real 30,000-launch H200 capture, loaded once into memory for the benchmarks. */
final class BenchmarkCapture {
    static final String NAME = "h200-tiny30k";

    final ByteBuffer bytes;
    final HostOps ops;
    final KernelNameFile names;
    final List<DeviceProperties> devices = TestDevices.h200();

    BenchmarkCapture() {
        Path dir;
        try {
            dir = Path.of(BenchmarkCapture.class.getResource("/captures/" + NAME + ".fltrbuf.gz").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        bytes = CaptureBytes.load(dir.resolve(NAME + ".fltrbuf.gz"));
        ops = OpsJsonlReader.read(dir.resolve(NAME + ".ops.jsonl.gz"));
        names = KernelNameFile.read(dir.resolve(NAME + ".names.tsv"));
    }

    /** Counts trace bytes and drops them: the benchmark measures flagtrace, not the disk. */
    static final class CountingSink extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }
}
