package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * The runtime calls left unrecorded: the six torch's profiler leaves out, named through the generated
 * cbid table, absent from torch's own trace of the H200 kinds workload, and the same list in the
 * injected library's C source (the in-process session and {@code flagtrace run} switch off the same calls).
 */
class CuptiUnrecordedCallsTest {
    static final List<String> TORCH_LEAVES_OUT = List.of("cudaSetDevice", "cudaGetDevice", "cudaGetLastError", "cudaEventCreate",
            "cudaEventCreateWithFlags", "cudaEventDestroy");

    @Test
    void theIdsNameTheSixCallsTorchLeavesOut() {
        List<String> names = new ArrayList<>();
        for (int cbid : CuptiUnrecordedCalls.RUNTIME_CBIDS) {
            names.add(CuptiRuntimeCbidNames.NAMES[cbid]);
        }
        assertEquals(TORCH_LEAVES_OUT, names);
    }

    @Test
    void torchsOwnTraceHasNoneOfThemButKeepsTheCallsThatLaunch() throws IOException {
        JsonNode trace;
        try (InputStream in = Captures.open(Captures.dir().resolve("h200-kinds/h200-kinds.torch.pt.trace.json.gz"))) {
            trace = TraceJson.MAPPER.readTree(in);
        }
        TreeSet<String> runtime = new TreeSet<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("cuda_runtime".equals(e.path("cat").asText())) {
                runtime.add(e.path("name").asText());
            }
        }
        assertTrue(runtime.contains("cudaLaunchKernel"), runtime.toString());
        for (String quiet : TORCH_LEAVES_OUT) {
            assertTrue(!runtime.contains(quiet), quiet + " in torch's trace: " + runtime);
        }
    }

    @Test
    void theInjectedLibrarySwitchesOffTheSameCalls() throws IOException {
        int[] inC = InjectedLibrarySource.intArray("RUNTIME_CALLS_OFF");
        assertEquals(Arrays.toString(CuptiUnrecordedCalls.RUNTIME_CBIDS), Arrays.toString(inC));
    }
}
