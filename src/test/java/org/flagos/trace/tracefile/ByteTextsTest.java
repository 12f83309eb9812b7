package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link ByteTexts}: a text's bytes give that text, whatever texts came before (the same length, first and last eight
 * bytes, a different middle; an empty one; UTF-8; bytes at an array's very end), and a text seen lately is the same
 * string again.
 */
class ByteTextsTest {
    private static String text(ByteTexts texts, String s, int before, int after) {
        byte[] t = s.getBytes(StandardCharsets.UTF_8);
        byte[] b = new byte[before + t.length + after];
        Arrays.fill(b, (byte) '#');
        System.arraycopy(t, 0, b, before, t.length);
        return texts.text(b, before, before + t.length);
    }

    @Test
    void bytesGiveTheirTextWhateverCameBefore() {
        ByteTexts texts = new ByteTexts();
        String[] all = {"", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh_ijklmnop", "abcdefgh_Xjklmnop", "abcdefgh__ijklmnop",
            "abcdefghXXXXXXXXXXXXijklmnop", "abcdefghYYYYYYYYYYYYijklmnop", "Grüße µs 数", "x".repeat(1024), "x".repeat(1025)};
        for (int round = 0; round < 3; round++) {
            for (String s : all) {
                for (int after : new int[] {0, 3, 8, 20}) {
                    assertEquals(s, text(texts, s, 5, after), s + " with " + after + " bytes after it");
                    assertEquals(s, text(texts, s, 0, after));
                }
            }
        }
        String kernel = text(texts, "cudaLaunchKernel", 2, 0);
        assertSame(kernel, text(texts, "cudaLaunchKernel", 7, 9), "one string per text seen lately");
    }
}
