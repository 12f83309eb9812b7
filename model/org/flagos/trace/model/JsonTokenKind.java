package org.flagos.trace.model;

import com.fasterxml.jackson.core.JsonToken;

/**
 * What a JSON value is, in the words every reader's message uses when a value of the wrong kind stands
 * where another belongs ("traceEvents holds a string where an event object belongs", "rank must be a whole
 * number ..., not a fraction", "device 0 is null, not a JSON object"): one rule, so that each reader names
 * the same value the same way.
 */
public final class JsonTokenKind {
    private JsonTokenKind() {
    }

    /** The value that starts at {@code token}, with its article: "an object", "a fraction", "null". */
    public static String words(JsonToken token) {
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "a number";
            case VALUE_NUMBER_FLOAT -> "a fraction";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> "a value of another kind";
        };
    }
}
