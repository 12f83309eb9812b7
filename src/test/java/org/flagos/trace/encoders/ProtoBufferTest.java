package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The protobuf wire format as the encoding guide (protobuf.dev/programming-guides/encoding) spells it:
 * its own examples byte for byte, 64-bit varints, little-endian fixed64, and nested messages whose
 * length outgrows the one byte reserved for it.
 */
class ProtoBufferTest {
    private static String hex(ProtoBuffer b) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.writeTo(out);
        assertEquals(b.size(), out.size());
        return HexFormat.of().formatHex(out.toByteArray());
    }

    @Test
    void theEncodingGuidesExamples() throws Exception {
        ProtoBuffer b = new ProtoBuffer();
        b.uint64(1, 150); // message Test1 { int32 a = 1; } with a = 150
        assertEquals("089601", hex(b));
        b.clear();
        b.string(2, "testing"); // Test2 { string b = 2; }
        assertEquals("120774657374696e67", hex(b));
        b.clear();
        b.begin(3); // Test3 { Test1 c = 3; }
        b.uint64(1, 150);
        b.end();
        assertEquals("1a03089601", hex(b));
    }

    @Test
    void varintsUseAll64Bits() throws Exception {
        ProtoBuffer b = new ProtoBuffer();
        b.int64(1, -1); // two's complement: ten bytes
        assertEquals("08ffffffffffffffffff01", hex(b));
        b.clear();
        b.uint64(1, 0);
        b.uint64(2, 127);
        b.uint64(3, 128);
        b.uint64(16, 1); // a two-byte tag
        assertEquals("0800107f1880018001" + "01", hex(b));
        b.clear();
        b.uint64(1, Long.MIN_VALUE);
        assertEquals("0880808080808080808001", hex(b));
    }

    @Test
    void fixed64AndDoublesAreLittleEndian() throws Exception {
        ProtoBuffer b = new ProtoBuffer();
        b.fixed64(1, 0x0102030405060708L);
        b.float64(2, 1.0);
        assertEquals("09" + "0807060504030201" + "11" + "000000000000f03f", hex(b));
    }

    @Test
    void aNestedMessagePastOneLengthByteIsMovedToMakeRoom() throws Exception {
        ProtoBuffer b = new ProtoBuffer();
        b.begin(1);
        b.begin(2);
        byte[] body = new byte[300];
        java.util.Arrays.fill(body, (byte) 'x');
        b.bytes(3, body); // 1 tag + 2 length + 300 = 303 bytes
        b.end();
        b.uint64(4, 5);
        b.end();
        // inner: 12 af02 <303 bytes>; outer body = 1 + 2 + 303 + 2 = 308 = b4 02
        String x = "78".repeat(300);
        assertEquals("0a" + "b402" + "12" + "af02" + "1a" + "ac02" + x + "2005", hex(b));
    }

    @Test
    void anAsciiTripleIsItsTextInALengthField() throws Exception {
        ProtoBuffer b = new ProtoBuffer();
        b.asciiTriple(5, 8, -1, Long.MIN_VALUE);
        String text = "[8,-1,-9223372036854775808]";
        assertEquals("2a" + String.format("%02x", text.length()) + HexFormat.of().formatHex(text.getBytes(StandardCharsets.US_ASCII)),
                hex(b));
        b.clear();
        b.asciiTriple(5, 0, 10, Long.MAX_VALUE);
        assertEquals("2a" + "1a" + HexFormat.of().formatHex("[0,10,9223372036854775807]".getBytes(StandardCharsets.US_ASCII)), hex(b));
    }

    @Test
    void theBufferGrowsPastItsFirst64KiB() throws Exception {
        ProtoBuffer b = new ProtoBuffer();
        byte[] chunk = new byte[40_000];
        b.bytes(1, chunk);
        b.bytes(2, chunk);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.writeTo(out);
        byte[] all = out.toByteArray();
        assertEquals(2 * (1 + 3 + 40_000), all.length);
        assertArrayEquals(new byte[] {0x12, (byte) 0xc0, (byte) 0xb8, 0x02}, java.util.Arrays.copyOfRange(all, 40_004, 40_008));
    }

    @Test
    void nestingIsBoundedAndClearStartsOver() throws Exception {
        ProtoBuffer b = new ProtoBuffer();
        for (int i = 0; i < 8; i++) {
            b.begin(1);
        }
        assertEquals("protobuf nesting deeper than 8", assertThrows(IllegalStateException.class, () -> b.begin(1)).getMessage());
        b.clear();
        assertEquals(0, b.size());
        b.begin(1); // depth was reset
        b.end();
        assertEquals("0a00", hex(b));
    }
}
