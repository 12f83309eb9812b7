package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * A replay publishes through {@link SlotBatch}: batches of a sixteenth of the ring, the last one
 * published part full at the end. The trace must not depend on where the batches fall: the same
 * capture with its host ops, replayed through rings from one slot per batch to one batch larger
 * than the capture, gives the same bytes (less the producer's waits, a measurement of the run).
 */
class SlotBatchTest {
    private static final String NAME = "h200-app-tiny2k";

    @Test
    void theTraceDoesNotDependOnTheBatchSize() throws Exception {
        String reference = replay(1 << 14); // batches of 1,024, as a CLI replay
        assertTrue(reference.contains("\"ph\":\"X\""), "the trace has events");
        for (int ringSize : new int[] {8, 16, 64, 1 << 10}) { // batches of 1, 1, 4 and 64 slots
            assertEquals(reference, replay(ringSize), "ring of " + ringSize);
        }
    }

    private static String replay(int ringSize) throws Exception {
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(NAME)), NAME)
                .ops(OpsJsonlReader.read(Captures.ops(NAME))).kernelNames(KernelNameFile.read(Captures.names(NAME)))
                .ringSize(ringSize).build();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureReplay.Result result = CaptureReplay.run(request, out);
        assertTrue(result.events() > 0);
        return out.toString(StandardCharsets.UTF_8)
                .replaceFirst("\"ring_full\":\\{\"producer_waits\":\\d+,\"ops_kept_aside\":\\d+}", "");
    }
}
