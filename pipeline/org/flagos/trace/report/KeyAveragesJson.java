package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import org.flagos.trace.model.JsonText;

/**
 * Writes the summary as JSON: totals (over every row, as torch's table footer) and the selected
 * rows with torch's field names, times in microseconds.
 */
public final class KeyAveragesJson {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

    private KeyAveragesJson() {
    }

    /** Microseconds to the nanosecond, without the binary noise of torch's double arithmetic. */
    private static void micros(JsonGenerator g, String field, double us) throws IOException {
        g.writeFieldName(field);
        g.writeNumber(new BigDecimal(us).setScale(3, RoundingMode.HALF_EVEN).stripTrailingZeros());
    }

    public static void write(TraceFile trace, KeyAverages averages, SortKey sort, int limit, OutputStream out) throws IOException {
        List<KeyAveragesRow> all = KeyAveragesTable.select(averages, sort, -1);
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("device_label", averages.deviceLabel());
            g.writeStringField("sort", sort == null ? null : sort.key());
            micros(g, "self_cpu_time_total_us", KeyAverages.selfCpuTotalUs(all));
            micros(g, "self_device_time_total_us", KeyAverages.selfDeviceTotalUs(all));
            g.writeNumberField("events", trace.events());
            g.writeNumberField("other_events", trace.otherEvents());
            g.writeNumberField("invalid_events", trace.invalidEvents());
            g.writeNumberField("spilled_bytes", trace.spilledBytes());
            g.writeNumberField("rows_total", all.size());
            g.writeArrayFieldStart("rows");
            for (KeyAveragesRow r : KeyAveragesTable.select(averages, sort, limit)) {
                g.writeStartObject();
                JsonText.writeStringField(g, "name", r.name());
                g.writeStringField("kind", r.device() ? "device" : "host");
                g.writeNumberField("count", r.count());
                micros(g, "self_cpu_time_total_us", r.selfCpuUs());
                micros(g, "cpu_time_total_us", r.cpuTotalUs());
                micros(g, "cpu_time_avg_us", r.cpuAvgUs());
                micros(g, "self_device_time_total_us", r.selfDeviceUs());
                micros(g, "device_time_total_us", r.deviceTotalUs());
                micros(g, "device_time_avg_us", r.deviceAvgUs());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }
}
