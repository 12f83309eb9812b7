package org.flagos.trace.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@link RankTimes} as text tables of fixed columns (steps across ranks, then each rank's device
 * split) and as JSON rows, times in milliseconds (text) or microseconds (JSON); {@link RankOpsTable}
 * adds the ranks' op tables.
 */
public final class RankTimesTable {
    /** The row label when no rank has a step op: each rank's whole trace is one step. */
    public static final String WHOLE_TRACE = "whole trace";

    private static final JsonFactory JSON = new JsonFactory();

    private RankTimesTable() {
    }

    /** One step across the ranks: the median rank's time, the slowest rank and by how much it is over the median. */
    public record StepRow(String step, int ranks, long medianNs, long fastestNs, long slowestNs, String slowest) {
        /** The slowest rank's time over the median, ns. */
        public long overMedianNs() {
            return slowestNs - medianNs;
        }
    }

    /** The step rows: one per step number any rank has, or one "whole trace" row when none has a step (none without ranks). */
    public static List<StepRow> steps(RankTimes times) {
        List<StepRow> rows = new ArrayList<>();
        if (times.ranks().isEmpty()) { // a merge none of whose ranks holds an event: no row, not a median of nothing
            return rows;
        }
        if (!times.hasSteps()) {
            long[] t = new long[times.ranks().size()];
            String[] who = new String[t.length];
            for (int i = 0; i < t.length; i++) {
                t[i] = times.ranks().get(i).wholeNs();
                who[i] = times.ranks().get(i).label();
            }
            rows.add(row(WHOLE_TRACE, t, who));
            return rows;
        }
        TreeSet<Long> numbers = new TreeSet<>();
        for (RankTimes.Rank r : times.ranks()) {
            numbers.addAll(r.steps.keySet());
        }
        for (long n : numbers) {
            List<Long> t = new ArrayList<>();
            List<String> who = new ArrayList<>();
            for (RankTimes.Rank r : times.ranks()) {
                long[] se = r.steps.get(n);
                if (se != null) {
                    t.add(se[1] - se[0]);
                    who.add(r.label());
                }
            }
            rows.add(row(RankTimes.STEP_PREFIX + n, t.stream().mapToLong(Long::longValue).toArray(), who.toArray(String[]::new)));
        }
        return rows;
    }

    /** The median of an odd count is the middle time; of an even count, the mean of the two middle ones. */
    static long median(long[] times) {
        long[] s = times.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
    }

    private static StepRow row(String step, long[] t, String[] who) {
        int slowest = 0;
        long fastest = Long.MAX_VALUE;
        for (int i = 0; i < t.length; i++) {
            if (t[i] > t[slowest]) { // ties: the lowest rank
                slowest = i;
            }
            fastest = Math.min(fastest, t[i]);
        }
        return new StepRow(step, t.length, median(t), fastest, t[slowest], who[slowest]);
    }

    private static String ms(long ns) {
        return String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }

    private static String pct(long part, long whole) {
        return whole <= 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }

    /** Both tables as text, each line at most 100 characters (step names cut to 20). */
    public static String render(RankTimes times) {
        StringBuilder out = new StringBuilder();
        String stepFmt = "%-20s %5s %11s %11s %11s %-14s %11s %8s%n";
        out.append(String.format(Locale.ROOT, stepFmt, "Step", "Ranks", "Median ms", "Fastest ms", "Slowest ms", "Slowest rank",
                "Over med ms", "Over %"));
        for (StepRow s : steps(times)) {
            out.append(String.format(Locale.ROOT, stepFmt, cut(s.step(), 20), s.ranks(), ms(s.medianNs()), ms(s.fastestNs()),
                    ms(s.slowestNs()), cut(s.slowest(), 14), ms(s.overMedianNs()), pct(s.overMedianNs(), s.medianNs())));
        }
        out.append('\n');
        String rankFmt = "%-9s %6s %11s %11s %11s %11s %11s %11s %11s%n";
        out.append(String.format(Locale.ROOT, rankFmt, "Rank", "Steps", "Step ms", "Span ms", "Compute ms", "Comm ms",
                "Memory ms", "Idle ms", "Overlap ms"));
        for (RankTimes.Rank r : times.ranks()) {
            out.append(String.format(Locale.ROOT, rankFmt, cut(r.label(), 9), r.steps.size(), r.steps.isEmpty() ? "-" : ms(meanStep(r)),
                    ms(r.deviceSpanNs()), ms(r.computationNs()), ms(r.communicationNs()), ms(r.memoryNs()), ms(r.idleNs()),
                    ms(r.overlapNs())));
        }
        out.append("Step ms: the rank's mean step. Compute + Comm + Memory + Idle = Span, the rank's first to last\n"
                + "device work; Compute leaves out what overlaps Comm, Memory what overlaps either.\n"
                + "Overlap: Comm and Compute at once.\n");
        return out.toString();
    }

    private static long meanStep(RankTimes.Rank r) {
        long sum = 0;
        for (long[] se : r.steps.values()) {
            sum += se[1] - se[0];
        }
        return sum / r.steps.size();
    }

    private static String cut(String s, int width) {
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
    }

    /** Writes the step rows and rank rows as JSON, times in microseconds; then, when {@code ops} is not null, its op table. */
    public static void write(RankTimes times, RankOps ops, OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeArrayFieldStart("steps");
            for (StepRow s : steps(times)) {
                g.writeStartObject();
                g.writeStringField("step", s.step());
                g.writeNumberField("ranks", s.ranks());
                g.writeNumberField("median_us", s.medianNs() / 1e3);
                g.writeNumberField("fastest_us", s.fastestNs() / 1e3);
                g.writeNumberField("slowest_us", s.slowestNs() / 1e3);
                g.writeStringField("slowest_rank", s.slowest());
                g.writeNumberField("over_median_us", s.overMedianNs() / 1e3);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("ranks");
            for (RankTimes.Rank r : times.ranks()) {
                g.writeStartObject();
                g.writeStringField("rank", r.label());
                g.writeNumberField("slot", r.slot());
                if (r.host() != null) {
                    g.writeStringField("host", r.host());
                }
                g.writeObjectFieldStart("step_us");
                for (Map.Entry<Long, Long> e : r.stepTimes().entrySet()) {
                    g.writeNumberField(RankTimes.STEP_PREFIX + e.getKey(), e.getValue() / 1e3);
                }
                g.writeEndObject();
                g.writeNumberField("whole_us", r.wholeNs() / 1e3);
                g.writeNumberField("device_span_us", r.deviceSpanNs() / 1e3);
                g.writeNumberField("computation_us", r.computationNs() / 1e3);
                g.writeNumberField("communication_us", r.communicationNs() / 1e3);
                g.writeNumberField("memory_us", r.memoryNs() / 1e3);
                g.writeNumberField("idle_us", r.idleNs() / 1e3);
                g.writeNumberField("overlap_us", r.overlapNs() / 1e3);
                g.writeNumberField("computation_total_us", r.computationTotalNs() / 1e3);
                g.writeNumberField("device_events", r.deviceEvents());
                g.writeEndObject();
            }
            g.writeEndArray();
            if (ops != null) {
                RankOpsTable.write(ops, g);
            }
            g.writeNumberField("left_out_invalid", times.invalidEvents());
            g.writeNumberField("left_out_unplaced", times.unplacedEvents());
            g.writeEndObject();
        }
    }
}
