package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureFormatException;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.journal.JournalOptions;
import org.flagos.trace.journal.JournalSession;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.journal.JournalWriter;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JournalReplay's own contract on journals of the real h200-mt4 capture: a window keeps exactly the device records
 * wholly inside it, and one outside the journal is refused naming the journal's span; buffers of another vendor are
 * skipped and said, a journal of a vendor no decoder reads is refused; devices given replace the journal's and
 * metadata given is added to its own; the request's defaults and withers.
 */
class JournalReplayTest {
    private static final String CAPTURE = "h200-mt4";
    private static final Set<String> DEVICE = Set.of("kernel", "gpu_memcpy", "gpu_memset");

    @TempDir
    Path dir;

    /** The capture journaled by {@link CaptureJournal} into {@code journal}, with its ops and names. */
    private static Path journal(Path journal) throws Exception {
        CaptureJournal.write(CaptureReplay.request(Captures.capture(CAPTURE), Captures.ops(CAPTURE), Captures.names(CAPTURE),
                List.of(), Map.of("journaled", "yes")), KernelNameFile.read(Captures.names(CAPTURE)).entries(), JournalOptions.to(journal));
        return journal;
    }

    private record Export(JournalReplay.Result result, JsonNode trace) {
    }

    private static Export export(JournalReplay.Request request) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JournalReplay.Result result = JournalReplay.run(request, out);
        return new Export(result, TraceJson.MAPPER.readTree(out.toByteArray()));
    }

    /** The device events of a trace, each {start, end} in epoch ns. */
    private static List<long[]> deviceSpans(JsonNode trace) {
        BigDecimal base = new BigDecimal(trace.get("baseTimeNanoseconds").asText());
        List<long[]> out = new java.util.ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && DEVICE.contains(e.path("cat").asText())) {
                BigDecimal ts = e.get("ts").decimalValue().movePointRight(3).add(base);
                out.add(new long[] {ts.longValueExact(), ts.add(e.get("dur").decimalValue().movePointRight(3)).longValueExact()});
            }
        }
        return out;
    }

    @Test
    void aWindowKeepsTheDeviceRecordsWhollyInsideIt() throws Exception {
        Path journal = journal(dir.resolve("j"));
        HostOps ops = OpsJsonlReader.read(Captures.ops(CAPTURE));
        Export all = export(JournalReplay.Request.of(journal, JournalWindow.ALL));
        assertEquals(ops.windowStartNs(), all.result().windowStartNs());
        assertEquals(ops.windowEndNs(), all.result().windowEndNs());
        assertEquals(List.of(), all.result().warnings());
        List<long[]> whole = deviceSpans(all.trace());
        assertTrue(whole.size() > 100, "device events " + whole.size());

        // from the start of the quarter-way device record to the end of the three-quarter-way one (the records are bunched)
        long lo = whole.stream().mapToLong(s -> s[0]).sorted().toArray()[whole.size() / 4];
        long hi = whole.stream().mapToLong(s -> s[1]).sorted().toArray()[whole.size() * 3 / 4];
        Export middle = export(JournalReplay.Request.of(journal, JournalWindow.of(Long.toString(lo), Long.toString(hi), null)));
        assertEquals(lo, middle.result().windowStartNs());
        assertEquals(hi, middle.result().windowEndNs());
        long inside = whole.stream().filter(s -> s[0] >= lo && s[1] <= hi).count();
        assertTrue(inside > 0 && inside < whole.size(), inside + " of " + whole.size());
        List<long[]> kept = deviceSpans(middle.trace());
        assertEquals(inside, kept.size(), "exactly the records wholly inside");
        for (long[] s : kept) {
            assertTrue(s[0] >= lo && s[1] <= hi, s[0] + " .. " + s[1]);
        }
    }

    @Test
    void aWindowOutsideTheJournalIsRefusedNamingItsSpan() throws Exception {
        Path journal = journal(dir.resolve("j"));
        HostOps ops = OpsJsonlReader.read(Captures.ops(CAPTURE));
        String after = Long.toString(ops.windowEndNs() + 1_000_000_000L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JournalReplay.WindowException e = assertThrows(JournalReplay.WindowException.class,
                () -> JournalReplay.run(JournalReplay.Request.of(journal, JournalWindow.of(after, null, null)), out));
        assertTrue(e.getMessage().startsWith(journal + ": --from " + after + " is after the journal's end; the journal spans "
                + ops.windowStartNs() + " .. "), e.getMessage());
        assertEquals(0, out.size(), "nothing written");
    }

    /** A journal of the capture's buffers, {@code foreign} buffers of vendor {@code vendor} after its first. */
    private static Path journalWith(Path journal, int vendor, int foreign, boolean capture) throws Exception {
        try (JournalWriter w = JournalWriter.open(JournalOptions.to(journal), new JournalSession("t", "test", -1, List.of(), Map.of(), -1,
                false)); org.flagos.trace.ingest.FltrbufFrames frames = org.flagos.trace.ingest.FltrbufFrames.open(Captures.capture(CAPTURE))) {
            KernelNameFile.read(Captures.names(CAPTURE)).entries().forEach(w::kernelName);
            boolean first = true;
            while (frames.next()) {
                if (capture) {
                    w.buffer(frames.vendor(), frames.payload());
                }
                for (int i = 0; first && i < foreign; i++) {
                    w.buffer(vendor, ByteBuffer.allocate(64 + i));
                }
                first = false;
            }
        }
        return journal;
    }

    @Test
    void buffersOfAnotherVendorAreSkippedAndSaid() throws Exception {
        Export plain = export(JournalReplay.Request.of(journalWith(dir.resolve("plain"), 2, 0, true), JournalWindow.ALL));
        Export mixed = export(JournalReplay.Request.of(journalWith(dir.resolve("mixed"), 2, 3, true), JournalWindow.ALL));
        assertEquals(plain.result().replay().events(), mixed.result().replay().events());
        assertEquals(deviceSpans(plain.trace()).size(), deviceSpans(mixed.trace()).size());
        String note = "3 buffers of another vendor than " + Vendors.dumpVendorName(1) + " skipped";
        assertTrue(mixed.result().replay().accounting().notes().contains(note), mixed.result().replay().accounting().notes().toString());
        assertFalse(plain.result().replay().accounting().notes().contains(note));
    }

    @Test
    void aJournalOfAVendorNoDecoderReadsIsRefused() throws Exception {
        Path journal = journalWith(dir.resolve("foreign"), 99, 2, false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CaptureFormatException e = assertThrows(CaptureFormatException.class,
                () -> JournalReplay.run(JournalReplay.Request.of(journal, JournalWindow.ALL), out));
        assertEquals(journal + ": buffers of unknown vendor 99 but this build has no decoder for it", e.getMessage());
        assertEquals(0, out.size());
    }

    @Test
    void devicesGivenReplaceTheJournalsAndMetadataGivenIsAdded() throws Exception {
        Path journal = journal(dir.resolve("j"));
        JsonNode own = export(JournalReplay.Request.of(journal, JournalWindow.ALL)).trace();
        assertEquals(0, own.path("deviceProperties").size(), "the capture has no devices beside it");
        assertEquals("yes", own.get("journaled").asText());
        JsonNode given = export(new JournalReplay.Request(journal, JournalWindow.ALL, TestDevices.h200(), Map.of("run", "r7"),
                1 << 12)).trace();
        assertEquals(TestDevices.h200().size(), given.get("deviceProperties").size());
        assertEquals(TestDevices.h200().get(0).name(), given.get("deviceProperties").get(0).get("name").asText());
        assertEquals("r7", given.get("run").asText());
        assertEquals("yes", given.get("journaled").asText(), "the journal's metadata kept");
    }

    @Test
    void theRequestsDefaultsAndWithers() {
        Path j = Path.of("j");
        JournalReplay.Request r = JournalReplay.Request.of(j, JournalWindow.ALL);
        assertEquals(new JournalReplay.Request(j, JournalWindow.ALL, List.of(), Map.of(), CapturePipeline.DEFAULT_RING_SIZE, true,
                TraceFormat.JSON), r);
        assertEquals(new JournalReplay.Request(j, JournalWindow.ALL, List.of(), Map.of(), CapturePipeline.DEFAULT_RING_SIZE, false,
                TraceFormat.PARQUET), r.withoutGpuAnnotations().withFormat(TraceFormat.PARQUET));
        assertThrows(NullPointerException.class, () -> r.withFormat(null));
    }
}
