package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Args built through {@link OpArgs.Builder} answer as the encoding before values went straight into
 * one byte array did (the class of commit 221ba9e, kept as test code until the golden file was made
 * from it, commit e3145ee): every call is refused with the same message or taken, and every public
 * method of what is built after each call answers the same. The old answers are in
 * {@code op-args-golden.txt}, one line a case: its name, a 64-bit digest of its transcript, and for
 * the table's cases and any transcript of at most 500 characters the transcript itself (so that a
 * change shows what differs there).
 */
class OpArgsEquivalenceTest {
    private static final Map<String, String[]> GOLDEN = golden();

    /** One builder call. */
    private record Step(String label, Consumer<OpArgs.Builder> now) {
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
        for (int i = 0; i < table.size(); i++) {
            assertSameOutcomes("table." + i, table.get(i));
        }
        assertEquals(table.size(), GOLDEN.keySet().stream().filter(k -> k.startsWith("table.")).count());
    }

    @Test
    void theBoundsHoldAtTheirExactLimits() {
        // one list of MAX_VALUE_BYTES bytes exactly: [0,0,...,0] is 2 + 2n - 1 bytes, so n = (MAX - 1) / 2 fits with one byte to spare
        int n = (OpArgs.MAX_VALUE_BYTES - 1) / 2;
        assertEquals(OpArgs.MAX_VALUE_BYTES - 1, OpArgs.builder().add("a", new long[n]).build().json(0).length);
        assertSameOutcomes("bounds.0", List.of(longs("a", new long[n]), integer("b", 7)));
        assertSameOutcomes("bounds.1", List.of(longs("a", new long[n]), integer("b", 17)));
        assertSameOutcomes("bounds.2", List.of(longs("a", new long[n + 1])));
        assertSameOutcomes("bounds.3", List.of(string("s", "x".repeat(OpArgs.MAX_VALUE_BYTES - 2)), integer("b", 1)));
        assertSameOutcomes("bounds.4", List.of(string("s", "x".repeat(OpArgs.MAX_VALUE_BYTES - 1))));
        assertSameOutcomes("bounds.5", List.of(string("s", "\"".repeat(OpArgs.MAX_VALUE_BYTES / 2 - 1))));
        assertSameOutcomes("bounds.6", List.of(string("s", "\"".repeat(OpArgs.MAX_VALUE_BYTES / 2))));
        // lists whose partial sums pass the limit in the middle, at their last element, or only at the closing bracket
        for (int extra = -2; extra <= 2; extra++) {
            int elements = (OpArgs.MAX_VALUE_BYTES - 3) / 4 + extra; // [[0],[0],...]: 4 bytes an element
            long[][] zeros = new long[elements][];
            Arrays.fill(zeros, new long[1]);
            assertSameOutcomes("bounds.z" + extra, List.of(lists("z", zeros)));
            assertSameOutcomes("bounds.zr" + extra, List.of(lists("Ev Idx", zeros)));
            String[] empties = new String[(OpArgs.MAX_VALUE_BYTES - 1) / 3 + extra]; // ["","",...]: 3 bytes an element
            Arrays.fill(empties, "");
            assertSameOutcomes("bounds.e" + extra, List.of(strings("e", empties)));
            assertSameOutcomes("bounds.er" + extra, List.of(strings("Ev Idx", empties)));
            assertSameOutcomes("bounds.fe" + extra, List.of(integer("first", 1), strings("e", empties)));
        }
        List<Step> many = new ArrayList<>();
        for (int i = 0; i < OpArgs.MAX_ARGS; i++) {
            many.add(i % 3 == 0 ? integer("k" + i, i) : i % 3 == 1 ? string("k" + i, "v" + i) : real("k" + i, i / 4.0));
        }
        many.add(integer("one more", 1));
        many.add(integer("k0", 1));
        assertSameOutcomes("bounds.many", many);
        assertEquals(33, GOLDEN.keySet().stream().filter(k -> k.startsWith("bounds.")).count());
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
            assertSameOutcomes("random." + round, steps);
        }
        assertEquals(2000, GOLDEN.keySet().stream().filter(k -> k.startsWith("random.")).count());
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
            byte[] quoted = ("\"" + new String(JsonText.quotedUtf8(s), StandardCharsets.UTF_8) + "\"")
                    .getBytes(StandardCharsets.UTF_8);
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
        assertEquals(expected.toString(), new String(all.array(), 0, all.size(), StandardCharsets.US_ASCII));
    }

    private static Step randomStep(Random r) {
        String[] keyPool = {"a", "b", "flops", "Input Dims", "Input Strides", "Input type", "Concrete Inputs", "Ev Idx",
            "", null, "é", "q\"k", "x".repeat(OpArgs.MAX_KEY_CHARS), "c\u0001"};
        String key = r.nextInt(4) == 0 ? "k" + r.nextInt(80) : keyPool[r.nextInt(keyPool.length)];
        switch (r.nextInt(8)) {
            case 0: return integer(key, randomLong(r));
            case 1: {
                double[] specials = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE, 1e-7, 1e7, 123.456};
                return real(key, r.nextBoolean() ? r.nextGaussian() * tenTo(r.nextInt(40) - 20)
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
            default: return (long) tenTo(r.nextInt(19)) - r.nextInt(2);
        }
    }

    /**
     * 10^k, correctly rounded on every platform: the golden file holds what these inputs gave, and
     * {@code Math.pow} may be off by an ulp on another one (here {@code StrictMath.pow} is, at
     * k = -20, -17, -11 and -5). The same doubles as this machine's {@code Math.pow} for -20..18.
     */
    private static double tenTo(int k) {
        return Double.parseDouble("1e" + k);
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

    /** Runs {@code steps}, building after each call, and compares every outcome with the golden case {@code name}. */
    private static void assertSameOutcomes(String name, List<Step> steps) {
        String[] golden = GOLDEN.get(name);
        assertNotNull(golden, name + " is not in the golden file");
        String text = escape(transcript(steps));
        if (golden.length > 1) {
            assertEquals(golden[1], text, name);
        }
        // on a difference, the message shows the transcript made now (its start, for a large one)
        assertEquals(golden[0], digest(text),
                () -> name + " answers otherwise than before: " + text.substring(0, Math.min(text.length(), 4000)));
    }

    /** Golden case name to {digest} or {digest, transcript}. */
    private static Map<String, String[]> golden() {
        Map<String, String[]> cases = new HashMap<>();
        try (InputStream in = OpArgsEquivalenceTest.class.getResourceAsStream("op-args-golden.txt")) {
            assertNotNull(in, "op-args-golden.txt");
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                String[] parts = line.split(" ", 3);
                assertNull(cases.put(parts[0], Arrays.copyOfRange(parts, 1, parts.length)), parts[0]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cases;
    }

    /** Every outcome of {@code steps}, as text: each call's refusal, and each public method's answers after each call. */
    private static String transcript(List<Step> steps) {
        OpArgs.Builder builder = OpArgs.builder();
        StringBuilder out = new StringBuilder();
        String state = render(builder.build());
        out.append(state);
        for (Step step : steps) {
            String refused = refusal(() -> step.now().accept(builder));
            out.append(refused == null ? "ok" : "refused " + refused).append('\n');
            String next = render(builder.build());
            out.append(next.equals(state) ? "same\n" : next);
            state = next;
        }
        return out.toString();
    }

    private static String render(OpArgs a) {
        StringBuilder s = new StringBuilder();
        byte[] object = a.toJson().getBytes(StandardCharsets.UTF_8);
        s.append("json ").append(a.toJson()).append('\n');
        s.append("text ").append(a.toString().equals(a.toJson()) ? "=" : a.toString()).append('\n');
        s.append("hash ").append(a.hashCode()).append(" size ").append(a.size()).append('\n');
        for (int i = 0; i < a.size(); i++) {
            s.append(i).append(' ').append(a.key(i)).append(" | ").append(a.kind(i).name()).append(" | ").append(slice(a.json(i), object))
                    .append(" | ").append(a.integer(i)).append(" | ").append(Long.toHexString(Double.doubleToRawLongBits(a.real(i))))
                    .append(" | ").append(a.string(i) == null ? "-" : "'" + a.string(i)).append(" | ").append(a.isTorchInput(i)).append('\n');
        }
        for (int k = 0; k < OpArgs.TORCH_INPUT_KEYS.size(); k++) {
            s.append("torch ").append(k).append(' ').append(slice(a.torchInputJson(k), object)).append('\n');
        }
        s.append("extra ").append(bytes(a.extraMembersJson())).append('\n');
        int n = a.size();
        String past = outside(List.of(a::key, a::kind, a::json, a::integer, a::real, a::string, a::isTorchInput), n);
        String under = outside(List.of(a::key, a::kind, a::json, a::integer, a::real, a::string, a::isTorchInput), -1);
        s.append("outside ").append(past.equals(under) ? "both " + past : past + " " + under).append('\n');
        return s.toString();
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

    /**
     * What each call does at index {@code i}: the class it throws (classes only: a hot throw site may
     * drop its message), once with {@code all} when every call throws the same.
     */
    private static String outside(List<Consumer<Integer>> calls, int i) {
        List<String> thrown = new ArrayList<>();
        for (Consumer<Integer> call : calls) {
            try {
                call.accept(i);
                thrown.add("none");
            } catch (RuntimeException e) {
                thrown.add(e.getClass().getSimpleName());
            }
        }
        return thrown.stream().distinct().count() == 1 ? "all " + thrown.get(0) : String.join(",", thrown);
    }

    /** {@code b} as {@code @start+length} where it stands in {@code object}, else as {@link #bytes}. */
    private static String slice(byte[] b, byte[] object) {
        if (b != null && b.length > 0) {
            for (int start = 0; start + b.length <= object.length; start++) {
                if (Arrays.equals(b, 0, b.length, object, start, start + b.length)) {
                    return "@" + start + "+" + b.length;
                }
            }
        }
        return bytes(b);
    }

    /** A byte array as text when it is UTF-8 that decodes and encodes back to itself, else as hex; null as {@code -}. */
    private static String bytes(byte[] b) {
        if (b == null) {
            return "-";
        }
        String text = new String(b, StandardCharsets.UTF_8);
        if (Arrays.equals(b, text.getBytes(StandardCharsets.UTF_8))) {
            return "'" + text;
        }
        StringBuilder hex = new StringBuilder("x");
        for (byte x : b) {
            hex.append(String.format("%02x", x & 0xff));
        }
        return hex.toString();
    }

    /** {@code s} as printable ASCII on one line: {@code \\}, {@code \n}, and {@code \}{@code uXXXX} for any other char outside 0x20..0x7e. */
    private static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The first 64 bits of the SHA-256 of {@code text}'s ASCII bytes, in hex. */
    private static String digest(String text) {
        byte[] sha;
        try {
            sha = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            hex.append(String.format("%02x", sha[i] & 0xff));
        }
        return hex.toString();
    }

    private static Step integer(String key, long v) {
        return new Step(key + "=" + v, b -> b.add(key, v));
    }

    private static Step real(String key, double v) {
        return new Step(key + "=" + v, b -> b.add(key, v));
    }

    private static Step string(String key, String v) {
        return new Step(key + "='" + v + "'", b -> b.add(key, v));
    }

    private static Step longs(String key, long[] v) {
        return new Step(key + "=" + (v == null ? null : v.length + " longs"), b -> b.add(key, v));
    }

    private static Step lists(String key, long[][] v) {
        return new Step(key + "=" + (v == null ? null : v.length + " lists"), b -> b.add(key, v));
    }

    private static Step strings(String key, String[] v) {
        return new Step(key + "=" + (v == null ? null : v.length + " strings"), b -> b.add(key, v));
    }

    private static Step dims(long[]... v) {
        return new Step("dims", b -> b.inputDims(v));
    }

    private static Step strides(long[]... v) {
        return new Step("strides", b -> b.inputStrides(v));
    }

    private static Step types(String... v) {
        return new Step("types", b -> b.inputTypes(v));
    }

    private static Step concrete(String... v) {
        return new Step("concrete", b -> b.concreteInputs(v));
    }
}
