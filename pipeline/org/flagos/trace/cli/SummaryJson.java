package org.flagos.trace.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import org.flagos.trace.model.JsonText;
import org.flagos.trace.stages.OpSummary;
import org.flagos.trace.stages.OpSummaryRow;

/** Writes an {@link OpSummary} as a JSON list of rows. */
final class SummaryJson {
    private static final JsonFactory JSON = new JsonFactory();

    static void write(OpSummary summary, OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartArray();
            for (OpSummaryRow row : summary.rows()) {
                g.writeStartObject();
                JsonText.writeStringField(g, "name", row.name());
                g.writeNumberField("count", row.count());
                g.writeNumberField("cpu_time_total_us", row.cpuTimeTotalUs());
                g.writeNumberField("self_cpu_time_total_us", row.selfCpuTimeTotalUs());
                g.writeNumberField("device_time_total_us", row.deviceTimeTotalUs());
                g.writeNumberField("self_device_time_total_us", row.selfDeviceTimeTotalUs());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
    }

    private SummaryJson() {
    }
}
