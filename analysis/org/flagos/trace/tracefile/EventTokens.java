package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonToken;
import java.util.Arrays;

/**
 * One trace event as its JSON tokens, kept by the reader for a command that copies events
 * ({@code merge}): a trace may give an event's fields in any order, so its {@code ph} and
 * {@code name} are known only once it is whole. Numbers keep their text, so what is copied is what
 * was read. Reused from event to event; its size is bounded by {@link TraceLimits#MAX_EVENT_BYTES},
 * checked as each token is read.
 */
public final class EventTokens {
    JsonToken[] tokens = new JsonToken[64];
    String[] texts = new String[64];
    int size;

    void add(JsonToken t, String text) {
        if (size == tokens.length) {
            tokens = Arrays.copyOf(tokens, size * 2);
            texts = Arrays.copyOf(texts, size * 2);
        }
        tokens[size] = t;
        texts[size] = text;
        size++;
    }

    /**
     * The tokens of one event's bytes ({@link TraceEvent#rawBytes}), read again: for a reader that was given the
     * event's bytes and needs its tokens too (the reader has checked them already).
     */
    public static EventTokens parse(byte[] b, int from, int to) throws java.io.IOException {
        EventTokens tokens = new EventTokens();
        try (com.fasterxml.jackson.core.JsonParser p = TraceSource.JSON.createParser(b, from, to - from)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                tokens.add(t, switch (t) {
                    case FIELD_NAME -> p.currentName();
                    case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getText();
                    default -> null;
                });
            }
        }
        return tokens;
    }

    /** Tokens held. */
    public int size() {
        return size;
    }

    /** Token {@code i}. */
    public JsonToken token(int i) {
        return tokens[i];
    }

    /** The text of token {@code i}: a field's name, a string, a number as written; null for the rest. */
    public String text(int i) {
        return texts[i];
    }

    /** The index of the value of top-level field {@code name}, or -1. */
    public int top(String name) {
        return field(0, name);
    }

    /** The text of top-level string field {@code name}, or null. */
    public String topString(String name) {
        int i = top(name);
        return i < 0 || tokens[i] != JsonToken.VALUE_STRING ? null : texts[i];
    }

    /** The index of the value of {@code args.name}, or -1. */
    public int arg(String name) {
        int args = top("args");
        if (args < 0 || tokens[args] != JsonToken.START_OBJECT) {
            return -1;
        }
        return field(args, name);
    }

    /**
     * The index of the value of field {@code name} of the object whose {@code START_OBJECT} is token
     * {@code from} (its own fields only, not those of objects inside it), or -1.
     */
    private int field(int from, String name) {
        int depth = 0;
        for (int i = from; i < size; i++) {
            JsonToken t = tokens[i];
            if (depth == 1 && t == JsonToken.FIELD_NAME && texts[i].equals(name)) {
                return i + 1;
            }
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
                if (depth == 0) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
