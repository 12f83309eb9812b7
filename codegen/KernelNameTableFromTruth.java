import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Recovers the kernel name table of a CUPTI capture that was saved without one (the shared H200
 * fixtures): a kernel record names its kernel by a pointer valid only in the capturing process, and
 * the capture's truth file (CUPTI's own decoding) has the name per correlation id. Pairing the two by
 * correlation gives pointer to name; a pointer seen with two names is an error.
 *
 * <pre>java codegen/KernelNameTableFromTruth.java CAPTURE.fltrbuf[.gz] TRUTH.jsonl[.gz] OUT.names.tsv</pre>
 */
public final class KernelNameTableFromTruth {
    private static final Pattern KERNEL = Pattern.compile("\"kind\":\"kernel\".*\"correlation\":(\\d+).*\"name\":\"((?:[^\"\\\\]|\\\\.)*)\"");

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: java codegen/KernelNameTableFromTruth.java CAPTURE TRUTH OUT");
            System.exit(2);
        }
        Map<Long, String> nameByCorrelation = new HashMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(open(Path.of(args[1])), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                Matcher m = KERNEL.matcher(line);
                if (m.find()) {
                    nameByCorrelation.put(Long.parseLong(m.group(1)), m.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
                }
            }
        }
        ByteBuffer file;
        try (InputStream in = open(Path.of(args[0]))) {
            file = ByteBuffer.wrap(in.readAllBytes()).order(ByteOrder.LITTLE_ENDIAN);
        }
        TreeMap<Long, String> table = new TreeMap<>(Long::compareUnsigned);
        int pos = 8;
        while (pos + 16 <= file.limit()) {
            long length = file.getLong(pos + 8);
            int p = pos + 16;
            int end = (int) (p + length);
            while (p + 4 <= end) {
                int kind = file.getInt(p);
                int size = switch (kind) {
                    case 1 -> 96; case 2 -> 88; case 3, 10 -> 216; case 4, 5 -> 40; case 17 -> 56; case 39 -> 24;
                    default -> throw new IllegalStateException("unknown kind " + kind);
                };
                if (kind == 3 || kind == 10) {
                    long correlation = Integer.toUnsignedLong(file.getInt(p + 92));
                    long handle = file.getLong(p + 104);
                    String name = nameByCorrelation.get(correlation);
                    if (name == null) {
                        throw new IllegalStateException("truth has no kernel for correlation " + correlation);
                    }
                    String previous = table.put(handle, name);
                    if (previous != null && !previous.equals(name)) {
                        throw new IllegalStateException("handle 0x" + Long.toHexString(handle) + " named twice");
                    }
                }
                p += size;
            }
            pos = end;
        }
        StringBuilder out = new StringBuilder("# kernel name table: CUPTI name pointer -> name as CUPTI reported it\n"
                + "# recovered from " + Path.of(args[1]).getFileName() + " by codegen/KernelNameTableFromTruth.java\n");
        table.forEach((handle, name) -> out.append("0x").append(Long.toHexString(handle)).append('\t').append(name).append('\n'));
        Files.writeString(Path.of(args[2]), out.toString(), StandardCharsets.UTF_8);
        System.out.println("wrote " + args[2] + " (" + table.size() + " kernels)");
    }

    private static InputStream open(Path path) throws IOException {
        InputStream in = Files.newInputStream(path);
        return path.toString().endsWith(".gz") ? new GZIPInputStream(in) : in;
    }
}
