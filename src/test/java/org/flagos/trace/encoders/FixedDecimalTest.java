package org.flagos.trace.encoders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link FixedDecimal}: C's {@code printf("%f")} of a float widened to double. Held to kineto's own text (every
 * {@code "blocks per SM"} and {@code "warps per SM"} of torch's H200 trace, from the kernel's grid and block and the
 * device's SM count, in float as kineto computes them), and to {@link BigDecimal}'s exact value rounded half-even to six
 * decimals for every exponent a float has (subnormals, the ties, the largest magnitudes past the shift path).
 */
class FixedDecimalTest {
    private static final Path TORCH = Path.of("src/test/resources/torch-reference/torch_trace.json");

    /** The reference: the float's exact binary value, six decimals, ties to even; a '-' for a set sign bit. */
    private static String exact(float v) {
        String digits = new BigDecimal((double) Math.abs(v)).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
        return (Float.floatToRawIntBits(v) < 0 ? "-" : "") + digits;
    }

    @Test
    void kinetosOwnFiguresInTorchsTraceComeOutDigitForDigit() throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false); // the text as written: 16.000000 stays so
        JsonNode trace = mapper.readTree(TORCH.toFile());
        int sms = trace.get("deviceProperties").get(0).get("numSms").asInt();
        assertEquals(132, sms, "the H200's SMs");
        int kernels = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if (!"kernel".equals(e.path("cat").asText())) {
                continue;
            }
            JsonNode a = e.get("args");
            JsonNode grid = a.get("grid");
            JsonNode block = a.get("block");
            float blocks = (grid.get(0).asInt() * grid.get(1).asInt() * grid.get(2).asInt()) / (float) sms;
            float warps = blocks * (block.get(0).asInt() * block.get(1).asInt() * block.get(2).asInt()) / 32;
            String name = e.get("name").asText();
            assertEquals(a.get("blocks per SM").decimalValue().toPlainString(), FixedDecimal.render(blocks), name + ": blocks per SM");
            assertEquals(a.get("warps per SM").decimalValue().toPlainString(), FixedDecimal.render(warps), name + ": warps per SM");
            kernels++;
        }
        assertEquals(25, kernels, "every kernel of torch's trace");
        // Float rounding shows in kineto's text: 4096 blocks of 1,024 threads on 132 SMs is 31.030304, not 31.030303.
        assertEquals("31.030304", FixedDecimal.render(4096f / 132 * 1024 / 32 / 32));
    }

    @Test
    void everyExponentAgreesWithTheExactDecimal() {
        // Each biased exponent 0..254 (subnormals to the largest floats), with the lowest, highest and random mantissas, both signs.
        SplittableRandom random = new SplittableRandom(30);
        int checked = 0;
        for (int biased = 0; biased < 255; biased++) {
            for (int m : new int[] {0, 1, 0x7fffff, 0x400000, random.nextInt(0x800000), random.nextInt(0x800000)}) {
                for (int sign : new int[] {0, 1}) {
                    float v = Float.intBitsToFloat(sign << 31 | biased << 23 | m);
                    assertEquals(exact(v), FixedDecimal.render(v), "bits " + Integer.toHexString(Float.floatToRawIntBits(v)));
                    checked++;
                }
            }
        }
        for (int i = 0; i < 200_000; i++) { // most of kineto's figures are small: dense over 2^-30 .. 2^40
            float v = (float) Math.scalb(random.nextDouble(), random.nextInt(-30, 41));
            assertEquals(exact(v), FixedDecimal.render(v), "value " + v);
            checked++;
        }
        assertEquals(255 * 12 + 200_000, checked);
    }

    @Test
    void tiesRoundToEvenAndSmallValuesToZero() {
        assertEquals("0.007812", FixedDecimal.render(1f / 128), "0.0078125 is a tie: down to the even 2");
        assertEquals("0.023438", FixedDecimal.render(3f / 128), "0.0234375 is a tie: up to the even 8");
        assertEquals("0.000000", FixedDecimal.render(0.0000005f), "just below one half of the last place (the float is below 5e-7)");
        assertEquals("0.000001", FixedDecimal.render(0.00000051f));
        assertEquals("0.000000", FixedDecimal.render(Float.MIN_VALUE), "the smallest subnormal");
        assertEquals("-0.000000", FixedDecimal.render(-0f), "printf keeps the sign of -0");
        assertEquals("0.000000", FixedDecimal.render(0f));
        assertEquals("1.000000", FixedDecimal.render(0.9999996f), "the carry into the integer part");
        assertEquals("16.000000", FixedDecimal.render(16f));
    }

    @Test
    void theShiftPathEndsAtTwoToThe39AndTheWideValuesAreExactToo() {
        float last = Math.scalb((float) 0xffffff, 39); // mantissa 2^24-1 at exponent 39: the widest shifted value
        assertEquals(new BigDecimal((double) last).setScale(6).toPlainString(), FixedDecimal.render(last));
        float next = Math.scalb(1f, 64);
        assertEquals("18446744073709551616.000000", FixedDecimal.render(next), "2^64, past a long");
        assertEquals(exact(Float.MAX_VALUE), FixedDecimal.render(Float.MAX_VALUE));
        assertEquals("-" + exact(Float.MAX_VALUE), FixedDecimal.render(-Float.MAX_VALUE));
    }

    @Test
    void infinityAndNanAreQuotedJsonStrings() {
        assertEquals("\"inf\"", FixedDecimal.render(Float.POSITIVE_INFINITY));
        assertEquals("\"inf\"", FixedDecimal.render(Float.NEGATIVE_INFINITY), "kineto writes inf for either sign");
        assertEquals("\"nan\"", FixedDecimal.render(Float.NaN));
    }

    @Test
    void theCacheGivesTheSameTextAndKeepsFloatsOfOtherBitsApart() {
        FixedDecimal cache = new FixedDecimal();
        String first = cache.format(1.939394f);
        assertSame(first, cache.format(1.939394f), "a repeated value is looked up");
        assertEquals("0.000000", cache.format(0f));
        assertEquals("-0.000000", cache.format(-0f), "-0 has other bits than 0: its own entry");
        assertEquals("\"nan\"", cache.format(Float.NaN));
        assertEquals("1.939394", first);
        StringBuilder out = new StringBuilder("x=");
        assertSame(out, FixedDecimal.append(out, 2.5f));
        assertEquals("x=2.500000", out.toString());
        assertTrue(FixedDecimal.render(1e-7f).startsWith("0.0000"));
    }
}
