package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;

/**
 * The trace reader's parser with its rule "no object has a field twice" kept by hand: what Jackson's strict
 * duplicate detection refuses, in its words and at its place ({@code Duplicate field 'x'}, the location just past
 * the name), without a hash set made for every object of three fields or more (a tenth of {@code merge}'s reading,
 * docs/benchmarks.md). Each open object's names are kept in an array of its depth, reused from object to object,
 * and compared by hash (a name the parser gives is one string per name, its hash kept); an object of more than
 * {@link #LINEAR} fields goes on in a set of its depth. Every token passes through {@link #nextToken()}, a skip too.
 */
final class DuplicateFields extends EveryTokenParser {
    /** Names an object keeps in its array before its depth's set takes over. */
    static final int LINEAR = 32;

    private String[][] names = new String[8][];
    private int[][] hashes = new int[8][];
    /** Names seen per open container; -1: an array. */
    private int[] counts = new int[8];
    @SuppressWarnings("unchecked")
    private HashSet<String>[] sets = new HashSet[8];
    private int depth = -1;

    DuplicateFields(JsonParser p) {
        super(p);
    }

    @Override
    public JsonToken nextToken() throws IOException {
        JsonToken t = delegate.nextToken();
        if (t == JsonToken.FIELD_NAME) {
            field();
        } else if (t == JsonToken.START_OBJECT) {
            open(0);
        } else if (t == JsonToken.START_ARRAY) {
            open(-1);
        } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
            depth--;
        }
        return t;
    }

    private void open(int count) {
        int d = ++depth;
        if (d == counts.length) {
            int n = d * 2;
            names = java.util.Arrays.copyOf(names, n);
            hashes = java.util.Arrays.copyOf(hashes, n);
            counts = java.util.Arrays.copyOf(counts, n);
            sets = java.util.Arrays.copyOf(sets, n);
        }
        counts[d] = count;
    }

    private void field() throws IOException {
        String name = delegate.currentName();
        int d = depth;
        int c = counts[d];
        if (c >= LINEAR) {
            if (!sets[d].add(name)) {
                throw duplicate(name);
            }
            counts[d] = c + 1;
            return;
        }
        String[] ns = names[d];
        int[] hs = hashes[d];
        if (ns == null) {
            ns = names[d] = new String[LINEAR];
            hs = hashes[d] = new int[LINEAR];
        }
        int h = name.hashCode();
        for (int i = 0; i < c; i++) {
            if (hs[i] == h && name.equals(ns[i])) {
                throw duplicate(name);
            }
        }
        ns[c] = name;
        hs[c] = h;
        counts[d] = c + 1;
        if (c + 1 == LINEAR) {
            HashSet<String> set = sets[d];
            if (set == null) {
                set = sets[d] = new HashSet<>();
            }
            set.clear();
            java.util.Collections.addAll(set, ns);
        }
    }

    /**
     * Jackson's refusal of a second {@code name}, at the place it gives it: just past the name's closing quote
     * (the name's opening quote, its length and its closing quote as written, in bytes for a UTF-8 file; an escaped name counts as unescaped).
     */
    private JsonParseException duplicate(String name) {
        JsonLocation at = delegate.currentTokenLocation();
        boolean bytes = at.getByteOffset() >= 0;
        int length = bytes ? name.getBytes(StandardCharsets.UTF_8).length : name.length();
        JsonLocation past = new JsonLocation(at.contentReference(), bytes ? at.getByteOffset() + length + 2 : -1L,
                bytes ? -1L : at.getCharOffset() + length + 2, at.getLineNr(), at.getColumnNr() + length + 2);
        return new JsonParseException(delegate, "Duplicate field '" + name + "'", past);
    }


    // Every other way to the next token goes through nextToken, so that no name passes unchecked.

    @Override
    public JsonToken nextValue() throws IOException {
        JsonToken t = nextToken();
        return t == JsonToken.FIELD_NAME ? nextToken() : t;
    }

    @Override
    public String nextFieldName() throws IOException {
        return nextToken() == JsonToken.FIELD_NAME ? currentName() : null;
    }

    @Override
    public boolean nextFieldName(SerializableString name) throws IOException {
        return nextToken() == JsonToken.FIELD_NAME && name.getValue().equals(currentName());
    }

    @Override
    public String nextTextValue() throws IOException {
        return nextToken() == JsonToken.VALUE_STRING ? getText() : null;
    }

    @Override
    public int nextIntValue(int defaultValue) throws IOException {
        return nextToken() == JsonToken.VALUE_NUMBER_INT ? getIntValue() : defaultValue;
    }

    @Override
    public long nextLongValue(long defaultValue) throws IOException {
        return nextToken() == JsonToken.VALUE_NUMBER_INT ? getLongValue() : defaultValue;
    }

    @Override
    public Boolean nextBooleanValue() throws IOException {
        JsonToken t = nextToken();
        return t == JsonToken.VALUE_TRUE ? Boolean.TRUE : t == JsonToken.VALUE_FALSE ? Boolean.FALSE : null;
    }
}
