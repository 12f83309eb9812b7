package org.flagos.trace.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Key/value arguments of a host op (tensor shapes, sizes), written into the op's {@code cpu_op}
 * args as torch writes its own: {@code "Input Dims": [[256, 256], [256, 256]]}. Immutable and safe
 * to share between threads, checked and encoded once when built, so a program that opens the same
 * kind of op many times builds its args once and passes the same object each time: opening an op
 * with args then costs one reference. A program whose shapes differ per op builds args per op: the
 * builder writes every value straight into one byte array, and building costs a few small arrays.
 *
 * <p>torch's four input keys ({@link #INPUT_DIMS}, {@link #INPUT_STRIDES}, {@link #INPUT_TYPE},
 * {@link #CONCRETE_INPUTS}) take the place of the empty lists a {@code cpu_op} otherwise carries;
 * other keys follow them in the order given. Values are integers, finite doubles, strings, and
 * lists of integers, of integer lists or of strings. Bounded: at most {@link #MAX_ARGS} keys of at
 * most {@link #MAX_KEY_CHARS} characters, and {@link #MAX_VALUE_BYTES} bytes of encoded values in all.
 * A key flagtrace writes itself ({@code External id}, {@code Ev Idx}, ...), a repeated or empty key,
 * a null, a non-finite number or an args object past the bounds is refused with an
 * {@link IllegalArgumentException} naming the key.
 */
public final class OpArgs {
    public static final String INPUT_DIMS = "Input Dims";
    public static final String INPUT_STRIDES = "Input Strides";
    public static final String INPUT_TYPE = "Input type";
    public static final String CONCRETE_INPUTS = "Concrete Inputs";
    /** torch's input keys, in the order a {@code cpu_op} carries them. */
    public static final List<String> TORCH_INPUT_KEYS = List.of(INPUT_DIMS, INPUT_STRIDES, INPUT_TYPE, CONCRETE_INPUTS);
    /** Keys flagtrace writes on a {@code cpu_op} itself. */
    public static final List<String> RESERVED_KEYS =
            List.of("External id", "Record function id", "Ev Idx", "thread", OpStack.KEY);

    public static final int MAX_ARGS = 64;
    public static final int MAX_KEY_CHARS = 256;
    /** Encoded JSON bytes of all values of one op together. */
    public static final int MAX_VALUE_BYTES = 16 * 1024;

    /** How a value is typed, for formats that type their args (Perfetto's debug annotations). */
    public enum Kind { INTEGER, DOUBLE, STRING, LIST }

    private static final byte[] NO_MEMBERS = new byte[0];

    private final String[] keys;
    private final Kind[] kinds;
    /** An {@link Kind#INTEGER}'s value or a {@link Kind#DOUBLE}'s raw bits; null when no arg is a number. */
    private final long[] numbers;
    /** A {@link Kind#STRING}'s value; null when no arg is a string. */
    private final String[] strings;
    /** The whole object as JSON; value {@code i} is its bytes {@code [valueStarts[i], valueEnds[i])}. */
    private final byte[] objectJson;
    private final int[] valueStarts;
    private final int[] valueEnds;
    private final byte[][] torchInputs = new byte[4][];
    private final byte[] extraJson;
    /**
     * {@link #toJson()}, made at its first call: a journal or an ops file reads it, a live trace never
     * does. Not volatile on purpose: a String is immutable (its fields are final), so a thread that
     * sees this field set sees the whole String, and one that sees null makes an equal one itself.
     */
    private String objectText;

    private OpArgs(Builder b) {
        int n = b.count;
        keys = Arrays.copyOf(b.keys, n);
        kinds = Arrays.copyOf(b.kinds, n);
        numbers = b.hasNumbers ? Arrays.copyOf(b.numbers, n) : null;
        strings = b.strings == null ? null : Arrays.copyOf(b.strings, n);
        valueStarts = new int[n];
        valueEnds = new int[n];
        byte[] values = b.values.array();
        long length = 2 + b.values.size() + Math.max(0, n - 1);
        for (int i = 0; i < n; i++) {
            length += JsonBytes.quotedLength(keys[i]) + 1;
        }
        JsonBytes object = new JsonBytes((int) length);
        int[] memberStarts = new int[n];
        int extraLength = 0;
        object.write('{');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                object.write(',');
            }
            memberStarts[i] = object.size();
            object.writeQuoted(keys[i]);
            object.write(':');
            valueStarts[i] = object.size();
            object.write(values, i == 0 ? 0 : b.ends[i - 1], b.ends[i]);
            valueEnds[i] = object.size();
            if (!isTorchInput(i)) {
                extraLength += 1 + valueEnds[i] - memberStarts[i];
            }
        }
        object.write('}');
        assert object.size() == length && object.array().length == length;
        objectJson = object.array();
        // torch's inputs and the other members get arrays of their own: the trace's sinks write them whole
        extraJson = extraLength == 0 ? NO_MEMBERS : new byte[extraLength];
        int extra = 0;
        for (int i = 0; i < n; i++) {
            int torch = TORCH_INPUT_KEYS.indexOf(keys[i]);
            if (torch >= 0) {
                torchInputs[torch] = Arrays.copyOfRange(objectJson, valueStarts[i], valueEnds[i]);
            } else {
                extraJson[extra++] = ',';
                System.arraycopy(objectJson, memberStarts[i], extraJson, extra, valueEnds[i] - memberStarts[i]);
                extra += valueEnds[i] - memberStarts[i];
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public int size() {
        return keys.length;
    }

    public String key(int i) {
        return keys[i];
    }

    public Kind kind(int i) {
        return kinds[i];
    }

    /** The value as JSON text (UTF-8), as the trace writes it. */
    public byte[] json(int i) {
        return Arrays.copyOfRange(objectJson, valueStarts[i], valueEnds[i]);
    }

    /** The value of an {@link Kind#INTEGER} arg. */
    public long integer(int i) {
        return kinds[i] == Kind.INTEGER ? numbers[i] : 0;
    }

    /** The value of a {@link Kind#DOUBLE} arg. */
    public double real(int i) {
        return kinds[i] == Kind.DOUBLE ? Double.longBitsToDouble(numbers[i]) : 0;
    }

    /** The value of a {@link Kind#STRING} arg. */
    public String string(int i) {
        return kinds[i] == Kind.STRING ? strings[i] : null;
    }

    /** Whether the key is one of torch's input keys (written in place of an empty list). */
    public boolean isTorchInput(int i) {
        return TORCH_INPUT_KEYS.contains(keys[i]);
    }

    /**
     * The JSON value of torch's input key number {@code k} of {@link #TORCH_INPUT_KEYS}, or null when
     * these args do not give it. The array is the args' own: read it, never change it.
     */
    public byte[] torchInputJson(int k) {
        return torchInputs[k];
    }

    /**
     * The args other than torch's inputs as JSON object members, each preceded by a comma
     * ({@code ,"k":v,"k2":v2}), empty when none. The array is the args' own: read it, never change it.
     */
    public byte[] extraMembersJson() {
        return extraJson;
    }

    /** The whole args as one JSON object, as an ops file and the journal hold them. */
    public String toJson() {
        String text = objectText;
        if (text == null) {
            text = new String(objectJson, StandardCharsets.UTF_8);
            objectText = text;
        }
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpArgs && Arrays.equals(objectJson, ((OpArgs) o).objectJson);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(objectJson);
    }

    @Override
    public String toString() {
        return toJson();
    }

    /**
     * Builds one {@link OpArgs}; every method checks its key and value at once. A refused key or value
     * leaves the builder as it was, and a builder goes on after {@link #build()} without changing what
     * it built. Not thread-safe.
     */
    public static final class Builder {
        private static final int FIRST_CAPACITY = 8;

        private String[] keys = new String[FIRST_CAPACITY];
        private Kind[] kinds = new Kind[FIRST_CAPACITY];
        /** Where each value ends in {@link #values}; value {@code i} starts where {@code i - 1} ends. */
        private int[] ends = new int[FIRST_CAPACITY];
        private long[] numbers = new long[FIRST_CAPACITY];
        private boolean hasNumbers;
        private String[] strings;
        private int count;
        /** The values' JSON, back to back; its size is the bytes that count against {@link #MAX_VALUE_BYTES}. */
        private final JsonBytes values = new JsonBytes(128);

        private Builder() {
        }

        /** torch's {@code Input Dims}: one shape per input ({@code []} for an input that is no tensor). */
        public Builder inputDims(long[]... shapes) {
            return add(INPUT_DIMS, shapes);
        }

        /** torch's {@code Input Strides}: one stride list per input. */
        public Builder inputStrides(long[]... strides) {
            return add(INPUT_STRIDES, strides);
        }

        /** torch's {@code Input type}: one type name per input ({@code float}, {@code ScalarList}, or empty). */
        public Builder inputTypes(String... types) {
            return add(INPUT_TYPE, types);
        }

        /** torch's {@code Concrete Inputs}: a scalar input's value as text, empty for a tensor. */
        public Builder concreteInputs(String... values) {
            return add(CONCRETE_INPUTS, values);
        }

        public Builder add(String key, long value) {
            int i = put(key, Kind.INTEGER, JsonBytes.longLength(value));
            values.writeLong(value);
            numbers[i] = value;
            hasNumbers = true;
            return this;
        }

        public Builder add(String key, double value) {
            if (!Double.isFinite(value)) {
                throw refused(key, "a number must be finite (JSON has no " + value + ")");
            }
            String text = Double.toString(value);
            int i = put(key, Kind.DOUBLE, text.length());
            values.writeAscii(text);
            numbers[i] = Double.doubleToRawLongBits(value);
            hasNumbers = true;
            return this;
        }

        public Builder add(String key, String value) {
            requireValue(key, value);
            int i = put(key, Kind.STRING, JsonBytes.quotedLength(value));
            values.writeQuoted(value);
            if (strings == null) {
                strings = new String[keys.length];
            }
            strings[i] = value;
            return this;
        }

        /** A list of integers ({@code [256, 256]}). */
        public Builder add(String key, long[] list) {
            requireValue(key, list);
            put(key, Kind.LIST, listLength(list));
            writeList(list);
            return this;
        }

        /** A list of integer lists ({@code [[256, 256], []]}). */
        public Builder add(String key, long[][] lists) {
            requireValue(key, lists);
            long length = 1;
            for (int i = 0; i < lists.length; i++) {
                if (lists[i] == null) {
                    throw refused(key, "element " + i + " is null");
                }
                length += (i > 0 ? 1 : 0) + listLength(lists[i]);
                checkSize(key, length);
            }
            put(key, Kind.LIST, length + 1);
            values.write('[');
            for (int i = 0; i < lists.length; i++) {
                if (i > 0) {
                    values.write(',');
                }
                writeList(lists[i]);
            }
            values.write(']');
            return this;
        }

        /** A list of strings ({@code ["float", ""]}). */
        public Builder add(String key, String[] list) {
            requireValue(key, list);
            long length = 1;
            for (int i = 0; i < list.length; i++) {
                if (list[i] == null) {
                    throw refused(key, "element " + i + " is null");
                }
                length += (i > 0 ? 1 : 0) + JsonBytes.quotedLength(list[i]);
                checkSize(key, length);
            }
            put(key, Kind.LIST, length + 1);
            values.write('[');
            for (int i = 0; i < list.length; i++) {
                if (i > 0) {
                    values.write(',');
                }
                values.writeQuoted(list[i]);
            }
            values.write(']');
            return this;
        }

        public OpArgs build() {
            return new OpArgs(this);
        }

        private static long listLength(long[] list) {
            long length = 2 + Math.max(0, list.length - 1);
            for (long v : list) {
                length += JsonBytes.longLength(v);
            }
            return length;
        }

        private void writeList(long[] list) {
            values.write('[');
            for (int i = 0; i < list.length; i++) {
                if (i > 0) {
                    values.write(',');
                }
                values.writeLong(list[i]);
            }
            values.write(']');
        }

        /**
         * Checks the key and the value's encoded length, then takes arg number {@code i} (returned)
         * whose value the caller writes next, exactly {@code length} bytes of it.
         */
        private int put(String key, Kind kind, long length) {
            checkKey(key);
            checkSize(key, length);
            int i = count;
            if (i == keys.length) {
                int capacity = Math.min(2 * i, MAX_ARGS);
                keys = Arrays.copyOf(keys, capacity);
                kinds = Arrays.copyOf(kinds, capacity);
                ends = Arrays.copyOf(ends, capacity);
                numbers = Arrays.copyOf(numbers, capacity);
                if (strings != null) {
                    strings = Arrays.copyOf(strings, capacity);
                }
            }
            keys[i] = key;
            kinds[i] = kind;
            ends[i] = values.size() + (int) length;
            count++;
            return i;
        }

        private void checkKey(String key) {
            if (key == null || key.isEmpty()) {
                throw new IllegalArgumentException("an op arg needs a non-empty key");
            }
            if (key.length() > MAX_KEY_CHARS) {
                throw new IllegalArgumentException("op arg key '" + key.substring(0, 40) + "...' is " + key.length()
                        + " characters long; at most " + MAX_KEY_CHARS);
            }
            for (int i = 0; i < key.length(); i++) {
                if (key.charAt(i) < 0x20) {
                    throw refused(key, "a key may not hold control characters");
                }
            }
            if (RESERVED_KEYS.contains(key)) {
                throw refused(key, "flagtrace writes this key itself");
            }
            for (int i = 0; i < count; i++) {
                if (keys[i].equals(key)) {
                    throw refused(key, "the key is given twice");
                }
            }
            if (count == MAX_ARGS) {
                throw refused(key, "an op has at most " + MAX_ARGS + " args");
            }
        }

        private void checkSize(String key, long bytes) {
            if (values.size() + bytes > MAX_VALUE_BYTES) {
                throw refused(key, "the op's args would take more than " + MAX_VALUE_BYTES + " bytes as JSON");
            }
        }

        private static void requireValue(String key, Object value) {
            if (value == null) {
                throw refused(key, "the value is null");
            }
        }

        private static IllegalArgumentException refused(String key, String why) {
            String shown = key == null ? "null" : key.length() > 40 ? key.substring(0, 40) + "..." : key;
            return new IllegalArgumentException("op arg '" + shown + "': " + why);
        }
    }
}
