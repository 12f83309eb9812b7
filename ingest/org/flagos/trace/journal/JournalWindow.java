package org.flagos.trace.journal;

/**
 * The part of a journal to export: {@code --from}/{@code --to} as epoch ns or as {@code +DURATION}
 * after the session's start, or {@code --last DURATION} before the journal's latest time (its stop
 * marker, else its latest op or buffer). Durations: a number with {@code ns}, {@code us},
 * {@code ms}, {@code s}, {@code m} or {@code h}. Records are kept only when they lie wholly inside
 * the resolved window, as the capture window is applied. A window that ends before it starts, or
 * that lies outside the journal's time span, is refused with the span in words.
 */
public final class JournalWindow {
    /** Everything the journal holds. */
    public static final JournalWindow ALL = new JournalWindow(null, null, null);

    private final String from;
    private final String to;
    private final String last;

    private JournalWindow(String from, String to, String last) {
        this.from = from;
        this.to = to;
        this.last = last;
    }

    /**
     * A window from the command line's values (each may be null).
     *
     * @throws IllegalArgumentException for a malformed value, {@code --last} with {@code --from}, or
     *         a {@code --from} after {@code --to} (both epoch ns, or both relative)
     */
    public static JournalWindow of(String from, String to, String last) {
        if (last != null && from != null) {
            throw new IllegalArgumentException("--last and --from cannot both be given");
        }
        JournalWindow w = new JournalWindow(from, to, last);
        if (from != null) {
            w.check(from);
        }
        if (to != null) {
            w.check(to);
        }
        if (from != null && to != null && from.startsWith("+") == to.startsWith("+")) {
            boolean relative = from.startsWith("+");
            long lo = relative ? duration(from.substring(1)) : parseNs(from);
            long hi = relative ? duration(to.substring(1)) : parseNs(to);
            if (lo > hi) {
                throw new IllegalArgumentException("--from " + from + " is after --to " + to
                        + ": the window would end before it starts; give a --to later than --from");
            }
        }
        if (last != null) {
            duration(last);
        }
        return w;
    }

    /**
     * The window [lo, hi] in epoch ns, intersected with the session's window.
     *
     * @throws IllegalArgumentException when it ends before it starts or lies outside the journal's
     *         time span (the message gives the span)
     */
    public long[] resolve(JournalFacts facts) {
        long lo = facts.startNs() == JournalSchema.NO_TIME ? Long.MIN_VALUE : facts.startNs();
        long hi = facts.stopped() ? facts.stopNs() : Long.MAX_VALUE;
        if (from != null) {
            lo = Math.max(lo, time(from, facts));
        }
        if (to != null) {
            hi = Math.min(hi, time(to, facts));
        }
        if (last != null) {
            if (facts.lastNs() == JournalSchema.NO_TIME) {
                throw new IllegalArgumentException("--last needs a time the journal ends at, and this one records none"
                        + " (no stop marker, op or live buffer): give --from/--to in epoch ns");
            }
            long end = to != null ? hi : facts.lastNs();
            lo = Math.max(lo, end - duration(last));
            hi = Math.min(hi, end);
        }
        long spanStart = facts.startNs();
        long spanEnd = facts.lastNs();
        if (from != null && spanEnd != JournalSchema.NO_TIME && lo > spanEnd) {
            throw new IllegalArgumentException("--from " + from + " is after the journal's end; " + span(facts));
        }
        if (to != null && spanStart != JournalSchema.NO_TIME && hi < spanStart) {
            throw new IllegalArgumentException("--to " + to + " is before the journal's start; " + span(facts));
        }
        if (lo > hi) {
            throw new IllegalArgumentException("the window " + lo + " .. " + hi + " ns (epoch) ends before it starts; " + span(facts));
        }
        return new long[] {lo, hi};
    }

    /** The journal's time span in words: what --from/--to can select. */
    static String span(JournalFacts facts) {
        long start = facts.startNs();
        long end = facts.lastNs();
        if (start == JournalSchema.NO_TIME && end == JournalSchema.NO_TIME) {
            return "the journal records no time span (no session start, op or stop time)";
        }
        if (start == JournalSchema.NO_TIME) {
            return "the journal records no start, and ends at " + end + " ns (epoch)";
        }
        if (end == JournalSchema.NO_TIME || end < start) {
            return "the journal starts at " + start + " ns (epoch) and records no end";
        }
        return "the journal spans " + start + " .. " + end + " ns (epoch), that is +0s .. +" + seconds(end - start)
                + " after its start";
    }

    private static String seconds(long ns) {
        return java.math.BigDecimal.valueOf(ns, 9).stripTrailingZeros().toPlainString() + "s";
    }

    /** True when nothing was asked: the whole journal. */
    public boolean isAll() {
        return from == null && to == null && last == null;
    }

    private void check(String spec) {
        if (spec.startsWith("+")) {
            duration(spec.substring(1));
        } else {
            parseNs(spec);
        }
    }

    private static long time(String spec, JournalFacts facts) {
        if (spec.startsWith("+")) {
            if (facts.startNs() == JournalSchema.NO_TIME) {
                throw new IllegalArgumentException("'" + spec + "' is relative to the session's start, and this journal"
                        + " records none: give epoch ns");
            }
            return facts.startNs() + duration(spec.substring(1));
        }
        return parseNs(spec);
    }

    private static long parseNs(String spec) {
        try {
            long ns = Long.parseLong(spec);
            if (ns < 0) {
                throw new NumberFormatException();
            }
            return ns;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + spec + "' is neither epoch ns nor +DURATION (e.g. +2s)");
        }
    }

    /** {@code 30s}, {@code 1500ms}, {@code 2m}... in ns. */
    public static long duration(String spec) {
        String[] units = {"ns", "us", "ms", "s", "m", "h"};
        long[] scale = {1, 1_000, 1_000_000, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L};
        for (int i = 0; i < units.length; i++) {
            String unit = units[i];
            if (spec.endsWith(unit) && !(unit.equals("s") && (spec.endsWith("ns") || spec.endsWith("us") || spec.endsWith("ms")))
                    && !(unit.equals("m") && spec.endsWith("mm"))) {
                String number = spec.substring(0, spec.length() - unit.length());
                try {
                    double value = Double.parseDouble(number);
                    if (!(value >= 0) || value * scale[i] > Long.MAX_VALUE / 2 || number.isBlank()) {
                        throw new NumberFormatException();
                    }
                    return Math.round(value * scale[i]);
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw new IllegalArgumentException("'" + spec + "' is not a duration (a number with ns, us, ms, s, m or h, e.g. 30s)");
    }
}
