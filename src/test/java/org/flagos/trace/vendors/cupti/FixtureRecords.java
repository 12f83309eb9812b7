package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.flagos.trace.vendors.activity.RecordWalk;

/**
 * The records of one CUPTI kind in a bundled H200 capture, walked with CUPTI 13.0's sizes, beside the
 * lines CUPTI's own decoding wrote for them (its truth file), both in file order: what a flyweight's
 * own test reads field by field.
 */
final class FixtureRecords {
    /** The captures whose truth files hold every kind of issue 16 (sync, overhead, markers, driver calls). */
    static final List<String> KINDS = List.of("h200-kinds/h200-kinds", "h200-managed/h200-managed");

    record Record(ByteBuffer buffer, int offset, int kind, JsonNode truth) {
    }

    /**
     * Every record of {@code cuptiKinds} in {@code capture}, each with the truth line of kind
     * {@code truthKind} (and, when the truth carries it, the same {@code cuptiKind}) at the same rank.
     */
    static List<Record> of(String capture, String truthKind, int... cuptiKinds) {
        List<JsonNode> truth = new ArrayList<>();
        for (JsonNode t : TruthRecord.read(Captures.truth(capture))) {
            if (t.get("kind").asText().equals(truthKind)) {
                truth.add(t);
            }
        }
        List<Record> out = new ArrayList<>();
        for (Record r : walk(capture, cuptiKinds)) {
            out.add(new Record(r.buffer(), r.offset(), r.kind(), out.size() < truth.size() ? truth.get(out.size()) : null));
        }
        assertEquals(truth.size(), out.size(), capture + ": " + truthKind + " records");
        for (Record r : out) {
            if (r.truth().has("cuptiKind")) {
                assertEquals(r.truth().get("cuptiKind").asInt(), r.kind(), capture + ": " + truthKind + " in file order");
            }
        }
        return out;
    }

    /** Every record of {@code cuptiKinds} in {@code capture}, in file order, without truth lines. */
    static List<Record> walk(String capture, int... cuptiKinds) {
        List<Record> out = new ArrayList<>();
        RecordWalk walk = new RecordWalk("CUPTI", CuptiRecordLayout.CUPTI_13_0::recordSize, "");
        DecodeStats stats = new DecodeStats();
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(capture)), capture);
        while (frames.next()) {
            ByteBuffer buffer = walk.start(frames.payload(), stats);
            for (int pos = walk.next(); pos >= 0; pos = walk.next()) {
                for (int k : cuptiKinds) {
                    if (walk.kind() == k) {
                        out.add(new Record(buffer, pos, k, null));
                    }
                }
            }
        }
        assertEquals(0, stats.undecodableBytes(), capture);
        return out;
    }

    private FixtureRecords() {
    }
}
