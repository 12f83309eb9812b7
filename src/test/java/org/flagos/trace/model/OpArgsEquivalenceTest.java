package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Args built through {@link OpArgs.Builder} and through {@link LegacyOpArgs.Builder} (the encoding
 * before values went straight into one byte array) with the same calls: every call is refused with
 * the same message or taken by both, and every public method of what each builds answers the same.
 */
class OpArgsEquivalenceTest {
    /** One builder call, made on both builders. */
    private record Step(String label, Consumer<OpArgs.Builder> now, Consumer<LegacyOpArgs.Builder> before) {
        @Override
        public String toString() {
            return label;
        }
    }

    private static final String LONG_KEY = "k".repeat(OpArgs.MAX_KEY_CHARS);

    @Test
    void aTableOfArgsEncodesAsBefore() {
        List<List<Step>> table = List.of(
                List.of(),
                List.of(dims(new long[] {256, 256}, new long[] {256, 256}), strides(new long[] {256, 1}, new long[] {256, 1}),
                        types("float", "float"), concrete("", ""), integer("flops", 33_554_432L)),
                List.of(integer("flops", 12), dims(new long[] {256, 256}, new long[0]), real("alpha", 0.25),
                        types("float", ""), string("note", "a\"b")),
                List.of(integer("min", Long.MIN_VALUE), integer("max", Long.MAX_VALUE), integer("zero", 0),
                        integer("minus one", -1), integer("ten", 10), integer("big", 1_000_000_000_000_000_000L),
                        integer("just under", 999_999_999_999_999_999L)),
                List.of(real("neg zero", -0.0), real("tiny", Double.MIN_VALUE), real("huge", Double.MAX_VALUE),
                        real("third", 1.0 / 3), real("e", 1e21), real("nan", Double.NaN), real("inf", Double.NEGATIVE_INFINITY)),
                List.of(string("empty", ""), string("esc", "tab\tnl\nq\"bs\\ctl\u0001del\u007f"),
                        string("utf", "héllo wörld ∑ 😀"), string("lone high", "a\ud800b"), string("lone low", "\udc00"),
                        string("null", null), string("slash", "a/b</script>")),
                List.of(longs("empty", new long[0]), longs("one", new long[] {-5}), lists("empty lists", new long[0][]),
                        lists("with empty", new long[][] {{}, {1, 2}, {}}), strings("empty strings", new String[0]),
                        strings("mixed", new String[] {"", "é", "\"", "\ud800"})),
                List.of(lists("null element", new long[][] {{1}, null}), strings("null element", new String[] {"a", null}),
                        longs("null list", null), lists("null lists", null), strings("null strings", null)),
                List.of(integer("Input Dims", 1), string("Input type", "float"), dims(), concrete("1.5")),
                List.of(integer(null, 1), integer("", 1), integer("a\nb", 1), integer("Ev Idx", 1), integer("External id", 1),
                        integer("Call stack", 1), integer("thread", 1), integer("Record function id", 1)),
                List.of(integer(LONG_KEY, 1), integer(LONG_KEY + "k", 1), integer("k\"ey\\ é", 2), integer("k", 1), integer("k", 2),
                        real("k", 1.0)),
                List.of(integer("é", 1), integer("\ud800", 2), string("\u007f", "x")));
        for (List<Step> steps : table) {
            assertSameOutcomes(steps);
        }
    }

