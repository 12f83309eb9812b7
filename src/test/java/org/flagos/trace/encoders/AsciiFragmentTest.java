package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The raw-JSON fragment's own contract: only the window {@code [from, to)} of its bytes is handed on,
 * every copy refuses (-1) a destination too small instead of writing part of it, the quoted forms are
 * refused, and Jackson writes the fragment as one raw value.
 */
class AsciiFragmentTest {

    /** A fragment over {@code text}, with {@code pad} bytes of garbage on each side of the window. */
    private static AsciiFragment fragment(String text, int pad) {
        AsciiFragment f = new AsciiFragment(text.length() + 2 * pad) {
        };
        for (int i = 0; i < f.bytes.length; i++) {
            f.bytes[i] = 'x';
        }
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, f.bytes, pad, b.length);
        f.from = pad;
        f.to = pad + b.length;
        return f;
    }

    @Test
    void onlyTheWindowIsHandedOn() throws IOException {
        AsciiFragment f = fragment("123.456", 5);
        assertEquals(7, f.length());
        assertEquals("123.456", f.getValue());
        assertEquals("123.456", f.toString());
        assertEquals(7, f.charLength());
        assertArrayEquals("123.456".getBytes(StandardCharsets.US_ASCII), f.asUnquotedUTF8());
        byte[] into = new byte[10];
        assertEquals(7, f.appendUnquotedUTF8(into, 2));
        assertEquals("\u0000\u0000123.456\u0000", new String(into, StandardCharsets.US_ASCII));
        char[] chars = new char[8];
        assertEquals(7, f.appendUnquoted(chars, 1));
        assertEquals("\u0000123.456", new String(chars));
        ByteBuffer buffer = ByteBuffer.allocate(7);
        assertEquals(7, f.putUnquotedUTF8(buffer));
        assertEquals("123.456", new String(buffer.array(), StandardCharsets.US_ASCII));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(7, f.writeUnquotedUTF8(out));
        assertEquals("123.456", out.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void aDestinationTooSmallGetsNothing() {
        AsciiFragment f = fragment("123.456", 3);
        byte[] into = new byte[8];
        assertEquals(-1, f.appendUnquotedUTF8(into, 2));
        assertArrayEquals(new byte[8], into, "nothing written");
        char[] chars = new char[8];
        assertEquals(-1, f.appendUnquoted(chars, 2));
        assertArrayEquals(new char[8], chars);
        ByteBuffer buffer = ByteBuffer.allocate(6);
        assertEquals(-1, f.putUnquotedUTF8(buffer));
        assertEquals(0, buffer.position());
        assertEquals(7, f.appendUnquotedUTF8(into, 1), "exactly enough room");
    }

    @Test
    void quotedFormsAreRefused() {
        AsciiFragment f = fragment("1", 0);
        assertThrows(UnsupportedOperationException.class, f::asQuotedChars);
        assertThrows(UnsupportedOperationException.class, f::asQuotedUTF8);
        assertThrows(UnsupportedOperationException.class, () -> f.appendQuotedUTF8(new byte[4], 0));
        assertThrows(UnsupportedOperationException.class, () -> f.appendQuoted(new char[4], 0));
        assertThrows(UnsupportedOperationException.class, () -> f.writeQuotedUTF8(new ByteArrayOutputStream()));
        assertThrows(UnsupportedOperationException.class, () -> f.putQuotedUTF8(ByteBuffer.allocate(4)));
    }

    @Test
    void jacksonWritesItAsOneRawValue() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeFieldName("ts");
            g.writeRawValue(fragment("-0.001", 4));
            g.writeFieldName("dur");
            g.writeRawValue(fragment("12.5", 0));
            g.writeEndObject();
        }
        assertEquals("{\"ts\":-0.001,\"dur\":12.5}", out.toString(StandardCharsets.US_ASCII));
    }
}
