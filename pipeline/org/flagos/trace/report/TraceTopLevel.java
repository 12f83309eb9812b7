package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The top level of a Chrome JSON trace, walked in one streaming pass: an object whose
 * {@code traceEvents} array holds the events, with other top-level blocks ({@code deviceProperties},
 * {@code distributedInfo}, {@code baseTimeNanoseconds}, flagtrace's blocks, ...) before or after it,
 * or the Chrome trace format's older form, the bare array of events. Each event and each block is
 * handed to a {@link Visitor} as the parser reaches it. The walk keeps nothing of either, so a trace
 * of any size is walked in the parser's buffers and whatever the visitor keeps.
 */
public final class TraceTopLevel {
    /** What a walk hands its reader. */
    public interface Visitor {
        /** One event object, the parser on its {@code START_OBJECT}: read it to its {@code END_OBJECT}. */
        void event(JsonParser p) throws IOException;

        /**
         * A top-level field other than the events array ({@code traceEvents} that is not an array comes
         * here too), the parser on its value's first token: read the value to its end. The default skips it.
         */
        default void block(String field, JsonToken value, JsonParser p) throws IOException {
            p.skipChildren();
        }
    }

    /**
     * What a reader takes for a trace, and the line (after the file's name) that refuses anything else.
     *
     * @param bareArray    whether the bare array of events is a trace; if not, it is refused as {@code notADocument}
     * @param events       whether each event goes to the visitor; if not, the array is skipped, its elements unread
     * @param wholeFile    whether JSON after the trace document is refused; if not, it is left unread
     * @param notADocument the file's JSON is not a trace document
     * @param notAnEvent   an element of {@code traceEvents} is not an object, or the array is cut short; null says
     *                     which token stands there and on which line
     * @param noEvents     the document has no {@code traceEvents} array
     */
    public record Rules(boolean bareArray, boolean events, boolean wholeFile, String notADocument, String notAnEvent,
                        String noEvents) {
        /** Either form, every element of the array an event, nothing after the document: the summary's and the tables'. */
        public static final Rules TRACE = new Rules(true, true, true, "is not a trace: it is JSON, but not an object with traceEvents",
                null, "is not a trace: no traceEvents array");
    }

    private TraceTopLevel() {
    }

    /**
     * Walks the document {@code p} is about to read, {@code path}'s, under {@code rules}; what breaks
     * them ends in a {@link TraceFormatException} naming {@code path}.
     *
     * @return whether the document is the bare array of events
     */
    public static boolean walk(JsonParser p, Path path, Rules rules, Visitor visitor) throws IOException {
        JsonToken first = p.nextToken();
        boolean sawEvents = false;
        if (first == JsonToken.START_ARRAY && rules.bareArray()) {
            events(p, path, rules, visitor);
            sawEvents = true;
        } else if (first == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("traceEvents") && value == JsonToken.START_ARRAY) {
                    events(p, path, rules, visitor);
                    sawEvents = true;
                } else {
                    visitor.block(field, value, p);
                }
            }
        } else {
            throw new TraceFormatException(path + " " + rules.notADocument());
        }
        if (!sawEvents) {
            throw new TraceFormatException(path + " " + rules.noEvents());
        }
        if (rules.wholeFile() && p.nextToken() != null) {
            throw new TraceFormatException(path + " is not a trace: more JSON follows the trace document");
        }
        return first == JsonToken.START_ARRAY;
    }

    private static void events(JsonParser p, Path path, Rules rules, Visitor visitor) throws IOException {
        if (!rules.events()) {
            p.skipChildren();
            return;
        }
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t == JsonToken.START_OBJECT) {
                visitor.event(p);
            } else if (rules.notAnEvent() != null) {
                throw new TraceFormatException(path + " " + rules.notAnEvent());
            } else if (t == null) {
                throw new TraceFormatException(path + " ends in the middle of its traceEvents (truncated?)");
            } else {
                throw new TraceFormatException(path + " is not a trace: traceEvents holds a " + t.asString()
                        + " where an event object belongs (line " + p.currentLocation().getLineNr() + ")");
            }
        }
    }

    /** A scalar's text; null for objects and arrays (skipped) and for null. */
    static String text(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
            p.skipChildren();
            return null;
        }
        return v == JsonToken.VALUE_NULL ? null : p.getText();
    }
}
