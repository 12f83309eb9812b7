package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CUPTI-shaped tracer's lifecycle against the smallest fake: refusals end in one line, never a failed run. */
class CuptiFamilyTracerTest {
    @TempDir
    Path dir;

    /** A vendor with the smoke library's prefix and a decoder that only counts bytes. */
    static final class SmokeTracer extends CuptiFamilyTracer {
        SmokeTracer(String library) {
            super(new Profile("smoke", "smoke", "libsmoke.so", 99, new int[] {3}, 0, -1, true), library);
        }

        @Override
        public ApiNames apiNames() {
            return decoder(null, BufferTap.NONE).apiNames();
        }

        @Override
        protected ClockedDecoder decoder(NameTable names, BufferTap tap) {
            return new ClockedDecoder() {
                @Override
                public void clock(DeviceClockMapping mapping, long plausibleFromNs, long plausibleToNs) {
                }

                @Override
                public void decode(ByteBuffer buffer, RecordSink sink, DecodeStats stats) {
                    stats.undecodable(buffer.remaining(), "smoke records are not activity records");
                }

                @Override
                public ApiNames apiNames() {
                    return new ApiNames() {
                        @Override
                        public String name(EventKind kind, int cbid) {
                            return null;
                        }

                        @Override
                        public String genericLabel(EventKind kind) {
                            return "smokeApi";
                        }
                    };
                }
            };
        }
    }

    @Test
    void aMissingLibraryIsUnavailableWithItsPathAndReason() {
        SmokeTracer tracer = new SmokeTracer(dir.resolve("libabsent.so").toString());
        assertFalse(tracer.available());
        assertTrue(tracer.unavailableReason().contains("libabsent.so"), tracer.unavailableReason());
    }

    @Test
    void aRefusedActivationIsOneLineAndTheCpuSideProfileIsStillWritten() throws Exception {
        SmokeTracer tracer = new SmokeTracer(FakeVendorLibrary.build("fake_smoke").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("smokeRefuseRegistration", 1);
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Path trace = dir.resolve("trace.json");
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try (ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace))) {
                try (OpScope op = session.op("app::step")) {
                    assertFalse(tracer.pushFailures() > 0);
                }
            }
        } finally {
            System.setErr(err);
            tracer.invoke("smokeRefuseRegistration", 0);
        }
        String lines = captured.toString(StandardCharsets.UTF_8);
        assertEquals(1, lines.lines().filter(l -> l.contains("could not start")).count(), lines);
        assertTrue(lines.contains("returned 39") && lines.contains("CPU-side profiling continues"), lines);
        assertEquals(1, tracer.activationFailures());
        JsonNode events = TraceJson.MAPPER.readTree(trace.toFile()).get("traceEvents");
        boolean op = false;
        for (JsonNode e : events) {
            op |= "cpu_op".equals(e.path("cat").asText()) && "app::step".equals(e.path("name").asText());
        }
        assertTrue(op, "the host op is in the trace");
    }
}
