package org.flagos.trace.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;
import org.flagos.trace.report.TraceTopLevel;

/**
 * Checks a written trace the way {@link TeardownStress} checks the raw records: every memset event
 * with an {@code External id} must carry, as its {@code value}, that id's low byte (the stress fills
 * each memset with its op's id). The trace's attribution is the walk's, so this covers what the
 * host-op ledger and its settling bound do to the output, not only the join. Streams the file.
 */
final class TraceMemsetCheck {
    long memsets;
    /** Every {@code gpu_memset} in the trace, with an External id or without. */
    long allMemsets;
    long misattributed;
    String first = "none";

    static TraceMemsetCheck of(Path trace) throws IOException {
        TraceMemsetCheck check = new TraceMemsetCheck();
        try (JsonParser p = new JsonFactory().createParser(trace.toFile())) {
            TraceTopLevel.walk(p, trace, TraceTopLevel.Rules.TRACE, check::event);
        }
        return check;
    }

    private void event(JsonParser p) throws IOException {
        String cat = null;
        long external = -1;
        long value = -1;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (field.equals("cat") && t == JsonToken.VALUE_STRING) {
                cat = p.getText();
            } else if (field.equals("args") && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String arg = p.currentName();
                    JsonToken v = p.nextToken();
                    if (arg.equals("External id") && v == JsonToken.VALUE_NUMBER_INT) {
                        external = p.getLongValue();
                    } else if (arg.equals("value") && v == JsonToken.VALUE_NUMBER_INT) {
                        value = p.getLongValue();
                    } else {
                        p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        if ("gpu_memset".equals(cat)) {
            allMemsets++;
        }
        if ("gpu_memset".equals(cat) && external >= 0 && value >= 0) {
            memsets++;
            if ((external & 0xff) != value) {
                misattributed++;
                if (misattributed == 1) {
                    first = "External id " + external + " value " + value;
                }
            }
        }
    }
}
