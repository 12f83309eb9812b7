package org.flagos.trace.model;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link OpArgs} as it was before its builder wrote values straight into one byte array (commit
 * 221ba9e): the oracle that {@link OpArgsEquivalenceTest} holds the new encoding to, call by call.
 * Test code only; keep it as it is.
 */
final class LegacyOpArgs {
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

    private final String[] keys;
    private final Kind[] kinds;
    private final byte[][] values;
    private final long[] integers;
    private final double[] doubles;
    private final String[] strings;
    private final byte[][] torchInputs = new byte[4][];
    private final byte[] extraJson;
    private final byte[] objectJson;
    private final String objectText;

    private LegacyOpArgs(Builder b) {
        int n = b.keys.size();
        keys = b.keys.toArray(new String[0]);
        kinds = b.kinds.toArray(new Kind[0]);
        values = b.values.toArray(new byte[0][]);
        integers = Arrays.copyOf(b.integers, n);
        doubles = Arrays.copyOf(b.doubles, n);
        strings = b.strings.toArray(new String[0]);
        ByteArrayOutputStream extra = new ByteArrayOutputStream();
        ByteArrayOutputStream object = new ByteArrayOutputStream();
        object.write('{');
        for (int i = 0; i < n; i++) {
            byte[] member = member(keys[i], values[i]);
            if (i > 0) {
                object.write(',');
            }
            object.writeBytes(member);
            int torch = TORCH_INPUT_KEYS.indexOf(keys[i]);
            if (torch >= 0) {
                torchInputs[torch] = values[i];
            } else {
                extra.write(',');
                extra.writeBytes(member);
            }
        }
        object.write('}');
        extraJson = extra.toByteArray();
        objectJson = object.toByteArray();
        objectText = new String(objectJson, StandardCharsets.UTF_8);
    }

    private static byte[] member(String key, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('"');
        out.writeBytes(JsonText.quotedUtf8(key));
        out.write('"');
        out.write(':');
        out.writeBytes(value);
        return out.toByteArray();
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
        return values[i].clone();
    }

    /** The value of an {@link Kind#INTEGER} arg. */
    public long integer(int i) {
        return integers[i];
    }

    /** The value of a {@link Kind#DOUBLE} arg. */
    public double real(int i) {
        return doubles[i];
    }

    /** The value of a {@link Kind#STRING} arg. */
    public String string(int i) {
        return strings[i];
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
        return objectText;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LegacyOpArgs && Arrays.equals(objectJson, ((LegacyOpArgs) o).objectJson);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(objectJson);
    }

    @Override
    public String toString() {
        return toJson();
    }

    /** Builds one {@link OpArgs}; every method checks its key and value at once. Not thread-safe. */
    public static final class Builder {
        private final List<String> keys = new ArrayList<>();
        private final List<Kind> kinds = new ArrayList<>();
        private final List<byte[]> values = new ArrayList<>();
        private final List<String> strings = new ArrayList<>();
        private long[] integers = new long[4];
        private double[] doubles = new double[4];
        private int valueBytes;

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
            int i = put(key, Kind.INTEGER, ascii(Long.toString(value)), null);
            integers[i] = value;
            return this;
        }

        public Builder add(String key, double value) {
            if (!Double.isFinite(value)) {
                throw refused(key, "a number must be finite (JSON has no " + value + ")");
            }
            int i = put(key, Kind.DOUBLE, ascii(Double.toString(value)), null);
            doubles[i] = value;
            return this;
        }

        public Builder add(String key, String value) {
            requireValue(key, value);
            put(key, Kind.STRING, quoted(value), value);
            return this;
        }

        /** A list of integers ({@code [256, 256]}). */
        public Builder add(String key, long[] list) {
            requireValue(key, list);
            StringBuilder s = new StringBuilder(2 + list.length * 4);
            append(s, list);
            put(key, Kind.LIST, ascii(s.toString()), null);
            return this;
        }

        /** A list of integer lists ({@code [[256, 256], []]}). */
        public Builder add(String key, long[][] lists) {
            requireValue(key, lists);
            StringBuilder s = new StringBuilder(2 + lists.length * 8);
            s.append('[');
            for (int i = 0; i < lists.length; i++) {
                if (lists[i] == null) {
                    throw refused(key, "element " + i + " is null");
                }
                if (i > 0) {
                    s.append(',');
                }
                append(s, lists[i]);
                checkSize(key, s.length());
            }
            s.append(']');
            put(key, Kind.LIST, ascii(s.toString()), null);
            return this;
        }

        /** A list of strings ({@code ["float", ""]}). */
        public Builder add(String key, String[] list) {
            requireValue(key, list);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write('[');
            for (int i = 0; i < list.length; i++) {
                if (list[i] == null) {
                    throw refused(key, "element " + i + " is null");
                }
                if (i > 0) {
                    out.write(',');
                }
                out.writeBytes(quoted(list[i]));
                checkSize(key, out.size());
            }
            out.write(']');
            put(key, Kind.LIST, out.toByteArray(), null);
            return this;
        }

        public LegacyOpArgs build() {
            return new LegacyOpArgs(this);
        }

        private void append(StringBuilder s, long[] list) {
            s.append('[');
            for (int i = 0; i < list.length; i++) {
                if (i > 0) {
                    s.append(',');
                }
                s.append(list[i]);
            }
            s.append(']');
        }

        private int put(String key, Kind kind, byte[] json, String string) {
            checkKey(key);
            checkSize(key, json.length);
            int i = keys.size();
            keys.add(key);
            kinds.add(kind);
            values.add(json);
            strings.add(string);
            valueBytes += json.length;
            if (i == integers.length) {
                integers = Arrays.copyOf(integers, i * 2);
                doubles = Arrays.copyOf(doubles, i * 2);
            }
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
            if (keys.contains(key)) {
                throw refused(key, "the key is given twice");
            }
            if (keys.size() == MAX_ARGS) {
                throw refused(key, "an op has at most " + MAX_ARGS + " args");
            }
        }

        private void checkSize(String key, int bytes) {
            if (valueBytes + bytes > MAX_VALUE_BYTES) {
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

        private static byte[] quoted(String s) {
            byte[] body = JsonText.quotedUtf8(s);
            byte[] out = new byte[body.length + 2];
            out[0] = '"';
            System.arraycopy(body, 0, out, 1, body.length);
            out[out.length - 1] = '"';
            return out;
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
