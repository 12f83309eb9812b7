import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.Deflater;

/**
 * Deflate's levels on a trace: time and ratio of one raw deflate stream, one thread, over the first
 * 256 MiB of TRACE (two passes, the second printed). What chose AtomicOutput.GZIP_LEVEL.
 *   java benchmarks/GzipLevels.java TRACE.json
 */
public class GzipLevels {
    public static void main(String[] args) throws Exception {
        byte[] data = new byte[256 << 20];
        int length;
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            length = in.readNBytes(data, 0, data.length);
        }
        byte[] out = new byte[1 << 20];
        for (int pass = 0; pass < 2; pass++) {
            for (int level : new int[] {1, 2, 3, 4, 6}) {
                Deflater d = new Deflater(level, true);
                long t0 = System.nanoTime();
                d.setInput(data, 0, length);
                d.finish();
                long n = 0;
                while (!d.finished()) {
                    n += d.deflate(out);
                }
                double s = (System.nanoTime() - t0) / 1e9;
                d.end();
                if (pass == 1) {
                    System.out.printf("level %d: %.2f s for %d MiB (%.0f MB/s), ratio %.2f, out %d%n", level, s, length >> 20,
                            length / s / 1e6, (double) length / n, n);
                }
            }
        }
    }
}
