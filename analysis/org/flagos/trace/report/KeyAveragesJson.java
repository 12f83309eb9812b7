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
import org.flagos.trace.stages.OpSummary;

/**
 * Writes a summary as JSON, the one schema of every summary file flagtrace writes ({@code summary
 * --json}, {@code replay --summary}, {@code record --summary}): totals (over every row, as torch's
 * table footer) and the selected rows with torch's field names, times in microseconds to the
 * nanosecond (docs/formats.md).
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

    /** The summary of a trace file, with the reader's counts of what it read. */
    public static void write(TraceFile trace, KeyAverages averages, SortKey sort, int limit, OutputStream out) throws IOException {
        write(averages, sort, limit, new long[] {trace.events(), trace.otherEvents(), trace.invalidEvents(), trace.spilledBytes()}, out);
    }

    /**
     * The summary the walk computed ({@code replay --summary}, {@code record --summary}, a session's):
     * the same schema and rule as a trace file's, every row, without the reader's counts.
     */
    public static void write(OpSummary summary, OutputStream out) throws IOException {
        KeyAverages averages = KeyAverages.of(summary);
        write(averages, averages.hasDeviceTime() ? SortKey.SELF_DEVICE_TIME_TOTAL : SortKey.CPU_TIME_TOTAL, -1, null, out);
    }

    /** {@code read}: events, other events, invalid events and spilled bytes of a trace read, or null. */
    private static void write(KeyAverages averages, SortKey sort, int limit, long[] read, OutputStream out) throws IOException {
        List<KeyAveragesRow> all = KeyAveragesTable.select(averages, sort, -1);
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("device_label", averages.deviceLabel());
            g.writeStringField("sort", sort == null ? null : sort.key());
            micros(g, "self_cpu_time_total_us", KeyAverages.selfCpuTotalUs(all));
            micros(g, "self_device_time_total_us", KeyAverages.selfDeviceTotalUs(all));
            if (read != null) {
                g.writeNumberField("events", read[0]);
                g.writeNumberField("other_events", read[1]);
                g.writeNumberField("invalid_events", read[2]);
                g.writeNumberField("spilled_bytes", read[3]);
            }
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
