package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.flagos.trace.model.JsonText;
import org.flagos.trace.model.TerminalText;

/**
 * Two traces' op summaries side by side ({@code flagtrace diff A B}): the rows of {@link KeyAverages}
 * (the one summary rule, the rows {@code summary --json} writes) of each, matched by kind and name,
 * each time taken to the nanosecond as {@code summary --json} writes it. A row is added (only in B),
 * removed (only in A), slower or faster (its measured time, B less A, above or below zero), or
 * changed (the same measured time, other figures not); rows equal in every figure are unchanged and
 * only counted. The measured time is the device time total where the row has device time in either
 * trace (device work, and ops that launched some), else the CPU time total. Rows come by the absolute
 * difference of the measured time, largest first (then kind, host first, then name).
 */
public final class SummaryDiff {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

    /** One trace's figures for a row: calls and times in ns. */
    public record Side(long calls, long cpuTotalNs, long selfCpuNs, long selfDeviceNs, long deviceTotalNs, long cpuAvgNs, long deviceAvgNs) {
        static Side of(KeyAveragesRow r) {
            return new Side(r.count(), ns(r.cpuTotalUs()), ns(r.selfCpuUs()), ns(r.selfDeviceUs()), ns(r.deviceTotalUs()),
                    ns(r.cpuAvgUs()), ns(r.deviceAvgUs()));
        }
    }

    /** One row: a name of one kind, its figures in A and B (null where absent) and what changed. */
    public record Row(String name, boolean device, Side a, Side b) {
        /** Whether the row is measured by device time (it has some in A or B) rather than CPU time. */
        public boolean byDevice() {
            return device || a != null && a.deviceTotalNs() > 0 || b != null && b.deviceTotalNs() > 0;
        }

        /** The measured time total in A (0 where absent). */
        public long measuredA() {
            return a == null ? 0 : byDevice() ? a.deviceTotalNs() : a.cpuTotalNs();
        }

        /** The measured time total in B (0 where absent). */
        public long measuredB() {
            return b == null ? 0 : byDevice() ? b.deviceTotalNs() : b.cpuTotalNs();
        }

        /** B less A of the measured time, ns. */
        public long differenceNs() {
            return measuredB() - measuredA();
        }

        /** B over A of the measured time, to 4 decimals; null where A has none. */
        public BigDecimal ratio() {
            return measuredA() == 0 ? null : BigDecimal.valueOf(measuredB()).divide(BigDecimal.valueOf(measuredA()), 4, RoundingMode.HALF_EVEN);
        }

        /** added, removed, slower, faster, changed or unchanged. */
        public String change() {
            if (a == null) {
                return "added";
            }
            if (b == null) {
                return "removed";
            }
            long d = differenceNs();
            return d > 0 ? "slower" : d < 0 ? "faster" : a.equals(b) ? "unchanged" : "changed";
        }
    }

    private final List<Row> changed;
    private final int unchanged;
    private final String deviceLabel;

    private SummaryDiff(List<Row> changed, int unchanged, String deviceLabel) {
        this.changed = changed;
        this.unchanged = unchanged;
        this.deviceLabel = deviceLabel;
    }

    /** The rows of {@code b} against those of {@code a}. */
    public static SummaryDiff of(KeyAverages a, KeyAverages b) {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (KeyAveragesRow r : a.rows()) {
            rows.put(key(r), new Row(r.name(), r.device(), Side.of(r), null));
        }
        for (KeyAveragesRow r : b.rows()) {
            Row had = rows.get(key(r));
            rows.put(key(r), new Row(r.name(), r.device(), had == null ? null : had.a(), Side.of(r)));
        }
        List<Row> changed = new ArrayList<>();
        int unchanged = 0;
        for (Row r : rows.values()) {
            if (r.change().equals("unchanged")) {
                unchanged++;
            } else {
                changed.add(r);
            }
        }
        changed.sort(Comparator.comparingLong((Row r) -> -Math.abs(r.differenceNs())).thenComparing(Row::device)
                .thenComparing(Row::name));
        String label = a.hasDeviceTime() || !b.hasDeviceTime() ? a.deviceLabel() : b.deviceLabel();
        return new SummaryDiff(changed, unchanged, label);
    }

    private static String key(KeyAveragesRow r) {
        return (r.device() ? "d" : "h") + r.name();
    }

    /** A time of the summary in ns, rounded as {@code summary --json} writes it (to the ns, half even). */
    static long ns(double us) {
        return new BigDecimal(us).setScale(3, RoundingMode.HALF_EVEN).movePointRight(3).longValueExact();
    }

