package org.flagos.trace.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records the vendor reports dropping are counted in the trace, in the CLI lines and on the session. */
class LossAccountingTest {
    @TempDir
    Path dir;

    /** A tracer whose vendor overflowed its buffers during the session. */
    private static final class OverflowingTracer implements DeviceTracer {
        private final DeviceTracer base = new UnavailableTracer("test");

        public String name() { return "overflowing"; }
        public boolean available() { return true; }
        public String unavailableReason() { return ""; }
        public ApiNames apiNames() { return base.apiNames(); }
        public void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) { }
        public void stop() { }
        public boolean pushCorrelation(ExternalId id) { return false; }
        public void popCorrelation() { }
        public int deviceCount() { return 0; }
        public List<DeviceProperties> deviceProperties() { return List.of(); }
        public long droppedByVendor() { return 7; }
        public long timestampNs() { return base.timestampNs(); }
    }

    @Test
    void vendorDropsAreCountedEverywhere() throws Exception {
        Path out = dir.resolve("t.json");
        ProfilerSession session = ProfilerSession.open(new OverflowingTracer(), SessionOptions.to(out));
        java.io.PrintStream saved = System.err;
        System.setErr(new java.io.PrintStream(java.io.OutputStream.nullOutputStream())); // the "nothing delivered" warning
        try {
            session.op("op").close();
            session.close();
        } finally {
            System.setErr(saved);
        }
        assertEquals(7, session.accounting().vendorDropped());
        assertTrue(session.accounting().lines().stream().anyMatch(l -> l.contains("dropped 7 records")));
        JsonNode trace = TraceJson.MAPPER.readTree(out.toFile());
        assertEquals(7, trace.get("flagtrace").get("vendor_dropped").asLong());
    }
}
