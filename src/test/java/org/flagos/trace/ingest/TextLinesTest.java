package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounded, strict-UTF-8 lines of ops files and name tables. */
class TextLinesTest {
    private static List<String> lines(byte[] bytes) throws IOException {
        List<String> out = new ArrayList<>();
        try (TextLines lines = TextLines.of(new ByteArrayInputStream(bytes), "f")) {
            for (String line; (line = lines.next()) != null; ) {
                out.add(lines.number() + ":" + line);
            }
        }
        return out;
    }

    @Test
    void linesEndAtNewlinesACarriageReturnBeforeOneIsDroppedAndTheLastNeedsNone() throws IOException {
        assertEquals(List.of("1:a", "2:", "3:b c", "4:\u00e9\u4e2d"),
                lines("a\r\n\nb c\n\u00e9\u4e2d".getBytes(StandardCharsets.UTF_8)));
        assertEquals(List.of(), lines(new byte[0]));
    }

    @Test
    void aLineOfExactlyTheLimitIsReadAndOneByteMoreIsRefusedWithItsNumber() throws IOException {
        byte[] limit = new byte[TextLines.MAX_LINE_BYTES + 2];
        Arrays.fill(limit, (byte) 'x');
        limit[0] = '\n';
        limit[limit.length - 1] = '\n'; // line 2: exactly MAX_LINE_BYTES
        assertEquals(2, lines(limit).size());
        byte[] over = Arrays.copyOf(limit, limit.length + 1);
        over[over.length - 2] = 'x';
        over[over.length - 1] = '\n';
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> lines(over));
        assertTrue(e.getMessage().startsWith("f:2: a line longer than 1048576 bytes"), e.getMessage());
    }

    @Test
    void bytesThatAreNotUtf8NameTheirLine() {
        byte[] bytes = {'o', 'k', '\n', 'b', (byte) 0xc3, '\n'}; // 0xc3 begins a two-byte character that never comes
        CaptureFormatException e = assertThrows(CaptureFormatException.class, () -> lines(bytes));
        assertTrue(e.getMessage().startsWith("f:2: not UTF-8 text"), e.getMessage());
    }

    @Test
    void decodedTextIsBoundedToo() throws IOException {
        char[] chars = new char[TextLines.MAX_LINE_BYTES + 1];
        Arrays.fill(chars, 'y');
        try (TextLines lines = TextLines.of(new java.io.StringReader("first\n" + new String(chars)), "r")) {
            assertEquals("first", lines.next());
            CaptureFormatException e = assertThrows(CaptureFormatException.class, lines::next);
            assertTrue(e.getMessage().startsWith("r:2:"), e.getMessage());
        }
        try (TextLines lines = TextLines.of(new java.io.StringReader("x"), "r")) {
            assertEquals("x", lines.next());
            assertNull(lines.next());
        }
    }
}
