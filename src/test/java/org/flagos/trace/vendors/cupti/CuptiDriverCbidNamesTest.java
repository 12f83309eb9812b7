package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.api.Test;

/**
 * The generated driver callback-id table (CUDA 13.0's {@code cupti_driver_cbid.h}) against CUPTI's own
 * {@code cuptiGetCallbackName} for every driver record of the H200 kinds and managed captures (the
 * only ones with driver records). Driver names are real symbols and keep their {@code _v2}.
 */
class CuptiDriverCbidNamesTest {

    @Test
    void everyDriverCallCuptiNamedInTheCapturesHasThatName() {
        Map<Integer, String> seen = new TreeMap<>();
        for (String capture : List.of("h200-kinds/h200-kinds", "h200-managed/h200-managed")) {
            for (JsonNode t : TruthRecord.read(Captures.truth(capture))) {
                if (t.get("kind").asText().equals("driver")) {
                    int cbid = t.get("cbid").asInt();
                    assertEquals(t.get("name").asText(), CuptiDriverCbidNames.NAMES[cbid], capture + " cbid " + cbid);
                    assertEquals(t.get("name").asText(), CuptiApiNames.INSTANCE.name(EventKind.DRIVER, cbid));
                    seen.put(cbid, t.get("name").asText());
                }
            }
        }
        assertEquals(21, seen.size(), seen.toString());
        assertTrue(seen.containsValue("cuMemAlloc_v2"), "a versioned symbol kept whole: " + seen);
        assertTrue(seen.containsValue("cuCtxCreate_v4"), seen.toString());
    }

    @Test
    void theTableSpansTheHeadersIds() {
        assertNull(CuptiDriverCbidNames.NAMES[0], "CUPTI_DRIVER_TRACE_CBID_INVALID");
        // spot checks against cupti_driver_cbid.h (CUDA 13.0)
        assertEquals("cuInit", CuptiDriverCbidNames.NAMES[1]);
        assertEquals("cuCtxSynchronize", CuptiDriverCbidNames.NAMES[17]);
        assertEquals("cuLaunchKernel", CuptiDriverCbidNames.NAMES[307]);
        assertEquals("cuCtxSynchronize_v2", CuptiDriverCbidNames.NAMES[800]);
        int named = 0;
        for (String n : CuptiDriverCbidNames.NAMES) {
            if (n != null) {
                named++;
                assertTrue(n.matches("cu[A-Za-z0-9_]+"), n);
            }
        }
        assertEquals(806, named);
    }
}
