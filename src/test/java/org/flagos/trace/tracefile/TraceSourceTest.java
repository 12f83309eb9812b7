package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TraceSource}: the bundled traces read through it, plain and gzipped, give what Jackson's own tree reader gives
 * (torch's H200 trace and the merged two-rank H200 trace, gzip recognised by its magic bytes only); each way a read can
 * fail (a directory, a device, a missing file, JSON invalid, cut, nested past 64 levels, a number of 101 digits, a
 * string past the event size, a field given twice, a gzip cut short or failing its CRC) is one
 * {@link TraceFormatException} line naming the file in words, no library's class names.
 */
class TraceSourceTest {
    private static final Path TORCH = Path.of("src/test/resources/torch-reference/torch_trace.json");
    private static final Path MERGED = Path.of("src/test/resources/captures/h200-ranks/h200-ranks.merged.json.gz");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    /** Reads the whole document; returns its number of events and tokens. */
    private static long[] count(Path path) throws IOException {
        return TraceSource.read(path, "not a trace file", in -> {
            long events = 0;
            long tokens = 0;
            try (JsonParser p = TraceSource.parser(in)) {
                JsonToken t;
                while ((t = p.nextToken()) != null) {
                    tokens++;
                    if (t == JsonToken.VALUE_STRING) {
                        p.getText(); // a string's length is checked when it is read, as every reader of traces reads it
                    }
                    if (t == JsonToken.FIELD_NAME && p.currentName().equals("ph") && p.getParsingContext().getParent().getParent() != null
                            && "traceEvents".equals(p.getParsingContext().getParent().getParent().getCurrentName())) {
                        events++;
                    }
                }
            }
            return new long[] {events, tokens};
        });
    }

    private static long tokens(JsonNode n) {
        long t = n.isContainerNode() ? 2 : 1;
        if (n.isObject()) {
            var it = n.fields();
            while (it.hasNext()) {
                t += 1 + tokens(it.next().getValue());
            }
        } else if (n.isArray()) {
            for (JsonNode c : n) {
                t += tokens(c);
            }
        }
        return t;
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }

    @Test
    void bundledTracesPlainAndGzippedReadAsJacksonReadsThem() throws Exception {
        JsonNode torch = MAPPER.readTree(TORCH.toFile());
        long[] plain = count(TORCH);
        assertEquals(torch.get("traceEvents").size(), plain[0], "every event of torch's trace");
        assertEquals(tokens(torch), plain[1], "every token");
        Path zipped = Files.write(dir.resolve("t.json"), gzip(Files.readAllBytes(TORCH))); // gzip by its bytes, not its name
        assertEquals(Arrays.toString(plain), Arrays.toString(count(zipped)));
        JsonNode merged;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(MERGED))) {
            merged = MAPPER.readTree(in);
        }
        long[] m = count(MERGED);
        assertEquals(merged.get("traceEvents").size(), m[0]);
        assertEquals(tokens(merged), m[1]);
        assertEquals(636, m[0], "the merged trace's events");
        Path one = Files.write(dir.resolve("one.json"), new byte[] {0x1f});
        String e = refused(one);
        assertTrue(e.startsWith(one + " is not valid JSON ("), "one byte of gzip's magic is not gzip: " + e);
    }

    private String refused(Path path) {
        String m = assertThrows(TraceFormatException.class, () -> count(path)).getMessage();
        assertFalse(m.contains("\n"), "one line: " + m);
        assertFalse(m.contains("com.fasterxml") || m.contains("Exception") || m.contains("StreamReadConstraints")
                || m.contains("getMax"), "no library's names: " + m);
        assertTrue(m.startsWith(path.toString()), m);
        return m;
    }

    private Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void pathsThatAreNoRegularFileAreRefusedByTheirPath() throws Exception {
        assertEquals(dir + " is a directory, not a trace file", refused(dir));
        Path missing = dir.resolve("missing.json");
        assertEquals(missing + ": no such file", refused(missing));
        Path devNull = Path.of("/dev/null");
        if (Files.exists(devNull)) {
            assertEquals("/dev/null is a character device, not a regular file: not a trace", refused(devNull));
        }
        // a loop of links and a dangling one: the project's words, not the system's "Too many levels of symbolic links"
        Path loop = Files.createSymbolicLink(dir.resolve("loop.json"), Path.of("loop2.json"));
        Files.createSymbolicLink(dir.resolve("loop2.json"), Path.of("loop.json"));
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.json"), Path.of("nowhere.json"));
        for (Path link : List.of(loop, dangling)) {
            assertEquals(link + " is a link that leads to no file (a dangling link, or a loop of links): not a trace", refused(link));
        }
    }

    @Test
    void invalidCutAndDuplicatedJsonIsSaidInWords() throws Exception {
        Path cut = file("cut.json", "{\"traceEvents\": [{\"ph\": \"X\"");
        assertTrue(refused(cut).startsWith(cut + " ends in the middle of its JSON (truncated?) at line 1, column "), refused(cut));
        Path bad = file("bad.json", "{\"traceEvents\": [}\n");
        assertTrue(refused(bad).matches(".* is not valid JSON \\(.*\\) at line 1, column \\d+"), refused(bad));
        Path twice = file("twice.json", "{\"traceEvents\": [], \"traceEvents\": []}");
        assertEquals(twice + " is not a trace: it has two traceEvents arrays", refused(twice));
        Path field = file("field.json", "{\"traceEvents\": [{\"ph\": \"X\", \"ph\": \"B\"}]}");
        assertTrue(refused(field).startsWith(field + " is not a trace: an object has its \"ph\" twice at line 1"), refused(field));
        Path empty = file("empty.json", "");
        assertEquals(0, count(empty)[1], "an empty file has no tokens: the body decides what that means");
    }

    /** The line, where the JSON reader gives one (it gives none for its limits now). */
    private void assertLimit(Path path, String words) {
        String m = refused(path);
        assertTrue(m.equals(path + " is not a trace: " + words) || m.matches(java.util.regex.Pattern.quote(path + " is not a trace: " + words)
                + " \\(line \\d+\\)"), m);
    }

    @Test
    void theReadersLimitsAreSaidInTheirOwnWords() throws Exception {
        String deep = "[".repeat(TraceLimits.MAX_DEPTH + 1) + "]".repeat(TraceLimits.MAX_DEPTH + 1);
        Path tooDeep = file("deep.json", deep);
        assertLimit(tooDeep, "it nests JSON more than 64 levels deep");
        Path atDepth = file("at.json", "[".repeat(TraceLimits.MAX_DEPTH) + "]".repeat(TraceLimits.MAX_DEPTH));
        assertEquals(2L * TraceLimits.MAX_DEPTH, count(atDepth)[1], "64 levels are allowed");
        Path longNumber = file("n.json", "[" + "9".repeat(TraceLimits.MAX_NUMBER_CHARS + 1) + "]");
        assertLimit(longNumber, "it holds a number of more than 100 digits");
        assertEquals(3, count(file("n100.json", "[" + "9".repeat(TraceLimits.MAX_NUMBER_CHARS) + "]"))[1], "100 digits are allowed");
        Path longString = file("s.json", "[\"" + "x".repeat(TraceLimits.MAX_STRING_CHARS + 1) + "\"]");
        assertLimit(longString, "it holds a string of more than " + TraceLimits.MAX_STRING_CHARS + " characters");
    }

    @Test
    void aGzipCutShortOrFailingItsCrcIsOneLine() throws Exception {
        byte[] z = gzip(Files.readAllBytes(TORCH));
        Path cutData = Files.write(dir.resolve("cut.json.gz"), Arrays.copyOf(z, z.length / 2));
        assertEquals(cutData + " is not a whole gzip file (it ends early); truncated?", refused(cutData));
        Path cutTrailer = Files.write(dir.resolve("trailer.json.gz"), Arrays.copyOf(z, z.length - 3));
        assertEquals(cutTrailer + " is not a whole gzip file (it ends early); truncated?", refused(cutTrailer));
        byte[] badCrc = z.clone();
        badCrc[badCrc.length - 6] ^= 0x55; // the CRC-32 of the trailer
        Path crc = Files.write(dir.resolve("crc.json.gz"), badCrc);
        String m = refused(crc);
        assertTrue(m.startsWith(crc + " is not a whole gzip file (") && m.endsWith("); truncated?"), m);
        byte[] header = Arrays.copyOf(z, 10);
        header[3] = (byte) 0xe0; // reserved flag bits
        Path damaged = Files.write(dir.resolve("hdr.json.gz"), header);
        assertTrue(refused(damaged).startsWith(damaged + " is not a whole gzip file ("), refused(damaged));
    }

    @Test
    void aBodysOwnRefusalPassesThroughUnchanged() throws Exception {
        Path t = file("t.json", "[]");
        TraceFormatException mine = new TraceFormatException("mine");
        assertEquals("mine", assertThrows(TraceFormatException.class, () -> TraceSource.read(t, "x", in -> {
            throw mine;
        })).getMessage());
        byte[] got = TraceSource.read(t, "x", in -> in.readAllBytes());
        assertEquals("[]", new String(got, StandardCharsets.UTF_8));
    }
}
