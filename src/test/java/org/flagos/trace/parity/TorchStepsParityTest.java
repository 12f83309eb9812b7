package org.flagos.trace.parity;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;

/**
 * flagtrace's live capture of the kinds workload from Java under torch's step schedule
 * (captures/h200-java-steps/, its README) against torch 2.11's trace of the same work under the same
 * schedule (torch_kinds.py's scheduled run, its one cycle), recorded in the same device command. CUPTI
 * reported no overhead record during torch's cycle, so overhead is not asked of both.
 */
class TorchStepsParityTest extends TorchTwinParity {
    @Override
    protected JsonNode ourTrace() throws IOException {
        return replay("h200-java-steps/h200-java-steps");
    }

    @Override
    protected JsonNode torchTrace() throws IOException {
        return gzipped("h200-java-steps/h200-java-steps.torch.pt.trace.json.gz");
    }

    @Override
    protected List<String> categoriesInBoth() {
        return List.of("kernel", "gpu_memcpy", "cuda_runtime", "cuda_sync", "cpu_instant_event", "ac2g", "cpu_op",
                "user_annotation", "gpu_user_annotation");
    }
}
