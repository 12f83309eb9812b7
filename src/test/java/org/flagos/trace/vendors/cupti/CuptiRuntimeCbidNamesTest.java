package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.testing.TruthRecord;
import org.junit.jupiter.api.Test;

/**
 * The generated runtime callback-id table (CUDA 13.0's {@code cupti_runtime_cbid.h}) against two
 * readers of the same ids: CUPTI's own {@code cuptiGetCallbackName} for every runtime record of the
 * bundled H200 captures (the truth files, whose names keep CUPTI's {@code _vNNNN} suffix), and the
 * names torch's profiler wrote beside each {@code cbid} in its own trace of the kinds workload.
 */
class CuptiRuntimeCbidNamesTest {
    static final List<String> WITH_TRUTH = List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-tiny30k",
            "h200-kinds/h200-kinds", "h200-managed/h200-managed");

    @Test
    void everyRuntimeCallCuptiNamedInTheCapturesHasThatName() {
        Map<Integer, String> seen = new TreeMap<>();
        for (String capture : WITH_TRUTH) {
            for (JsonNode t : TruthRecord.read(Captures.truth(capture))) {
                if (t.get("kind").asText().equals("runtime")) {
                    int cbid = t.get("cbid").asInt();
                    String cupti = t.get("name").asText();
                    assertTrue(cupti.matches(".*_v\\d{4,5}"), cupti + ": CUPTI's name carries its version");
                    assertEquals(cupti.replaceFirst("_v\\d{4,5}$", ""), CuptiRuntimeCbidNames.NAMES[cbid], capture + " cbid " + cbid);
                    seen.put(cbid, cupti);
                }
            }
        }
        assertEquals(49, seen.size(), "distinct runtime calls in the captures: " + seen);
    }

    @Test
    void torchNamesTheSameCallbackIdsTheSame() throws IOException {
        JsonNode trace;
        try (InputStream in = Captures.open(Captures.dir().resolve("h200-kinds/h200-kinds.torch.pt.trace.json.gz"))) {
            trace = TraceJson.MAPPER.readTree(in);
        }
        Map<Integer, String> torch = new TreeMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cuda_runtime".equals(e.path("cat").asText()) && e.path("args").has("cbid")) {
                torch.put(e.get("args").get("cbid").asInt(), e.get("name").asText());
            }
        }
        assertEquals(20, torch.size(), torch.toString());
        for (Map.Entry<Integer, String> e : torch.entrySet()) {
            if (e.getKey() == 461) {
                // torch's kineto predates CUDA 12.3's cbid 461 and writes INVALID; the CUDA 13.0 header names it
                assertEquals("INVALID", e.getValue());
                assertEquals("cudaStreamGetCaptureInfo", CuptiRuntimeCbidNames.NAMES[461]);
                continue;
            }
            assertEquals(e.getValue(), CuptiRuntimeCbidNames.NAMES[e.getKey()], "cbid " + e.getKey());
        }
    }

    @Test
    void theTableSpansTheHeadersIdsWithoutVersionSuffixes() {
        // CUPTI_RUNTIME_TRACE_CBID_INVALID is 0; CUDA 13.0's last id is 522
        assertNull(CuptiRuntimeCbidNames.NAMES[0]);
        assertEquals(523, CuptiRuntimeCbidNames.NAMES.length);
        assertEquals("cudaDeviceGetP2PAtomicCapabilities", CuptiRuntimeCbidNames.NAMES[522]);
        // spot checks against cupti_runtime_cbid.h (CUDA 13.0)
        assertEquals("cudaDriverGetVersion", CuptiRuntimeCbidNames.NAMES[1]);
        assertEquals("cudaLaunchKernel_ptsz", CuptiRuntimeCbidNames.NAMES[214]);
        assertEquals("cudaStreamSynchronize_ptsz", CuptiRuntimeCbidNames.NAMES[239]);
        int named = 0;
        for (String n : CuptiRuntimeCbidNames.NAMES) {
            if (n != null) {
                named++;
                assertFalse(n.matches(".*_v\\d{4,5}"), n + " keeps CUPTI's version suffix: torch drops it");
                assertTrue(n.matches("_{0,2}cuda[A-Za-z0-9_]+"), n);
            }
        }
        assertEquals(522, named, "one name per id of the header");
        // the API-name view a record's cbid goes through
        assertEquals("cudaLaunchKernel", CuptiApiNames.INSTANCE.name(org.flagos.trace.model.EventKind.RUNTIME, 211));
    }
}
