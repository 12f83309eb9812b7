package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.flagos.trace.model.JsonText;
import org.junit.jupiter.api.Test;

/**
 * {@link EventBytes}' writers against Java's and Jackson's own renderings: the digit caches
 * ({@link EventBytes#repeated}, {@link EventBytes#unsigned}) never return another value's digits,
 * and events gathered with {@link EventBytes#next()} make a JSON array. ({@link MicrosFormatTest}
 * covers {@link EventBytes#micros}.)
 */
class EventBytesTest {
    private static String gathered(EventBytes b) {
        return new String(b.buffer(), 0, b.size(), StandardCharsets.UTF_8);
    }

    @Test
    void unsignedIsTheU64DecimalAndItsCacheFollowsTheValue() {
        EventBytes b = new EventBytes(4);
        long[] values = {0, 1, Long.MAX_VALUE, -1, Long.MIN_VALUE, -10, 7, 7, 7, -1, -1, 0};
        StringBuilder want = new StringBuilder();
        b.reset();
        for (long v : values) {
            b.unsigned(v).raw(EventBytes.ascii(","));
            want.append(Long.toUnsignedString(v)).append(',');
        }
        assertEquals(want.toString(), gathered(b));
        assertEquals("18446744073709551615", new EventBytes().reset().unsigned(-1).toString());
    }

    @Test
    void repeatedNeverCopiesAnotherValuesDigitsAcrossSlotCollisions() {
        EventBytes b = new EventBytes(16);
        Random r = new Random(30);
        long[] pool = new long[500]; // far more values than the 64 slots: collisions and overwrites
        for (int i = 0; i < pool.length; i++) {
            pool[i] = i % 5 == 0 ? -r.nextInt(1000) : r.nextLong() >>> r.nextInt(64);
        }
        for (int round = 0; round < 20; round++) {
            StringBuilder want = new StringBuilder();
            b.reset();
            for (int i = 0; i < 400; i++) {
                long v = pool[r.nextInt(pool.length)];
                b.repeated(v).raw(EventBytes.ascii(" "));
                want.append(v).append(' ');
            }
            assertEquals(want.toString(), gathered(b));
        }
        assertEquals("0", new EventBytes().reset().repeated(0).toString(), "an empty slot is not a cached 0");
    }

    @Test
    void numbersAreJavasAndAJsonReaderReadsTheSame() {
        assertEquals("-9223372036854775808", new EventBytes().reset().number(Long.MIN_VALUE).toString());
        assertEquals("1.5E-7", new EventBytes().reset().number(1.5e-7).toString());
        assertEquals("inf", new EventBytes().reset().number("inf").toString());
        assertThrows(IllegalArgumentException.class, () -> new EventBytes().reset().number(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new EventBytes().reset().number(Double.POSITIVE_INFINITY));
    }

    @Test
    void eventsGatheredWithNextAreAJsonArrayAndTheFragmentIsTheLastEvent() throws Exception {
        EventBytes b = new EventBytes(8); // grows many times
        String odd = "tab\there \"quoted\" back\\slash é \uD83D\uDE00";
        b.reset();
        for (int i = 0; i < 50; i++) {
            if (i > 0) {
                b.next();
            }
            b.raw(EventBytes.ascii("{\"name\":")).string(JsonText.quotedUtf8(odd + i))
                    .raw(EventBytes.ascii(",\"cat\":")).string(new SerializedString("kernel"))
                    .row(12345, 4_000_000_000L + i % 3).micros(1_000L * i + 7)
                    .raw(EventBytes.ascii(",\"args\":{\"correlation\":")).unsigned(-2L - i)
                    .raw(EventBytes.ascii(",\"device\":")).repeated(i % 2)
                    .raw(EventBytes.ascii("}}"));
        }
        JsonNode events = new ObjectMapper().readTree("[" + gathered(b) + "]");
        assertEquals(50, events.size());
        for (int i = 0; i < 50; i++) {
            JsonNode e = events.get(i);
            assertEquals(odd + i, e.get("name").textValue());
            assertEquals("kernel", e.get("cat").textValue());
            assertEquals(12345, e.get("pid").longValue());
            assertEquals(4_000_000_000L + i % 3, e.get("tid").longValue());
            assertEquals(new java.math.BigDecimal(i + ".007"), e.get("ts").decimalValue());
            assertEquals(Long.toUnsignedString(-2L - i), e.get("args").get("correlation").bigIntegerValue().toString());
            assertEquals(i % 2, e.get("args").get("device").intValue());
        }
        // the fragment after next() is the last event behind its comma
        String last = b.toString();
        assertEquals(',', last.charAt(0));
        assertEquals(odd + 49, new ObjectMapper().readTree(last.substring(1)).get("name").textValue());
        b.reset().raw(EventBytes.ascii("{}"));
        assertEquals("{}", b.toString(), "after reset the fragment is the first event alone");
        b.reset();
        assertEquals(0, b.size());
    }
}
