package org.flagos.trace.parity;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * The C++ capture of every record kind (captures/h200-kinds/, its README) against torch 2.11's plain
 * (unscheduled) trace of the same work, recorded in the same device command.
 */
class TorchKindsParityTest extends TorchTwinParity {
    @Override
    protected JsonNode ourTrace() throws IOException {
        return replay("h200-kinds/h200-kinds");
    }

    @Override
    protected JsonNode torchTrace() throws IOException {
        return gzipped("h200-kinds/h200-kinds.torch.pt.trace.json.gz");
    }
}
