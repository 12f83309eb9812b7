package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.api.Test;

/**
 * CUPTI's callback-id namespace: every runtime and driver call of the H200 kinds capture is named as
 * {@code cuptiGetCallbackName} named it (less the {@code _vNNNN} suffix torch drops), each domain
 * from its own table; ids outside a table have no name; the generic labels are torch's.
 */
class CuptiApiNamesTest {
    private static final CuptiApiNames NAMES = CuptiApiNames.INSTANCE;

    @Test
    void everyCallOfTheKindsCaptureIsNamedAsCuptiNamedIt() {
        int runtime = 0;
        int driver = 0;
        for (JsonNode t : TruthRecord.read(Captures.truth("h200-kinds/h200-kinds"))) {
            String kind = t.get("kind").asText();
            if (!kind.equals("runtime") && !kind.equals("driver")) {
                continue;
            }
            EventKind eventKind = kind.equals("driver") ? EventKind.DRIVER : EventKind.RUNTIME;
            int cbid = t.get("cbid").asInt();
            assertEquals(t.get("name").asText().replaceFirst("_v\\d{4,5}$", ""), NAMES.name(eventKind, cbid), kind + " " + cbid);
            if (eventKind == EventKind.DRIVER) {
                driver++;
            } else {
                runtime++;
            }
        }
        assertTrue(runtime > 0 && driver > 0, runtime + " runtime, " + driver + " driver calls");
    }

    @Test
    void theDomainPicksTheTable() {
        assertEquals("cuInit", NAMES.name(EventKind.DRIVER, 1));
        assertEquals("cudaDriverGetVersion", NAMES.name(EventKind.RUNTIME, 1));
        assertEquals(NAMES.name(EventKind.RUNTIME, 1), NAMES.name(EventKind.KERNEL, 1), "anything not DRIVER reads the runtime table");
    }

    @Test
    void anIdOutsideATableHasNoName() {
        assertNull(NAMES.name(EventKind.DRIVER, 0), "0 is CUPTI's INVALID id");
        assertNull(NAMES.name(EventKind.RUNTIME, 0));
        assertNull(NAMES.name(EventKind.DRIVER, -1));
        assertEquals("cuDriverGetGpuCodeIsaVersion", NAMES.name(EventKind.DRIVER, CuptiDriverCbidNames.NAMES.length - 1));
        assertNull(NAMES.name(EventKind.DRIVER, CuptiDriverCbidNames.NAMES.length));
        assertEquals("cudaDeviceGetP2PAtomicCapabilities", NAMES.name(EventKind.RUNTIME, CuptiRuntimeCbidNames.NAMES.length - 1));
        assertNull(NAMES.name(EventKind.RUNTIME, CuptiRuntimeCbidNames.NAMES.length));
        assertNull(NAMES.name(EventKind.RUNTIME, Integer.MAX_VALUE));
    }

    @Test
    void theGenericLabelsAreTorchs() {
        assertEquals("cudaDriver", NAMES.genericLabel(EventKind.DRIVER));
        assertEquals("cudaRuntime", NAMES.genericLabel(EventKind.RUNTIME));
        assertEquals("cuda_runtime", NAMES.category(EventKind.RUNTIME));
    }
}
