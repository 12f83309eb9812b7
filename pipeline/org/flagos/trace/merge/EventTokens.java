package org.flagos.trace.merge;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;
import org.flagos.trace.report.TraceFormatException;

/**
 * One trace event as its tokens, held while a merge decides how to write it: a trace may give an
 * event's fields in any order, so its {@code ph} and {@code name} are known only once it is whole.
 * Numbers keep their text, so what is copied is what was read. Reused from event to event; an event
 * of more than {@link #MAX_TOKENS} tokens is refused, so one event cannot take the heap.
 */
final class EventTokens {
    static final int MAX_TOKENS = 1 << 20;

    JsonToken[] tokens = new JsonToken[64];
    String[] texts = new String[64];
    int size;

    /** Reads the object the parser is at (its {@code START_OBJECT} current) to its end. */
    void read(JsonParser p, Object source) throws IOException {
        size = 0;
        int depth = 0;
        JsonToken t = p.currentToken();
        while (true) {
            if (t == null) {
                throw new TraceFormatException(source + " ends in the middle of an event (truncated?)");
            }
            if (size == tokens.length) {
                if (size >= MAX_TOKENS) {
                    throw new TraceFormatException(source + " holds an event of more than " + MAX_TOKENS + " JSON tokens; not a trace event");
                }
                tokens = Arrays.copyOf(tokens, size * 2);
                texts = Arrays.copyOf(texts, size * 2);
            }
            tokens[size] = t;
            texts[size] = switch (t) {
                case FIELD_NAME -> p.currentName();
                case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getText();
                default -> null;
            };
            size++;
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            }
            if (depth == 0) {
                return;
            }
            t = p.nextToken();
        }
    }

    /** The index of the value of top-level field {@code name}, or -1. */
    int top(String name) {
        int depth = 0;
        for (int i = 0; i < size; i++) {
            JsonToken t = tokens[i];
            if (depth == 1 && t == JsonToken.FIELD_NAME && texts[i].equals(name)) {
                return i + 1;
            }
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            }
        }
        return -1;
    }

    /** The text of top-level string field {@code name}, or null. */
    String topString(String name) {
        int i = top(name);
        return i < 0 || tokens[i] != JsonToken.VALUE_STRING ? null : texts[i];
    }

    /** The index of the value of {@code args.name}, or -1. */
    int arg(String name) {
        int args = top("args");
        if (args < 0 || tokens[args] != JsonToken.START_OBJECT) {
            return -1;
        }
        int depth = 0;
        for (int i = args; i < size; i++) {
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