    /** The rows that differ, in order. */
    public List<Row> rows() {
        return changed;
    }

    /** How many rows are equal in every figure. */
    public int unchanged() {
        return unchanged;
    }

    /**
     * The table: the name (device work marked), change, the measured time (device or CPU), calls and
     * totals in A and B (µs), B less A, B over A; then how many rows differ and are unchanged.
     */
    public String render(int limit) {
        StringBuilder out = new StringBuilder();
        String n = System.lineSeparator();
        out.append(String.format(Locale.ROOT, ROW, "Name", "Change", "Time", "Calls A", "Calls B", "Total A us", "Total B us",
                "B-A us", "B/A")).append(n);
        int shown = 0;
        for (Row r : changed) {
            if (limit >= 0 && shown == limit) {
                break;
            }
            BigDecimal ratio = r.ratio();
            out.append(String.format(Locale.ROOT, ROW, shortName((r.device() ? "[device] " : "") + TerminalText.safe(r.name())),
                    r.change(), r.byDevice() ? deviceLabel : "CPU", r.a() == null ? "-" : Long.toString(r.a().calls()),
                    r.b() == null ? "-" : Long.toString(r.b().calls()), r.a() == null ? "-" : us(r.measuredA()),
                    r.b() == null ? "-" : us(r.measuredB()), us(r.differenceNs()), ratio == null ? "-" : ratio.toPlainString()))
                    .append(n);
            shown++;
        }
        out.append(changed.size()).append(changed.size() == 1 ? " row differs" : " rows differ")
                .append(shown < changed.size() ? " (" + shown + " shown)" : "").append(", ").append(unchanged)
                .append(" unchanged").append(n);
        return out.toString();
    }

    /** A row of the table: 100 columns (the name cut to {@value #NAME_WIDTH}, as torch cuts its names). */
    private static final String ROW = "%-23s %-7s %-6s %7s %7s %11s %11s %12s %8s";
    private static final int NAME_WIDTH = 23;

    private static String shortName(String name) {
        return name.length() <= NAME_WIDTH ? name : name.substring(0, NAME_WIDTH - 3) + "...";
    }

    private static String us(long ns) {
        return BigDecimal.valueOf(ns, 3).toPlainString();
    }

    private static BigDecimal usJson(long ns) {
        return BigDecimal.valueOf(ns, 3).stripTrailingZeros();
    }

    /**
     * As JSON (docs/formats.md): the inputs, the counts, and each differing row with its figures in A
     * and B (null where absent) in {@code summary --json}'s field names and units.
     */
    public void write(String a, String b, int limit, OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            JsonText.writeStringField(g, "a", a);
            JsonText.writeStringField(g, "b", b);
            g.writeStringField("device_label", deviceLabel);
            g.writeNumberField("rows_differing", changed.size());
            g.writeNumberField("rows_unchanged", unchanged);
            g.writeArrayFieldStart("rows");
            int shown = 0;
            for (Row r : changed) {
                if (limit >= 0 && shown++ == limit) {
                    break;
                }
                g.writeStartObject();
                JsonText.writeStringField(g, "name", r.name());
                g.writeStringField("kind", r.device() ? "device" : "host");
                g.writeStringField("change", r.change());
                g.writeStringField("measured", r.byDevice() ? "device_time_total" : "cpu_time_total");
                g.writeFieldName("difference_us");
                g.writeNumber(usJson(r.differenceNs()));
                g.writeFieldName("ratio");
                if (r.ratio() == null) {
                    g.writeNull();
                } else {
                    g.writeNumber(r.ratio());
                }
                side(g, "a", r.a());
                side(g, "b", r.b());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    private static void side(JsonGenerator g, String field, Side s) throws IOException {
        g.writeFieldName(field);
        if (s == null) {
            g.writeNull();
            return;
        }
        g.writeStartObject();
        g.writeNumberField("count", s.calls());
        micros(g, "self_cpu_time_total_us", s.selfCpuNs());
        micros(g, "cpu_time_total_us", s.cpuTotalNs());
        micros(g, "cpu_time_avg_us", s.cpuAvgNs());
        micros(g, "self_device_time_total_us", s.selfDeviceNs());
        micros(g, "device_time_total_us", s.deviceTotalNs());
        micros(g, "device_time_avg_us", s.deviceAvgNs());
        g.writeEndObject();
    }

    private static void micros(JsonGenerator g, String field, long ns) throws IOException {
        g.writeFieldName(field);
        g.writeNumber(usJson(ns));
    }
}
