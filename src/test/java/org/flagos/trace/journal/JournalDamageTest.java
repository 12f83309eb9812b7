package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cut or corrupted journal: one clear line, and every event before the damage. */
class JournalDamageTest {
    private static final int OPS = 1000;

    @TempDir
    Path tmp;

    /** A journal of {@code OPS} host ops named op-0 ... op-999 (a 5-character suffix keeps each name unique in the file). */
    private Path opsJournal() throws IOException {
        Path dir = tmp.resolve("ops");
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                new JournalSession("ops", "test", 1_000, List.of(), Map.of(), -1, false))) {
            for (int i = 0; i < OPS; i++) {
                writer.op(new HostOp(String.format("op-%05d", i), new ExternalId(i), 7, 1_000 + i * 10L, 1_000 + i * 10L + 5));
            }
            writer.stop(1_000 + OPS * 10L);
        }
        return dir;
    }

    @Test
    void aCutFileKeepsEveryOpBeforeTheCut() throws IOException {
        Path dir = opsJournal();
        Path file = cycleFile(dir);
        long at = find(file, "op-00500".getBytes(StandardCharsets.UTF_8));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(at + 3);
        }

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        String damage = export.result().replay().truncation();
        assertNotNull(damage, "the cut is reported");
        assertTrue(damage.startsWith(dir.toString()) && !damage.contains("\n"), damage);
        assertEquals(names(0, 500), opNames(export.trace()));
    }

    @Test
    void aGarbledDocumentKeepsEveryOpBeforeIt() throws IOException {
        Path dir = opsJournal();
        Path file = cycleFile(dir);
        long at = find(file, "op-00500".getBytes(StandardCharsets.UTF_8));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at - 6);
            f.write(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1});
        }

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        assertNotNull(export.result().replay().truncation());
        assertEquals(names(0, 500), opNames(export.trace()));
    }

    @Test
    void aCorruptedBufferFailsItsCrcAndEverythingBeforeItIsKept() throws IOException {
        String capture = "h200-app-tiny2k";
        Path dir = tmp.resolve("tiny2k");
        JournalFixtures.journal(capture, dir);
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(capture)), capture);
        assertTrue(frames.next());
        ByteBuffer payload = frames.payload();
        byte[] probe = new byte[64];
        payload.duplicate().position(payload.position() + payload.remaining() / 2).get(probe);
        Path file = cycleFile(dir);
        long at = find(file, probe);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at + 10);
            int b = f.read();
            f.seek(at + 10);
            f.write(b ^ 0x40);
        }

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);

        String damage = export.result().replay().truncation();
        assertTrue(damage != null && damage.contains("CRC"), String.valueOf(damage));
        int opsInCapture = org.flagos.trace.ingest.OpsJsonlReader.read(Captures.ops(capture)).ops().size();
        assertEquals(opsInCapture, opNames(export.trace()).size(), "the ops journaled before the buffer are all there");
        for (JsonNode e : JournalFixtures.complete(export.trace())) {
            assertFalse("kernel".equals(e.path("cat").asText()), "nothing of the corrupted buffer: " + e);
        }
    }

    static Path cycleFile(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            List<Path> cycles = files.filter(p -> p.toString().endsWith(".cq4")).toList();
            assertEquals(1, cycles.size(), cycles.toString());
            return cycles.get(0);
        }
    }

    /** The offset of the first occurrence of {@code needle} in {@code file}. */
    static long find(Path file, byte[] needle) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        outer:
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (bytes[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found in " + file);
    }

    private static List<String> names(int from, int to) {
        List<String> names = new ArrayList<>();
        for (int i = from; i < to; i++) {
            names.add(String.format("op-%05d", i));
        }
        return names;
    }

    static List<String> opNames(JsonNode trace) {
        List<String> names = new ArrayList<>();
        for (JsonNode e : JournalFixtures.complete(trace)) {
            if ("cpu_op".equals(e.path("cat").asText())) {
                names.add(e.path("name").asText());
            }
        }
        names.sort(null);
        return names;
    }
}