    @Test
    void theBoundsHoldAtTheirExactLimits() {
        // one list of MAX_VALUE_BYTES bytes exactly: [0,0,...,0] is 2 + 2n - 1 bytes, so n = (MAX - 1) / 2 fits with one byte to spare
        int n = (OpArgs.MAX_VALUE_BYTES - 1) / 2;
        assertEquals(OpArgs.MAX_VALUE_BYTES - 1, OpArgs.builder().add("a", new long[n]).build().json(0).length);
        assertSameOutcomes(List.of(longs("a", new long[n]), integer("b", 7)));
        assertSameOutcomes(List.of(longs("a", new long[n]), integer("b", 17)));
        assertSameOutcomes(List.of(longs("a", new long[n + 1])));
        assertSameOutcomes(List.of(string("s", "x".repeat(OpArgs.MAX_VALUE_BYTES - 2)), integer("b", 1)));
        assertSameOutcomes(List.of(string("s", "x".repeat(OpArgs.MAX_VALUE_BYTES - 1))));
        assertSameOutcomes(List.of(string("s", "\"".repeat(OpArgs.MAX_VALUE_BYTES / 2 - 1))));
        assertSameOutcomes(List.of(string("s", "\"".repeat(OpArgs.MAX_VALUE_BYTES / 2))));
        // lists whose partial sums pass the limit in the middle, at their last element, or only at the closing bracket
        for (int extra = -2; extra <= 2; extra++) {
            int elements = (OpArgs.MAX_VALUE_BYTES - 3) / 4 + extra; // [[0],[0],...]: 4 bytes an element
            long[][] zeros = new long[elements][];
            Arrays.fill(zeros, new long[1]);
            assertSameOutcomes(List.of(lists("z", zeros)));
            assertSameOutcomes(List.of(lists("Ev Idx", zeros)));
            String[] empties = new String[(OpArgs.MAX_VALUE_BYTES - 1) / 3 + extra]; // ["","",...]: 3 bytes an element
            Arrays.fill(empties, "");
            assertSameOutcomes(List.of(strings("e", empties)));
            assertSameOutcomes(List.of(strings("Ev Idx", empties)));
            assertSameOutcomes(List.of(integer("first", 1), strings("e", empties)));
        }
        List<Step> many = new ArrayList<>();
        for (int i = 0; i < OpArgs.MAX_ARGS; i++) {
            many.add(i % 3 == 0 ? integer("k" + i, i) : i % 3 == 1 ? string("k" + i, "v" + i) : real("k" + i, i / 4.0));
        }
        many.add(integer("one more", 1));
        many.add(integer("k0", 1));
        assertSameOutcomes(many);
        assertEquals(OpArgs.MAX_ARGS, buildNow(many).size());
    }

    @Test
    void randomCallsEncodeAsBefore() {
        Random random = new Random(20261202);
        for (int round = 0; round < 2000; round++) {
            List<Step> steps = new ArrayList<>();
            int calls = random.nextInt(12);
            for (int c = 0; c < calls; c++) {
                steps.add(randomStep(random));
            }
            assertSameOutcomes(steps);
        }
    }

    @Test
    void aBuilderGoesOnAfterBuildWithoutChangingWhatItBuilt() {
        OpArgs.Builder b = OpArgs.builder().inputDims(new long[] {2, 3}).add("s", "one");
        OpArgs first = b.build();
        String json = first.toJson();
        for (int i = 0; i < 20; i++) {
            b.add("more" + i, "x".repeat(i)).add("n" + i, (long) i);
        }
        OpArgs second = b.build();
        assertEquals(json, first.toJson());
        assertEquals(2, first.size());
        assertEquals("one", first.string(1));
        assertEquals(42, second.size());
        assertNotEquals(first, second);
        assertEquals(first, OpArgs.builder().inputDims(new long[] {2, 3}).add("s", "one").build());
        assertSame(first.toJson(), first.toJson(), "made once, then kept");
        assertThrows(IllegalArgumentException.class, () -> b.add("s", 1L));
        assertEquals(second.toJson(), b.build().toJson(), "a refused call leaves the builder as it was");
    }

