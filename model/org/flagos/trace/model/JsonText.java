package org.flagos.trace.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Any Java string as the body of a JSON string. Names come from files and from other processes'
 * memory, and a Java string may hold a lone surrogate ({@code "\ud800"} is valid JSON, and a reader
 * hands it over as such): a strict UTF-8 encoder refuses it, and one bad name would lose the whole
 * trace. Lone surrogates are written as {@code \}{@code uXXXX} escapes, which keeps the text exactly
 * and the document valid; everything else is escaped as Jackson does.
 */
public final class JsonText {
    private static final JsonStringEncoder ENCODER = JsonStringEncoder.getInstance();

    /** The quoted body (no surrounding quotes) as UTF-8. */
    public static byte[] quotedUtf8(String s) {
        if (!hasLoneSurrogate(s)) {
            return ENCODER.quoteAsUTF8(s);
        }
        return new String(quoted(s)).getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@code s} as a JSON string value through {@code g}. */
    public static void writeString(JsonGenerator g, String s) throws IOException {
        if (!hasLoneSurrogate(s)) {
            g.writeString(s);
        } else {
            g.writeRawValue("\"" + new String(quoted(s)) + "\"");
        }
    }

    /** Writes {@code name: s} through {@code g}. */
    public static void writeStringField(JsonGenerator g, String name, String s) throws IOException {
        g.writeFieldName(name);
        writeString(g, s);
    }

    private static char[] quoted(String s) {
        StringBuilder out = new StringBuilder(s.length() + 16);
        int run = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean lone = Character.isHighSurrogate(c)
                    ? i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))
                    : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)));
            if (lone) {
                out.append(ENCODER.quoteAsString(s.substring(run, i)));
                out.append(String.format("\\u%04x", (int) c));
                run = i + 1;
            }
        }
        out.append(ENCODER.quoteAsString(s.substring(run)));
        char[] chars = new char[out.length()];
        out.getChars(0, out.length(), chars, 0);
        return chars;
    }

    /** True when {@code s} holds a UTF-16 surrogate without its partner. */
    public static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            }
        }
        return false;
    }

    private JsonText() {
    }
}
