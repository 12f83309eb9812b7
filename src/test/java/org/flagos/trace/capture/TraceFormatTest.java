package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.journal.JournalWindow;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TargetScratch;
import org.junit.jupiter.api.Test;

/**
 * The trace's format is a value of the request or the session options, picked from a file name by
 * the one suffix table ({@link TraceFormat#forPath}) and handed to {@link CapturePipeline}: the
 * output stream's type never chooses it.
 */
class TraceFormatTest {
    private static final String CAPTURE = "h200-app";

    private static CaptureReplay.Request request() {
        return CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(CAPTURE)), CAPTURE)
                .ops(OpsJsonlReader.read(Captures.ops(CAPTURE))).kernelNames(KernelNameFile.read(Captures.names(CAPTURE)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
    }

    @Test
    void theRequestsFormatIsWrittenWhateverTheStreamWasOpenedFor() throws Exception {
        try (TargetScratch scratch = TargetScratch.of("trace-format")) {
            Path named = scratch.dir().resolve("named.pftrace");
            try (AtomicOutput out = new AtomicOutput(named)) {
                CaptureReplay.run(request(), out.stream()); // the request's default: JSON
                out.finish();
                out.commit();
            }
            assertEquals('{', Files.readAllBytes(named)[0], "a .pftrace name alone does not make Perfetto: the request says JSON");

            ByteArrayOutputStream memory = new ByteArrayOutputStream();
            CaptureReplay.run(request().withFormat(TraceFormat.PERFETTO), memory);
            assertEquals(0x0a, memory.toByteArray()[0], "a plain stream gets Perfetto's TracePacket (field 1) when asked");

            Path viaName = scratch.dir().resolve("by-name.pftrace");
            try (AtomicOutput out = new AtomicOutput(viaName)) {
                CaptureReplay.run(request().withFormat(TraceFormat.of(viaName)), out.stream());
                out.finish();
                out.commit();
            }
            assertEquals(new String(memory.toByteArray(), java.nio.charset.StandardCharsets.ISO_8859_1),
                    new String(Files.readAllBytes(viaName), java.nio.charset.StandardCharsets.ISO_8859_1),
                    "the same bytes through an AtomicOutput as through a plain stream");
        }
    }

    @Test
    void parquetThroughAnAtomicOutputLeavesNoScratch() throws Exception {
        try (TargetScratch scratch = TargetScratch.of("trace-format-parquet")) {
            Path table = scratch.dir().resolve("t.parquet");
            try (AtomicOutput out = new AtomicOutput(table)) {
                CaptureReplay.run(request().withFormat(TraceFormat.PARQUET), out.stream());
                out.finish();
                out.commit();
            }
            byte[] bytes = Files.readAllBytes(table);
            assertEquals("PAR1", new String(bytes, 0, 4, java.nio.charset.StandardCharsets.US_ASCII));
            try (var files = Files.list(scratch.dir())) {
                assertEquals(List.of(table), files.toList(), "DuckDB's scratch, made beside the target, is gone");
            }
        }
    }

    @Test
    void aCaptureRequestCarriesItsFormat() {
        CaptureReplay.Request plain = request();
        assertEquals(TraceFormat.JSON, plain.format(), "JSON unless asked");
        CaptureReplay.Request perfetto = plain.withFormat(TraceFormat.PERFETTO);
        assertEquals(TraceFormat.PERFETTO, perfetto.format());
        assertEquals(TraceFormat.PERFETTO, perfetto.withoutGpuAnnotations().format(), "kept through other changes");
        assertEquals(TraceFormat.PARQUET, perfetto.toBuilder().format(TraceFormat.PARQUET).build().format());
        assertThrows(NullPointerException.class, () -> plain.toBuilder().format(null).build());
    }

    @Test
    void aJournalRequestCarriesItsFormat() {
        JournalReplay.Request plain = JournalReplay.Request.of(Path.of("j"), JournalWindow.ALL);
        assertEquals(TraceFormat.JSON, plain.format());
        JournalReplay.Request parquet = plain.withFormat(TraceFormat.PARQUET).withoutGpuAnnotations();
        assertEquals(TraceFormat.PARQUET, parquet.format());
        assertFalse(parquet.gpuAnnotations());
        assertEquals(plain.journal(), parquet.journal());
        assertThrows(NullPointerException.class, () -> new JournalReplay.Request(Path.of("j"), JournalWindow.ALL, List.of(),
                Map.of(), 64, true, null));
    }

    @Test
    void sessionOptionsTakeTheTracesNameUnlessToldOtherwise() {
        assertEquals(TraceFormat.PERFETTO, SessionOptions.to(Path.of("a.pftrace")).traceFormat());
        assertEquals(TraceFormat.PERFETTO, SessionOptions.to(Path.of("a.pftrace.gz")).traceFormat());
        assertEquals(TraceFormat.PARQUET, SessionOptions.to(Path.of("a.parquet")).traceFormat());
        assertEquals(TraceFormat.JSON, SessionOptions.to(Path.of("a.json.gz")).traceFormat());
        assertEquals(TraceFormat.JSON, SessionOptions.to(Path.of("/dev/null")).traceFormat(), "any other name: JSON");
        assertNull(SessionOptions.to(Path.of("a.pftrace")).format(), "not fixed: a template's cycles each take their name's");

        SessionOptions template = SessionOptions.defaults();
        assertEquals(TraceFormat.PARQUET, template.withTrace(Path.of("c.parquet")).traceFormat());
        assertEquals(TraceFormat.JSON, template.withTrace(Path.of("c.json")).traceFormat());

        SessionOptions told = SessionOptions.to(Path.of("a.json")).withFormat(TraceFormat.PERFETTO);
        assertEquals(TraceFormat.PERFETTO, told.traceFormat());
        assertEquals(TraceFormat.PERFETTO, told.withTrace(Path.of("b.json")).withStack(2).traceFormat(), "kept by the withers");
        assertNotEquals(told, SessionOptions.to(Path.of("a.json")));
    }

    @Test
    void theSuffixTableNamesEveryFormat() {
        for (TraceFormat f : TraceFormat.values()) {
            for (String suffix : f.suffixes()) {
                assertEquals(f, TraceFormat.of(Path.of("dir", "t" + suffix)), suffix);
            }
        }
        assertTrue(TraceFormat.forPath(Path.of("t.txt")).isEmpty());
    }
}
