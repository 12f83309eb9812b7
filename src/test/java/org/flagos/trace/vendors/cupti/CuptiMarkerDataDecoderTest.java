package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The NVTX attribute flyweight ({@code CUpti_ActivityMarkerData2}) against CUPTI's own decoding of the
 * three attributed ranges of each H200 kinds capture (payload, ARGB color, category).
 */
class CuptiMarkerDataDecoderTest {

    @Test
    void everyMarkerDataReadsAsCuptiDecodedIt() {
        CuptiMarkerDataDecoder d = new CuptiMarkerDataDecoder(CuptiRecordLayout.CUPTI_13_0);
        int seen = 0;
        for (String capture : FixtureRecords.KINDS) {
            for (FixtureRecords.Record r : FixtureRecords.of(capture, "marker_data", CuptiActivityKind.MARKER_DATA)) {
                JsonNode t = r.truth();
                d.wrap(r.buffer(), r.offset());
                assertEquals(t.get("id").asInt(), d.id(), capture);
                assertEquals(t.get("payloadKind").asInt(), d.payloadKind(), capture);
                assertEquals(t.get("payload").get("raw").asLong(), d.payloadBits(), capture);
                assertEquals(t.get("color").asLong(), Integer.toUnsignedLong(d.color()), capture);
                assertEquals(t.get("category").asInt(), d.category(), capture);
                seen++;
            }
        }
        assertEquals(6, seen);
        // the first of h200-kinds, as its truth line gives it: marker 5, payload 42, color 0xFF76B900, category 7
        FixtureRecords.Record first = FixtureRecords.of("h200-kinds/h200-kinds", "marker_data", CuptiActivityKind.MARKER_DATA).get(0);
        d.wrap(first.buffer(), first.offset());
        assertEquals(List.of(5, 42L, 0xFF76B900, 7), List.of(d.id(), d.payloadBits(), d.color(), d.category()));
    }

    @Test
    void aRecordMustHoldTheFieldsItReads() {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        CuptiMarkerDataDecoder d = new CuptiMarkerDataDecoder(CuptiRecordLayout.CUPTI_13_0);
        assertThrows(IndexOutOfBoundsException.class, () -> d.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(39), 0));
        CuptiMarkerDataDecoder v12 = new CuptiMarkerDataDecoder(CuptiRecordLayout.CUPTI_12_1);
        b.putInt(28, 3);
        assertEquals(3, v12.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(CuptiMarkerDataDecoder.FIELDS_END), 0).category());
        assertThrows(IndexOutOfBoundsException.class,
                () -> v12.wrap(b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(CuptiMarkerDataDecoder.FIELDS_END - 1), 0));
    }
}
