package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * The ring-full policy: with the writer stalled and the ring full, a user thread publishing host
 * ops never blocks; the ops kept aside all reach the trace at the end, and the count says so.
 */
class RingFullPolicyTest {
    /** An output that blocks every write until released: a stalled disk. */
    private static final class StalledOutput extends OutputStream {
        final CountDownLatch release = new CountDownLatch(1);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public void write(int b) throws IOException {
            await();
            bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            await();
            bytes.write(b, off, len);
        }

        private void await() throws IOException {
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
    }

    @Test
    void userThreadsNeverBlockAndNoOpIsLost() throws Exception {
        StalledOutput out = new StalledOutput();
        CaptureWindowFilter window = new CaptureWindowFilter(1_000, Long.MAX_VALUE);
        CapturePipeline pipeline = CapturePipeline.builder().names(new NameTable()).apiNames(new UnavailableTracer("test").apiNames())
                .window(window).header(new TraceHeader("t.json", List.of(), null, Map.of(), "test", 1)).format(TraceFormat.JSON)
                .out(out).decodeStats(new DecodeStats()).producers(ProducerType.MULTI).ringSize(8).build();
        int ops = 1_000;
        Thread user = new Thread(() -> {
            for (int i = 0; i < ops; i++) {
                pipeline.publish(new HostOp("op", new ExternalId(i), 1, 2_000 + i * 10L, 2_005 + i * 10L));
            }
        });
        user.start();
        user.join(TimeUnit.SECONDS.toMillis(10));
        assertTrue(!user.isAlive(), "the user's thread returned with the writer stalled and the ring full");
        window.windowEnd(1_000_000);
        out.release.countDown();
        pipeline.finish();
        assertTrue(pipeline.accounting().opsSpilled() > 0, "some ops found the ring full");
        JsonNode trace = TraceJson.MAPPER.readTree(out.bytes.toByteArray());
        long written = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            written += "cpu_op".equals(e.path("cat").asText()) ? 1 : 0;
        }
        assertEquals(ops, written, "every op kept aside reached the trace");
        assertEquals(pipeline.accounting().opsSpilled(), trace.get("flagtrace").get("ring_full").get("ops_kept_aside").asLong());
    }
}
