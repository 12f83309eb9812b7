package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a trace file is cut ({@link TraceChunks}), and the byte ranges its chunks read ({@link FileRange}). */
class TraceChunksTest {
    @TempDir
    Path dir;

    Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    static String events(int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append(i == 0 ? "" : i % 3 == 0 ? " ,\n " : ",").append("{\"ph\":\"X\",\"name\":\"e").append(i).append("\",\"ts\":").append(i)
                    .append(",\"dur\":1}");
        }
        return s.toString();
    }

    static TraceChunks.Plan plan(Path p, long head, long chunk) throws IOException {
        try (FileChannel f = FileChannel.open(p)) {
            return TraceChunks.plan(f, f.size(), head, chunk);
        }
    }

    @Test
    void theFirstCutIsParsedAndCountsTheEventsBeforeIt() throws IOException {
        String text = "{\"a\":{\"x\":[1,2,{\"y\":\"},{\"}]},\"traceEvents\":[" + events(200) + "],\"b\":1}";
        Path p = file("t.json", text);
        TraceChunks.Plan plan = plan(p, 300, 1000);
        assertNotNull(plan);
        long first = plan.cuts()[0];
        assertEquals(',', text.charAt((int) first));
        String before = text.substring(0, (int) first);
        assertEquals(plan.headEvents(), before.split("\"ph\"").length - 1, "events before the first cut");
        assertTrue(first >= 300 && before.endsWith("}"), before);
        for (long cut : plan.cuts()) {
            assertEquals(',', text.charAt((int) cut));
            assertEquals('}', text.substring(0, (int) cut).strip().charAt(text.substring(0, (int) cut).strip().length() - 1), "before " + cut);
            assertEquals('{', text.substring((int) cut + 1).strip().charAt(0), "after " + cut);
        }
        assertTrue(plan.middleChunks() >= 4, plan.middleChunks() + " middle chunks");
        assertEquals(false, plan.bareArray());
    }

    @Test
    void aBareArrayIsCutToo() throws IOException {
        TraceChunks.Plan plan = plan(file("b.json", " \n[" + events(200) + "]"), 100, 1000);
        assertNotNull(plan);
        assertTrue(plan.bareArray());
    }

    @Test
    void whatIsNotAPlainJsonTraceIsNotCut() throws IOException {
        assertNull(plan(file("small.json", "{\"traceEvents\":[" + events(3) + "]}"), 100, 1000), "too few events for two chunks");
        assertNull(plan(file("scalar.json", "42"), 0, 10));
        assertNull(plan(file("other.json", "{\"traceEvents\":7,\"x\":[" + events(200) + "]}"), 10, 100), "traceEvents not an array");
        assertNull(plan(file("notobj.json", "{\"traceEvents\":[1," + events(200) + "]}"), 10, 100), "an element that is no event");
        byte[] utf16 = ("{\"traceEvents\":[" + events(200) + "]}").getBytes(StandardCharsets.UTF_16BE);
        assertNull(plan(Files.write(dir.resolve("u16.json"), utf16), 10, 100), "UTF-16");
        assertNull(plan(Files.write(dir.resolve("g.json.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0}), 0, 10), "gzip");
    }

    @Test
    void cutFromFindsTheNextCommaBetweenBracesOnly() throws IOException {
        String text = "{\"a\":1, \"b\":[1,2],\"c\":{}\n,\t{\"d\":2}}";
        Path p = file("c.json", text);
        try (FileChannel f = FileChannel.open(p)) {
            assertEquals(text.indexOf("\n,") + 1, TraceChunks.cutFrom(f, 0, f.size()));
            assertEquals(-1, TraceChunks.cutFrom(f, text.indexOf("\n,") + 2, f.size()));
        }
    }

    @Test
    void aFileRangeReadsItsBytesOnlyAndLeavesTheChannelOpen() throws IOException {
        Path p = file("r.txt", "0123456789");
        try (FileChannel f = FileChannel.open(p)) {
            try (InputStream in = new FileRange(f, 2, 7)) {
                assertEquals('2', in.read());
                assertArrayEquals("3456".getBytes(StandardCharsets.US_ASCII), in.readAllBytes());
                assertEquals(-1, in.read());
            }
            assertTrue(f.isOpen());
            try (InputStream in = new FileRange(f, 8, 20)) {
                assertArrayEquals("89".getBytes(StandardCharsets.US_ASCII), in.readAllBytes(), "to the file's end");
            }
        }
    }
}
