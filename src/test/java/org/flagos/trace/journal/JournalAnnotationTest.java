package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.wire.ReadMarshallable;
import net.openhft.chronicle.wire.Wire;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireType;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.HostOpCursor;
import org.flagos.trace.model.ExternalId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user annotation in the journal: its op document carries {@code annotation: true}, it reads back
 * as one and is exported as a {@code user_annotation}; a plain op's document has no such field (the
 * document an older build wrote) and stays a {@code cpu_op}; an older build's reader, which knows no
 * such field, still finds the document's check after it.
 */
class JournalAnnotationTest {
    @TempDir
    Path tmp;

    private Path journal() throws IOException {
        Path dir = tmp.resolve("steps");
        try (JournalWriter writer = JournalWriter.open(JournalOptions.to(dir),
                new JournalSession("steps", "test", 1_000, List.of(), Map.of(), -1, false))) {
            writer.op(new HostOp("work", new ExternalId(1), 7, 1_010, 1_050, "main"));
            writer.op(new HostOp("ProfilerStep#0", new ExternalId(0), 7, 1_000, 1_100, "main", null, null, true));
            writer.stop(2_000);
        }
        return dir;
    }

    @Test
    void theFlagIsJournaledReadBackAndExportedAsAUserAnnotation() throws IOException {
        Path dir = journal();
        List<HostOp> ops = new ArrayList<>();
        try (JournalReader reader = JournalReader.open(dir)) {
            reader.scan();
            try (HostOpCursor cursor = reader.ops()) {
                for (HostOp op; (op = cursor.next()) != null; ) {
                    ops.add(op);
                }
            }
        }
        assertEquals(2, ops.size());
        assertFalse(ops.get(0).annotation(), "work is an op");
        assertTrue(ops.get(1).annotation(), "the step is an annotation");

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);
        List<String> drawn = new ArrayList<>();
        for (JsonNode e : JournalFixtures.complete(export.trace())) {
            drawn.add(e.get("cat").asText() + " " + e.get("name").asText());
            if ("user_annotation".equals(e.get("cat").asText())) {
                List<String> keys = new ArrayList<>();
                e.get("args").fieldNames().forEachRemaining(keys::add);
                assertEquals(List.of("External id", "Record function id", "Ev Idx"), keys, e.toString());
            }
        }
        assertTrue(drawn.containsAll(List.of("user_annotation ProfilerStep#0", "cpu_op work")), drawn.toString());
        assertFalse(drawn.contains("cpu_op ProfilerStep#0"), drawn.toString());
        assertEquals(0, export.result().facts().invalidOps());
    }

    /** The op document's fields as a build before the flag read them: seq to stack, then the check. */
    private static final class OlderOp implements ReadMarshallable {
        long seq;
        String name;
        long check;

        @Override
        public void readMarshallable(WireIn w) {
            seq = w.read("seq").int64();
            name = w.read("name").text();
            w.read("externalId").int64();
            w.read("thread").int64();
            w.read("threadName").text();
            w.read("startNs").int64();
            w.read("endNs").int64();
            w.read("args").text();
            w.read("stack").text();
            check = w.read("check").int64();
        }
    }

    @Test
    void anOlderReaderSkipsTheFlagAndFindsTheCheck() {
        JournalDocuments.Op op = new JournalDocuments.Op();
        op.seq = 41;
        op.name = "ProfilerStep#3";
        op.threadName = "main";
        op.startNs = 1;
        op.endNs = 2;
        op.annotation = true;
        for (WireType type : List.of(WireType.BINARY_LIGHT, WireType.BINARY)) {
            Wire wire = type.apply(Bytes.allocateElasticOnHeap());
            wire.write(JournalSchema.OP).marshallable(op);
            OlderOp older = new OlderOp();
            wire.read(JournalSchema.OP).marshallable(older);
            assertEquals(41, older.seq, type.toString());
            assertEquals("ProfilerStep#3", older.name);
            assertEquals(~41L, older.check, type + ": the check after the field an older build does not know");

            Wire again = type.apply(Bytes.allocateElasticOnHeap());
            again.write(JournalSchema.OP).marshallable(op);
            JournalDocuments.Op read = new JournalDocuments.Op();
            again.read(JournalSchema.OP).marshallable(read);
            assertNull(read.invalid());
            assertTrue(read.toHostOp().annotation(), type.toString());
        }
    }
}
