package org.flagos.trace.tracefile;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;

/**
 * A parser delegate whose {@link #nextToken()} sees every token, those of a skipped value too: the delegate's own
 * {@code skipChildren} would read past them unseen (a duplicate field or an oversized event inside a skipped value).
 */
abstract class EveryTokenParser extends JsonParserDelegate {
    EveryTokenParser(JsonParser delegate) {
        super(delegate);
    }

    @Override
    public final JsonParser skipChildren() throws IOException {
        JsonToken t = delegate.currentToken();
        if (t != JsonToken.START_OBJECT && t != JsonToken.START_ARRAY) {
            return this;
        }
        int open = 1;
        while (open > 0) {
            JsonToken n = nextToken();
            if (n == null) {
                return this;
            }
            if (n == JsonToken.START_OBJECT || n == JsonToken.START_ARRAY) {
                open++;
            } else if (n == JsonToken.END_OBJECT || n == JsonToken.END_ARRAY) {
                open--;
            }
        }
        return this;
    }
}
