package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.lmax.disruptor.dsl.ProducerType;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/** {@link CapturePipeline.Builder}: each required part refused by name when missing, the ring checked, the defaults working. */
class CapturePipelineBuilderTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private CapturePipeline.Builder complete() {
        return CapturePipeline.builder().names(new NameTable()).apiNames(new UnavailableTracer("t").apiNames())
                .window(CaptureWindowFilter.unbounded()).header(new TraceHeader("t", List.of(), null, Map.of(), "p", 1))
                .format(TraceFormat.JSON).out(out).decodeStats(new DecodeStats()).producers(ProducerType.SINGLE);
    }

    @Test
    void eachRequiredPartIsRefusedByItsNameWhenMissing() {
        Map<String, UnaryOperator<CapturePipeline.Builder>> unset = Map.of(
                "names", b -> b.names(null), "apiNames", b -> b.apiNames(null), "vendorStages", b -> b.vendorStages(null),
                "window", b -> b.window(null), "header", b -> b.header(null), "format", b -> b.format(null),
                "out", b -> b.out(null), "decodeStats", b -> b.decodeStats(null), "producers", b -> b.producers(null));
        unset.forEach((part, without) -> {
            NullPointerException refused = assertThrows(NullPointerException.class, () -> without.apply(complete()).build());
            assertEquals(part, refused.getMessage());
        });
    }

    @Test
    void aRingThatIsNoPowerOfTwoOrTooLargeIsRefused() {
        IllegalArgumentException odd = assertThrows(IllegalArgumentException.class, () -> complete().ringSize(1000).build());
        assertTrue(odd.getMessage().contains("power of two"), odd.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> complete().ringSize(0).build());
        assertTrue(none.getMessage().contains("power of two"), none.getMessage());
    }

    @Test
    void withTheDefaultsAnEmptyCaptureIsAWholeTrace() throws Exception {
        try (CapturePipeline pipeline = complete().build()) {
            pipeline.expectNoHostOps();
            pipeline.finish();
        }
        assertTrue(TraceJson.MAPPER.readTree(out.toByteArray()).get("traceEvents").isArray());
    }
}
