package org.flagos.trace.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.OpSummaryRow;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * h200-mt4: five threads whose ops overlap in time. The summary must nest ops per thread; this
 * test recomputes every row from the ops file and the trace's device events, independently of
 * flagtrace's own nesting code (plain quadratic containment per thread).
 */
class PerThreadNestingTest {
    @Test
    void summaryRowsEqualAnIndependentPerThreadComputation() {
        List<HostOp> ops = OpsJsonlReader.read(Captures.ops("h200-mt4")).ops();
        TraceJson.Replayed t = TraceJson.replay("h200-mt4");

        Map<Long, Long> deviceNsByExternalId = new HashMap<>();
        for (JsonNode e : t.events()) {
            String cat = e.path("cat").asText();
            if ((cat.equals("kernel") || cat.equals("gpu_memcpy") || cat.equals("gpu_memset")) && e.get("args").has("External id")) {
                long ns = e.get("dur").decimalValue().movePointRight(3).longValueExact();
                deviceNsByExternalId.merge(e.get("args").get("External id").asLong(), ns, Long::sum);
            }
        }
        int n = ops.size();
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = -1;
            HostOp op = ops.get(i);
            for (int j = 0; j < n; j++) {
                HostOp candidate = ops.get(j);
                if (j != i && candidate.thread() == op.thread() && candidate.startNs() <= op.startNs() && op.endNs() <= candidate.endNs()
                        && (candidate.startNs() != op.startNs() || candidate.endNs() != op.endNs() || j < i)
                        && (parent[i] < 0 || narrower(candidate, ops.get(parent[i])))) {
                    parent[i] = j;
                }
            }
        }
        Map<String, long[]> expected = new HashMap<>(); // count, cpu, selfCpu, device, selfDevice
        for (HostOp op : ops) {
            expected.computeIfAbsent(op.name(), k -> new long[5]);
        }
        for (int i = 0; i < n; i++) {
            HostOp op = ops.get(i);
            long self = deviceNsByExternalId.getOrDefault(op.externalId().value(), 0L);
            long[] row = expected.get(op.name());
            row[0]++;
            row[1] += op.endNs() - op.startNs();
            row[2] += op.endNs() - op.startNs();
            row[4] += self;
            for (int a = i; a >= 0; a = parent[a]) {
                expected.get(ops.get(a).name())[3] += self; // own device time counts for every ancestor
            }
            if (parent[i] >= 0) {
                expected.get(ops.get(parent[i]).name())[2] -= op.endNs() - op.startNs();
            }
        }
        // runtime calls are children of the op whose External id they carry (KeyAveragesRule): out of its self CPU
        Map<Long, HostOp> byId = new HashMap<>();
        for (HostOp op : ops) {
            byId.put(op.externalId().value(), op);
        }
        for (JsonNode e : t.events()) {
            String cat = e.path("cat").asText();
            if ((cat.equals("cuda_runtime") || cat.equals("cuda_driver")) && e.path("args").has("External id")) {
                HostOp op = byId.get(e.get("args").get("External id").asLong());
                if (op != null) {
                    expected.get(op.name())[2] -= e.get("dur").decimalValue().movePointRight(3).longValueExact();
                }
            }
        }
        OpSummary summary = t.result().summary();
        assertEquals(expected.size(), summary.rows().size());
        for (OpSummaryRow row : summary.rows()) {
            long[] e = expected.get(row.name());
            assertEquals(e[0], row.count(), row.name());
            assertEquals(e[1] / 1000.0, row.cpuTimeTotalUs(), 1e-6, row.name());
            assertEquals(e[2] / 1000.0, row.selfCpuTimeTotalUs(), 1e-6, row.name());
            assertEquals(e[3] / 1000.0, row.deviceTimeTotalUs(), 1e-6, row.name());
            assertEquals(e[4] / 1000.0, row.selfDeviceTimeTotalUs(), 1e-6, row.name());
        }
        OpSummaryRow step = summary.row("app::worker_step");
        assertTrue(step.deviceTimeTotalUs() > 0 && step.selfDeviceTimeTotalUs() == 0,
                "worker_step launches nothing itself; its children do");
    }

    @Test
    void workerOpsOfDifferentThreadsOverlapSoNestingMustBePerThread() {
        List<HostOp> ops = OpsJsonlReader.read(Captures.ops("h200-mt4")).ops();
        boolean overlap = false;
        for (HostOp a : ops) {
            for (HostOp b : ops) {
                overlap |= a.name().equals("app::worker_step") && b.name().equals("app::worker_relu")
                        && a.thread() != b.thread() && b.startNs() >= a.startNs() && b.endNs() <= a.endNs();
            }
        }
        assertTrue(overlap, "a worker_relu of one thread lies inside another thread's worker_step");
    }

    private static boolean narrower(HostOp a, HostOp b) {
        return a.endNs() - a.startNs() < b.endNs() - b.startNs();
    }
}
