package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.api.Test;

/** A vendor names its API records' category (torch's privateuse1_runtime); the writer takes it as given. */
class ApiCategoryTest {
    @Test
    void theVendorsRuntimeCategoryIsWritten() throws Exception {
        String name = "h200-app-tiny2k";
        NameTable names = new NameTable();
        ActivityBufferDecoder decoder = Vendors.decoderFor(1).create(KernelNameFile.read(Captures.names(name)), names, List.of());
        ApiNames cupti = decoder.apiNames();
        ApiNames privateUse1 = new ApiNames() {
            @Override
            public String name(EventKind kind, int cbid) {
                return cupti.name(kind, cbid);
            }

            @Override
            public String genericLabel(EventKind kind) {
                return cupti.genericLabel(kind);
            }

            @Override
            public String category(EventKind kind) {
                return kind == EventKind.RUNTIME ? "privateuse1_runtime" : kind.category();
            }
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DecodeStats stats = new DecodeStats();
        try (CapturePipeline pipeline = CapturePipeline.builder().names(names).apiNames(privateUse1)
                .window(CaptureWindowFilter.unbounded()).header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1))
                .format(TraceFormat.JSON).out(out).decodeStats(stats).producers(ProducerType.SINGLE).ringSize(1 << 10).build()) {
            FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture(name)), name);
            while (frames.next()) {
                decoder.decode(frames.payload(), pipeline, stats);
            }
            pipeline.finish();
        }
        JsonNode trace = TraceJson.MAPPER.readTree(out.toByteArray());
        long privateuse = 0;
        long cuda = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            privateuse += "privateuse1_runtime".equals(e.path("cat").asText()) ? 1 : 0;
            cuda += "cuda_runtime".equals(e.path("cat").asText()) ? 1 : 0;
        }
        assertEquals(0, cuda);
        assertEquals(stats.published(EventKind.RUNTIME), privateuse);
        assertTrue(privateuse > 0);
    }
}
