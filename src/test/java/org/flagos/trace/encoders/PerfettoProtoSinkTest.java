package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.report.DeviceWorkStats;
import org.flagos.trace.report.TraceFile;
import org.flagos.trace.stages.names.ItaniumDemangler;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PerfettoProtoSink} against the capture's own truth: the bundled h200-app-tiny2k capture replayed to a
 * {@code .pftrace} starts with a protobuf packet, and read back, every kernel name the CUPTI fake's truth log holds
 * (demangled, as traces name kernels) has that many device slices lasting, in all, exactly the ns the log's records last; its memcpy and memset records are
 * device slices too (2,032 in all); with its 2,227 runtime calls and 2,021 host ops, every record is one slice.
 */
class PerfettoProtoSinkTest {
    private static final String CAPTURE = "h200-app-tiny2k";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void theDeviceSlicesAreTheCapturesKernelsToTheNanosecond() throws Exception {
        Path pf = dir.resolve("tiny2k.pftrace");
        try (OutputStream out = Files.newOutputStream(pf)) {
            CaptureReplay.run(CaptureReplay.request(Captures.capture(CAPTURE), Captures.ops(CAPTURE), Captures.names(CAPTURE),
                    List.of(), Map.of()).withFormat(TraceFormat.PERFETTO), out);
        }
        assertEquals(0x0A, Files.readAllBytes(pf)[0], "a TracePacket (field 1, length-delimited) first");

        Map<String, long[]> truth = new TreeMap<>(); // kernel name: calls, total ns
        long deviceRecords = 0;
        try (BufferedReader in = Files.newBufferedReader(Captures.truth(CAPTURE))) {
            for (String line; (line = in.readLine()) != null; ) {
                JsonNode r = JSON.readTree(line);
                String kind = r.path("kind").asText();
                if (kind.equals("kernel")) {
                    long[] t = truth.computeIfAbsent(ItaniumDemangler.demangle(r.get("name").asText()), k -> new long[2]);
                    t[0]++;
                    t[1] += r.get("end").asLong() - r.get("start").asLong();
                }
                if (kind.equals("kernel") || kind.equals("memcpy") || kind.equals("memset")) {
                    deviceRecords++;
                }
            }
        }
        assertEquals(2032, deviceRecords, "2,021 kernels, 4 memcpy, 7 memset in the log");

        TraceFile read = TraceFile.read(pf);
        Map<String, DeviceWorkStats.Row> rows = new TreeMap<>();
        long slices = 0;
        for (DeviceWorkStats.Row row : read.deviceWorkStats()) {
            rows.put(row.name(), row);
            slices += row.calls();
        }
        assertEquals(deviceRecords, slices, "one device slice per device record");
        assertTrue(truth.size() > 1, truth.keySet().toString());
        for (Map.Entry<String, long[]> t : truth.entrySet()) {
            DeviceWorkStats.Row row = rows.get(t.getKey());
            assertTrue(row != null, "no slices named " + t.getKey() + " in " + rows.keySet());
            assertEquals(t.getValue()[0], row.calls(), t.getKey());
            assertEquals(t.getValue()[1], row.totalNs(), t.getKey());
        }
        long opsInFile;
        try (var lines = Files.lines(Captures.ops(CAPTURE))) {
            opsInFile = lines.filter(l -> l.contains("\"name\"")).count();
        }
        assertEquals(2021, opsInFile);
        assertEquals(deviceRecords + 2227 + opsInFile, read.events(), "every device record, the log's 2,227 runtime calls and"
                + " every host op: one complete slice each");
    }
}
