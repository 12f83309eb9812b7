package org.flagos.trace.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;

/**
 * An op's {@code args} object and {@code stack} array as an ops file and the journal hold them
 * ({@link OpArgs#toJson()}, a JSON array of frames), read back into the same {@link OpArgs} and
 * {@link OpStack}. Whatever a file says is checked as it is read: no count or length read from it
 * sizes memory beyond {@link OpArgs}' and {@link OpStack}'s bounds. A bad value is an
 * {@link IllegalArgumentException} saying what is wrong, which the readers turn into their own error.
 */
public final class OpDetailJson {
    private static final JsonFactory JSON = new JsonFactory();
    /** Elements of all lists of one op's args: each takes at least two bytes of encoded JSON. */
    private static final int MAX_ELEMENTS = OpArgs.MAX_VALUE_BYTES / 2;

    /** Reads the args object the parser is at ({@code START_OBJECT}), up to its end. */
    public static OpArgs readArgs(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("\"args\" must be a JSON object");
        }
        OpArgs.Builder b = OpArgs.builder();
        int[] elements = {0};
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken value = p.nextToken();
            switch (value) {
                case VALUE_NUMBER_INT:
                    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        throw new IllegalArgumentException("op arg '" + key + "': an integer must fit in 64 bits");
                    }
                    b.add(key, p.getLongValue());
                    break;
                case VALUE_NUMBER_FLOAT:
                    b.add(key, p.getDoubleValue());
                    break;
                case VALUE_STRING:
                    b.add(key, p.getText());
                    break;
                case START_ARRAY:
                    list(p, b, key, elements);
                    break;
                default:
                    throw new IllegalArgumentException("op arg '" + key + "': a value is an integer, a number, a string,"
                            + " or a list of integers, of integer lists or of strings, not " + value.asString());
            }
        }
        return b.build();
    }

    private static void list(JsonParser p, OpArgs.Builder b, String key, int[] elements) throws IOException {
        JsonToken first = p.nextToken();
        if (first == JsonToken.END_ARRAY) {
            b.add(key, new long[0]);
        } else if (first == JsonToken.VALUE_NUMBER_INT) {
            b.add(key, integers(p, key, elements));
        } else if (first == JsonToken.VALUE_STRING) {
            List<String> strings = new ArrayList<>();
            for (JsonToken t = first; t != JsonToken.END_ARRAY; t = p.nextToken()) {
                if (t != JsonToken.VALUE_STRING) {
                    throw new IllegalArgumentException("op arg '" + key + "': a list of strings holds only strings");
                }
                count(key, elements);
                strings.add(p.getText());
            }
            b.add(key, strings.toArray(new String[0]));
        } else if (first == JsonToken.START_ARRAY) {
            List<long[]> lists = new ArrayList<>();
            for (JsonToken t = first; t != JsonToken.END_ARRAY; t = p.nextToken()) {
                if (t != JsonToken.START_ARRAY) {
                    throw new IllegalArgumentException("op arg '" + key + "': a list of lists holds only lists of integers");
                }
                count(key, elements);
                JsonToken inner = p.nextToken();
                lists.add(inner == JsonToken.END_ARRAY ? new long[0] : integers(p, key, elements));
            }
            b.add(key, lists.toArray(new long[0][]));
        } else {
            throw new IllegalArgumentException("op arg '" + key + "': a list holds integers, integer lists or strings");
        }
    }

    /** The integers of the list whose first element the parser is at, up to its end. */
    private static long[] integers(JsonParser p, String key, int[] elements) throws IOException {
        long[] out = new long[8];
        int n = 0;
        for (JsonToken t = p.currentToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new IllegalArgumentException("op arg '" + key + "': a list of integers holds only integers of 64 bits");
            }
            count(key, elements);
            if (n == out.length) {
                out = Arrays.copyOf(out, n * 2);
            }
            out[n++] = p.getLongValue();
        }
        return Arrays.copyOf(out, n);
    }

    private static void count(String key, int[] elements) {
        if (++elements[0] > MAX_ELEMENTS) {
            throw new IllegalArgumentException("op arg '" + key + "': the op's args hold more than " + MAX_ELEMENTS
                    + " list elements (at most " + OpArgs.MAX_VALUE_BYTES + " bytes as JSON)");
        }
    }

    /** Reads the stack array the parser is at ({@code START_ARRAY}), up to its end. */
    public static OpStack readStack(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException("\"stack\" must be a JSON array of frames");
        }
        List<String> frames = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t != JsonToken.VALUE_STRING) {
                throw new IllegalArgumentException("\"stack\" holds frames as strings");
            }
            if (frames.size() == OpStack.MAX_FRAMES) {
                throw new IllegalArgumentException("\"stack\" has more than " + OpStack.MAX_FRAMES + " frames");
            }
            frames.add(p.getText());
        }
        return OpStack.of(frames);
    }

    /** The args of a journal's op document ({@link OpArgs#toJson()}); null text is none. */
    public static OpArgs argsOf(String json) {
        return json == null ? null : parse(json, true).args;
    }

    /** The stack of a journal's op document ({@link OpStack#framesJson()}); null text is none. */
    public static OpStack stackOf(String json) {
        return json == null ? null : parse(json, false).stack;
    }

    private static Parsed parse(String json, boolean args) {
        try (JsonParser p = JSON.createParser(json)) {
            p.nextToken();
            Parsed out = new Parsed();
            if (args) {
                out.args = readArgs(p);
            } else {
                out.stack = readStack(p);
            }
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("text after the " + (args ? "args" : "stack"));
            }
            return out;
        } catch (JsonParseException e) {
            throw new IllegalArgumentException("invalid JSON in the op's " + (args ? "args" : "stack") + " ("
                    + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable op " + (args ? "args" : "stack") + ": " + e.getMessage());
        }
    }

    private static final class Parsed {
        OpArgs args;
        OpStack stack;
    }

    private OpDetailJson() {
    }
}
