package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.HostOp;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * Vendor correlation ids are 64 bits end to end (ROCtracer's and MSPTI's are): through the join,
 * the flow arrows and the trace, an id past 2^32 or past 2^63 pairs its launch with its device
 * work and links them to the op, and is written as the unsigned number the vendor gave.
 */
class WideCorrelationIdTest {
    private static final EventTranslatorOneArg<TraceRecord, TraceRecord> COPY = (slot, sequence, from) -> slot.copyFrom(from);

    private static TraceRecord activity(EventKind kind, long correlation, long start, long end, NameTable names) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = kind;
        r.correlation(correlation);
        r.startNs = start;
        r.endNs = end;
        r.nameId = names.intern(kind == EventKind.RUNTIME ? "launch" : "work");
        r.threadId = 5;
        r.processId = 7;
        return r;
    }

    @Test
    void idsPast2To32And2To63PairAndLink() throws Exception {
        long[] ids = {1L << 40, 0x8000_0000_0000_0005L, -1L};
        NameTable names = new NameTable();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CapturePipeline pipeline = CapturePipeline.builder().names(names).apiNames(new UnavailableTracer("t").apiNames())
                .window(new CaptureWindowFilter(0, Long.MAX_VALUE)).header(new TraceHeader("t", List.of(), null, Map.of(), "p", 7))
                .format(TraceFormat.JSON).out(out).decodeStats(new DecodeStats()).producers(ProducerType.SINGLE).ringSize(1 << 6)
                .build();
        long t = 1_000_000;
        for (int k = 0; k < ids.length; k++) {
            pipeline.publish(new HostOp("op" + k, new ExternalId(k), 5, t + k * 1_000, t + k * 1_000 + 900));
            TraceRecord binding = new TraceRecord();
            binding.clear();
            binding.type = RecordType.CORRELATION_BINDING;
            binding.correlation(ids[k]);
            binding.externalId(k);
            // device record first, binding last: the join must park and release 64-bit ids too
            pipeline.publish(COPY, activity(EventKind.KERNEL, ids[k], t + k * 1_000 + 300, t + k * 1_000 + 400, names));
            pipeline.publish(COPY, activity(EventKind.RUNTIME, ids[k], t + k * 1_000 + 100, t + k * 1_000 + 200, names));
            pipeline.publish(COPY, binding);
        }
        OpSummary summary = pipeline.finish();
        JsonNode trace = TraceJson.MAPPER.readTree(out.toByteArray());
        List<String> flowIds = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText())) {
                int k = (int) e.get("args").get("External id").asLong();
                assertEquals(Long.toUnsignedString(ids[k]), e.get("args").get("correlation").bigIntegerValue().toString());
            }
            if ("ac2g".equals(e.path("cat").asText())) {
                flowIds.add(e.get("id").bigIntegerValue().toString() + e.get("ph").asText());
            }
        }
        List<String> expected = new ArrayList<>();
        for (long id : ids) {
            expected.add(Long.toUnsignedString(id) + "s");
            expected.add(Long.toUnsignedString(id) + "f");
        }
        java.util.Collections.sort(flowIds);
        java.util.Collections.sort(expected);
        assertEquals(expected, flowIds, "one paired arrow per device record, keyed by the unsigned id");
        for (int k = 0; k < ids.length; k++) {
            assertEquals(0.1, summary.row("op" + k).selfDeviceTimeTotalUs(), 1e-9, "device time reached op" + k);
        }
    }
}
