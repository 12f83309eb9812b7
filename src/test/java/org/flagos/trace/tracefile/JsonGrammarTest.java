package org.flagos.trace.tracefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonGrammar}: numbers, literals and string characters are taken where strict JSON has them and the fast paths
 * take them, declined ({@link JsonGrammar#UNUSUAL}) where not, and {@link JsonGrammar#MORE} where they reach the limit.
 */
class JsonGrammarTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@link JsonGrammar#number} on {@code s}, its limit its end. */
    private static long number(String s) {
        byte[] b = bytes(s);
        return JsonGrammar.number(b, 0, b.length);
    }

    @Test
    void numbersEndWhereTheGrammarDoes() {
        assertEquals(3, JsonGrammar.end(number("123,")));
        assertTrue(JsonGrammar.integral(number("-0}")));
        assertEquals(1, JsonGrammar.end(number("01"))); // a 0 ends the number: the 1 is the caller's to judge
        long point = number("1.25]");
        assertEquals(4, JsonGrammar.end(point));
        assertFalse(JsonGrammar.integral(point));
        assertEquals(0, point & JsonGrammar.EXPONENT);
        long exponent = number("2E+10,");
        assertEquals(5, JsonGrammar.end(exponent));
        assertEquals(JsonGrammar.EXPONENT, exponent & (JsonGrammar.POINT | JsonGrammar.EXPONENT));
        for (String bad : new String[] {"-x", ".5,", "1.,", "1e,", "+1,", "1" + "0".repeat(JsonGrammar.MAX_NUMBER) + ","}) {
            assertEquals(JsonGrammar.UNUSUAL, number(bad), bad);
        }
        for (String cut : new String[] {"", "-", "12", "1.", "1.5", "1e", "1e-", "1e5"}) {
            assertEquals(JsonGrammar.MORE, number(cut), cut);
        }
    }

    @Test
    void literalsAreTheThreeWords() {
        byte[] b = bytes("true,false,null,nul,tru");
        assertEquals(4, JsonGrammar.literal(b, 0, b.length));
        assertEquals(10, JsonGrammar.literal(b, 5, b.length));
        assertEquals(15, JsonGrammar.literal(b, 11, b.length));
        assertEquals(JsonGrammar.UNUSUAL, JsonGrammar.literal(b, 16, b.length)); // "nul,"
        assertEquals(JsonGrammar.MORE, JsonGrammar.literal(b, 20, b.length)); // "tru" at the end
        assertEquals(JsonGrammar.UNUSUAL, JsonGrammar.literal(b, 4, b.length)); // a comma
    }

    @Test
    void charactersOfStrings() {
        byte[] b = bytes("a\\n\\/\\u00e9é€\"");
        assertEquals(1, JsonGrammar.character(b, 0, b.length, false));
        assertEquals(3, JsonGrammar.character(b, 1, b.length, false));
        assertEquals(JsonGrammar.UNUSUAL, JsonGrammar.character(b, 3, b.length, false)); // \/ only with every escape
        assertEquals(5, JsonGrammar.character(b, 3, b.length, true));
        assertEquals(JsonGrammar.UNUSUAL, JsonGrammar.character(b, 5, b.length, false));
        assertEquals(11, JsonGrammar.character(b, 5, b.length, true));
        assertEquals(13, JsonGrammar.character(b, 11, b.length, false)); // é, two bytes
        assertEquals(16, JsonGrammar.character(b, 13, b.length, false)); // €, three bytes
        assertEquals(JsonGrammar.UNUSUAL, JsonGrammar.character(b, 16, b.length, true)); // the closing quote is the caller's
        assertEquals(JsonGrammar.MORE, JsonGrammar.character(b, 13, 15, false)); // cut inside the €
        byte[][] unusual = {
            {0x01}, // a control
            {(byte) 0xC0, (byte) 0x80}, // an overlong form of two bytes
            {(byte) 0xE0, (byte) 0x80, (byte) 0x80}, // an overlong form of three
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate
            {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80}, // four bytes
            {(byte) 0xC3, 'a'}, // no continuation
            {'\\', 'u', '0', '0', 'g', '0'}, // not hex
            {'\\', 'x'},
        };
        for (byte[] u : unusual) {
            assertEquals(JsonGrammar.UNUSUAL, JsonGrammar.character(u, 0, u.length, true), java.util.Arrays.toString(u));
        }
    }
}