    @Test
    void plainStringsAreQuotedAsJsonTextQuotesThem() {
        for (char c = 0; c < 0x100; c++) {
            String s = "a" + c + "b";
            byte[] quoted = ("\"" + new String(JsonText.quotedUtf8(s), java.nio.charset.StandardCharsets.UTF_8) + "\"")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            JsonBytes out = new JsonBytes(1);
            out.writeQuoted(s);
            assertArrayEquals(quoted, Arrays.copyOf(out.array(), out.size()), "char " + (int) c);
            assertEquals(quoted.length, JsonBytes.quotedLength(s), "char " + (int) c);
        }
        long[] edges = {0, 1, -1, 9, 10, -9, -10, 99, 100, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1,
            999_999_999_999_999_999L, 1_000_000_000_000_000_000L, -1_000_000_000_000_000_000L, Integer.MIN_VALUE};
        JsonBytes all = new JsonBytes(0);
        StringBuilder expected = new StringBuilder();
        for (long v : edges) {
            assertEquals(Long.toString(v).length(), JsonBytes.longLength(v), Long.toString(v));
            all.writeLong(v);
            expected.append(v);
        }
        for (long p = 1; p > 0 && p < Long.MAX_VALUE / 10; p *= 10) {
            for (long v : new long[] {p - 1, p, p + 1, -p}) {
                assertEquals(Long.toString(v).length(), JsonBytes.longLength(v), Long.toString(v));
            }
        }
        assertEquals(expected.toString(), new String(all.array(), 0, all.size(), java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static Step randomStep(Random r) {
        String[] keyPool = {"a", "b", "flops", "Input Dims", "Input Strides", "Input type", "Concrete Inputs", "Ev Idx",
            "", null, "é", "q\"k", "x".repeat(OpArgs.MAX_KEY_CHARS), "c\u0001"};
        String key = r.nextInt(4) == 0 ? "k" + r.nextInt(80) : keyPool[r.nextInt(keyPool.length)];
        switch (r.nextInt(8)) {
            case 0: return integer(key, randomLong(r));
            case 1: {
                double[] specials = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE, 1e-7, 1e7, 123.456};
                return real(key, r.nextBoolean() ? r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20)
                        : specials[r.nextInt(specials.length)]);
            }
            case 2: return string(key, r.nextInt(10) == 0 ? null : randomString(r));
            case 3: return longs(key, r.nextInt(10) == 0 ? null : randomLongs(r, r.nextInt(6) == 0 ? 3000 : 8));
            case 4: {
                if (r.nextInt(10) == 0) {
                    return lists(key, null);
                }
                long[][] lists = new long[r.nextInt(r.nextInt(8) == 0 ? 2000 : 5)][];
                for (int i = 0; i < lists.length; i++) {
                    lists[i] = r.nextInt(40) == 0 ? null : randomLongs(r, 5);
                }
                return lists(key, lists);
            }
            case 5: {
                if (r.nextInt(10) == 0) {
                    return strings(key, null);
                }
                String[] list = new String[r.nextInt(r.nextInt(8) == 0 ? 3000 : 5)];
                for (int i = 0; i < list.length; i++) {
                    list[i] = r.nextInt(40) == 0 ? null : randomString(r);
                }
                return strings(key, list);
            }
            case 6: return dims(randomLongs(r, 4), randomLongs(r, 4));
            default: return types(randomString(r), randomString(r));
        }
    }

    private static long randomLong(Random r) {
        switch (r.nextInt(4)) {
            case 0: return r.nextLong();
            case 1: return r.nextInt(2000) - 1000;
            case 2: return r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
            default: return (long) Math.pow(10, r.nextInt(19)) - r.nextInt(2);
        }
    }

    private static long[] randomLongs(Random r, int most) {
        long[] list = new long[r.nextInt(most + 1)];
        for (int i = 0; i < list.length; i++) {
            list[i] = randomLong(r);
        }
        return list;
    }

    private static String randomString(Random r) {
        String alphabet = "abcXYZ019 _-.:/<>\"\\\t\n\u0000\u001f\u007f\u0080éß∑😀\ud800\udc00";
        StringBuilder s = new StringBuilder();
        int length = r.nextInt(12);
        for (int i = 0; i < length; i++) {
            s.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    /** Runs {@code steps} on both builders, building after each call, and compares every outcome. */
    private static void assertSameOutcomes(List<Step> steps) {
        OpArgs.Builder now = OpArgs.builder();
        LegacyOpArgs.Builder before = LegacyOpArgs.builder();
        assertSameArgs(now.build(), before.build(), "no calls");
        for (Step step : steps) {
            String refusedNow = refusal(() -> step.now().accept(now));
            String refusedBefore = refusal(() -> step.before().accept(before));
            assertEquals(refusedBefore, refusedNow, "after " + steps);
            assertSameArgs(now.build(), before.build(), "after " + step + " of " + steps);
        }
    }

    private static OpArgs buildNow(List<Step> steps) {
        OpArgs.Builder b = OpArgs.builder();
        for (Step step : steps) {
            refusal(() -> step.now().accept(b));
        }
        return b.build();
    }

    private static String refusal(Runnable call) {
        try {
            call.run();
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static void assertSameArgs(OpArgs now, LegacyOpArgs before, String where) {
        assertEquals(before.toJson(), now.toJson(), where);
        assertEquals(before.toString(), now.toString(), where);
        assertEquals(before.hashCode(), now.hashCode(), where);
        assertEquals(before.size(), now.size(), where);
        for (int i = 0; i < before.size(); i++) {
            assertEquals(before.key(i), now.key(i), where);
            assertEquals(before.kind(i).name(), now.kind(i).name(), where);
            assertArrayEquals(before.json(i), now.json(i), where);
            assertEquals(before.integer(i), now.integer(i), where);
            assertEquals(Double.doubleToRawLongBits(before.real(i)), Double.doubleToRawLongBits(now.real(i)), where);
            assertEquals(before.string(i), now.string(i), where);
            assertEquals(before.isTorchInput(i), now.isTorchInput(i), where);
        }
        for (int k = 0; k < OpArgs.TORCH_INPUT_KEYS.size(); k++) {
            assertArrayEquals(before.torchInputJson(k), now.torchInputJson(k), where);
        }
        assertArrayEquals(before.extraMembersJson(), now.extraMembersJson(), where);
        assertIndexRefusedAlike(now, before, before.size());
        assertIndexRefusedAlike(now, before, -1);
    }

    private static void assertIndexRefusedAlike(OpArgs now, LegacyOpArgs before, int i) {
        List<Consumer<Integer>> nowCalls = List.of(now::key, now::kind, now::json, now::integer, now::real, now::string,
                now::isTorchInput);
        List<Consumer<Integer>> beforeCalls = List.of(before::key, before::kind, before::json, before::integer,
                before::real, before::string, before::isTorchInput);
        for (int m = 0; m < nowCalls.size(); m++) {
            int method = m;
            RuntimeException b = assertThrows(IndexOutOfBoundsException.class, () -> beforeCalls.get(method).accept(i));
            RuntimeException n = assertThrows(IndexOutOfBoundsException.class, () -> nowCalls.get(method).accept(i));
            // classes only: once compiled, a hot throw site may throw a preallocated exception without its message
            assertEquals(b.getClass(), n.getClass(), "method " + m + " at " + i);
        }
    }

    private static Step integer(String key, long v) {
        return new Step(key + "=" + v, b -> b.add(key, v), b -> b.add(key, v));
    }

    private static Step real(String key, double v) {
        return new Step(key + "=" + v, b -> b.add(key, v), b -> b.add(key, v));
    }

    private static Step string(String key, String v) {
        return new Step(key + "='" + v + "'", b -> b.add(key, v), b -> b.add(key, v));
    }

    private static Step longs(String key, long[] v) {
        return new Step(key + "=" + (v == null ? null : v.length + " longs"), b -> b.add(key, v), b -> b.add(key, v));
    }

    private static Step lists(String key, long[][] v) {
        return new Step(key + "=" + (v == null ? null : v.length + " lists"), b -> b.add(key, v), b -> b.add(key, v));
    }

    private static Step strings(String key, String[] v) {
        return new Step(key + "=" + (v == null ? null : v.length + " strings"), b -> b.add(key, v), b -> b.add(key, v));
    }

    private static Step dims(long[]... v) {
        return new Step("dims", b -> b.inputDims(v), b -> b.inputDims(v));
    }

    private static Step strides(long[]... v) {
        return new Step("strides", b -> b.inputStrides(v), b -> b.inputStrides(v));
    }

    private static Step types(String... v) {
        return new Step("types", b -> b.inputTypes(v), b -> b.inputTypes(v));
    }

    private static Step concrete(String... v) {
        return new Step("concrete", b -> b.concreteInputs(v), b -> b.concreteInputs(v));
    }
}
