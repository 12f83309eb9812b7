package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * The summary computed through temporary files (buffers a few records wide, so every sort writes
 * many runs and the device-time join moves to a mapped file) equals the one computed in memory,
 * torch's table byte for byte included, and leaves no file behind.
 */
class SpillingSummaryTest {
    @TempDir
    Path dir;

    /** A builder whose sorts hold 8 records and whose join holds 2 External ids before spilling. */
    KeyAveragesBuilder tiny(Path spill) {
        return new KeyAveragesBuilder(spill, 8 * KeyAveragesBuilder.RESULT_WIDTH, 2);
    }

    static long filesIn(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.count();
        }
    }

    @Test
    void torchsTableByteForByteThroughTheDisk() throws Exception {
        Path spill = Files.createDirectory(dir.resolve("spill"));
        TraceFile trace = TraceFile.read(TorchKeyAveragesTest.resource("torch_trace.json"), TraceFile.DEFAULT_MAX_EVENTS, tiny(spill));
        assertTrue(trace.spilledBytes() > 120 * 6 * 8, "spilled " + trace.spilledBytes() + " bytes");
        assertEquals(0, filesIn(spill), "every temporary file deleted");
        assertEquals(Files.readString(TorchKeyAveragesTest.resource("key_averages.txt")),
                KeyAveragesTable.render(KeyAverages.of(trace), SortKey.SELF_DEVICE_TIME_TOTAL, 40));
        assertEquals(0, TraceFile.read(TorchKeyAveragesTest.resource("torch_trace.json")).spilledBytes(), "fits in memory");
    }

    @Test
    void aReplayedCaptureGivesTheSameRowsAndStreamsEitherWay() throws Exception {
        String name = Captures.EVERY.get(0);
        Path json = dir.resolve(name + ".json");
        try (OutputStream out = Files.newOutputStream(json)) {
            CaptureReplay.run(CaptureReplay.request(Captures.capture(name), Captures.ops(name), null, List.of(), Map.of()), out);
        }
        Path spill = Files.createDirectory(dir.resolve("spill"));
        TraceFile inMemory = TraceFile.read(json);
        TraceFile spilled = TraceFile.read(json, TraceFile.DEFAULT_MAX_EVENTS, tiny(spill));
        assertTrue(spilled.spilledBytes() > 0);
        assertEquals(0, filesIn(spill));
        assertTrue(inMemory.averages().rows().size() > 3);
        assertEquals(inMemory.averages().rows(), spilled.averages().rows(), "rows, order and every double");
        assertEquals(inMemory.events(), spilled.events());
        assertEquals(inMemory.streams().streams().size(), spilled.streams().streams().size());
        for (int i = 0; i < inMemory.streams().streams().size(); i++) {
            assertEquals(inMemory.streams().streams().get(i).totalNs(), spilled.streams().streams().get(i).totalNs());
        }
    }

    @Test
    void theReportShowsKernelsNamedLikeTheirOps() throws Exception {
        // a triton op, its launch and its kernel of the op's name: the kernel is a device row, so
        // the "top device work" chart has its bar, as the stream strip has its busy time
        StringBuilder ev = new StringBuilder("{\"traceEvents\":[");
        for (int i = 0; i < 3; i++) {
            long t = 100L * i;
            ev.append(i == 0 ? "" : ",")
                    .append("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"triton_red_fused_0\",\"pid\":1,\"tid\":1,\"ts\":").append(t)
                    .append(",\"dur\":10,\"args\":{\"External id\":").append(i).append("}},")
                    .append("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"triton_red_fused_0\",\"pid\":0,\"tid\":7,\"ts\":").append(t + 20)
                    .append(",\"dur\":80,\"args\":{\"External id\":").append(i).append("}}");
        }
        Path p = Files.writeString(dir.resolve("triton.json"), ev.append("]}").toString());
        TraceFile trace = TraceFile.read(p);
        String html = HtmlReport.render("triton.json", trace, KeyAverages.of(trace));
        assertFalse(html.contains("No device time in this trace"), html);
        Document doc = HtmlReportTest.parse(html);
        assertNotNull(HtmlReportTest.byId(doc, "svg", "top-kernels"));
        assertEquals("triton_red_fused_0: 240.000us over 3 calls",
                ((org.w3c.dom.Element) HtmlReportTest.byId(doc, "svg", "top-kernels").getElementsByTagName("title").item(0))
                        .getTextContent());
        assertNotNull(HtmlReportTest.byId(doc, "svg", "streams"));
        assertTrue(html.contains("busy 240.000us (85.7%)"), "240 us busy over the 280 us device span");
    }
}
