package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.api.Test;

/**
 * The API-record flyweight ({@code CUpti_ActivityAPI}, runtime and driver calls alike) against CUPTI's
 * own decoding of every runtime and driver record of the H200 kinds and managed captures.
 */
class CuptiApiDecoderTest {
    static final List<String> CAPTURES = FixtureRecords.KINDS;

    @ParameterizedTest
    @FieldSource("CAPTURES")
    void everyRuntimeAndDriverCallReadsAsCuptiDecodedIt(String capture) {
        CuptiApiDecoder api = new CuptiApiDecoder(new CuptiRecordTimes());
        int calls = 0;
        for (String kind : List.of("runtime", "driver")) {
            int cuptiKind = kind.equals("runtime") ? CuptiActivityKind.RUNTIME : CuptiActivityKind.DRIVER;
            for (FixtureRecords.Record r : FixtureRecords.of(capture, kind, cuptiKind)) {
                JsonNode t = r.truth();
                String where = capture + " " + kind + " correlation " + t.get("correlation");
                api.wrap(r.buffer(), r.offset());
                assertEquals(cuptiKind, api.kind(), where);
                assertEquals(t.get("cbid").asInt(), api.cbid(), where);
                assertEquals(t.get("start").asLong(), api.rawStart(), where);
                assertEquals(t.get("end").asLong(), api.rawEnd(), where);
                assertEquals(t.get("processId").asInt(), api.processId(), where);
                assertEquals(t.get("thread").asLong(), api.threadId(), where);
                assertEquals(t.get("correlation").asLong(), api.correlationId(), where);
                assertEquals(t.get("returnValue").asInt(), api.returnValue(), where);
                calls++;
            }
        }
        assertTrue(calls > 400, capture + ": " + calls + " calls");
    }

    @Test
    void idsAreUnsigned32BitsAndARecordMustBeWhole() {
        ByteBuffer b = ByteBuffer.allocate(CuptiApiDecoder.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(28, 0xF000_0001).putInt(32, 0x8000_0000).putInt(36, -1);
        CuptiApiDecoder api = new CuptiApiDecoder(new CuptiRecordTimes()).wrap(b, 0);
        assertEquals(0xF000_0001L, api.threadId(), "a thread id past 2^31 stays positive");
        assertEquals(0x8000_0000L, api.correlationId());
        assertEquals(-1, api.returnValue());
        assertEquals(40, CuptiRecordLayout.CUPTI_13_0.recordSize(CuptiActivityKind.RUNTIME));
        ByteBuffer cut = b.duplicate().order(ByteOrder.LITTLE_ENDIAN).limit(CuptiApiDecoder.SIZE - 1);
        assertThrows(IndexOutOfBoundsException.class, () -> api.wrap(cut, 0));
    }
}
