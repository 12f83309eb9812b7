package org.flagos.trace.merge;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.flagos.trace.model.JsonText;
import org.flagos.trace.model.ProcessIdentity;
import com.fasterxml.jackson.core.JsonToken;
import org.flagos.trace.tracefile.EventTokens;
import org.flagos.trace.tracefile.TraceFormatException;
import org.flagos.trace.tracefile.TraceLimits;
import org.flagos.trace.tracefile.TraceSource;

/**
 * Many processes' Chrome JSON traces into one ({@code flagtrace merge}): one group of processes per
 * rank, labelled with its rank, host and pid; ids kept unique and every arrow still paired; times on
 * the reference's clock (the lowest rank's), with each trace's offset and bound stated in the merged
 * trace's {@code flagtrace_merge} block.
 *
 * <p>Bounded memory: each trace is read once ({@link InputCopy#read}, as many at a time as there are cores), its
 * facts (who, clock anchors, base time, collectives) gathered and its events kept, one at a time, in a scratch part
 * as the bytes they will be written as, with the pids, times and ids cut out; once the clocks are aligned the parts
 * are written in turn with those filled in. Chrome JSON needs no global order of events, so traces are copied one
 * after another rather than interleaved.
 */
public final class TraceMerge {
    /**
     * What was merged.
     *
     * @param events  events copied, besides the process labels written
     * @param boundNs the largest alignment bound of any trace; -1 when one was taken as aligned without anchors
     * @param ranks   one line per trace, in the merged order
     * @param collectives one line naming the traces aligned by collectives, their offsets and residuals; null when none was
     */
    public record Result(long events, long boundNs, List<String> ranks, String clock, String collectives) {
    }

    private TraceMerge() {
    }

    /**
     * Merges {@code traces} into {@code out}.
     *
     * @param assumeAligned merge traces that neither clock anchors nor shared collectives align with offset 0 (otherwise
     *                      they are refused)
     */
    public static Result run(List<Path> traces, OutputStream out, ClockChoice choice, boolean assumeAligned) throws IOException {
        List<String> sources = new ArrayList<>();
        traces.forEach(t -> sources.add(t.toString()));
        return run(traces, sources, out, choice, assumeAligned);
    }

    /**
     * As {@link #run(List, OutputStream, ClockChoice, boolean)}, {@code sources} naming each trace
     * in what is printed and in {@code flagtrace_merge} (the capture or journal a trace was replayed from).
     */
    public static Result run(List<Path> traces, List<String> sources, OutputStream out, ClockChoice choice, boolean assumeAligned)
            throws IOException {
        return run(traces, sources, out, choice, assumeAligned, Path.of(System.getProperty("java.io.tmpdir")));
    }

    /**
     * As {@link #run(List, List, OutputStream, ClockChoice, boolean)}, each input's events kept in a scratch part in
     * {@code scratch} between the two steps (named {@code .flagtrace-merge.PID-*.part}, deleted before it returns).
     */
    public static Result run(List<Path> traces, List<String> sources, OutputStream out, ClockChoice choice, boolean assumeAligned,
                             Path scratch) throws IOException {
        if (traces.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge");
        }
        List<InputCopy> read = readAll(traces, scratch);
        try {
            return merge(read, sources, out, choice, assumeAligned);
        } finally {
            read.forEach(InputCopy::delete);
        }
    }

    /**
     * Reads every input once ({@link InputCopy#read}), as many at a time as there are cores: the parts in input order,
     * or the failure of the first input (in the order given) that failed, as a merge reading them in turn would say.
     */
    private static List<InputCopy> readAll(List<Path> traces, Path scratch) throws IOException {
        int threads = Math.max(1, Math.min(traces.size(), Runtime.getRuntime().availableProcessors()));
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "merge-read");
            t.setDaemon(true);
            return t;
        });
        List<java.util.concurrent.Future<InputCopy>> futures = new ArrayList<>();
        for (Path trace : traces) {
            futures.add(pool.submit(() -> {
                if (failed.get()) {
                    return null;
                }
                try {
                    return InputCopy.read(trace, scratch, failed::get);
                } catch (IOException | RuntimeException | Error e) {
                    failed.set(true);
                    throw e;
                }
            }));
        }
        pool.shutdown();
        List<InputCopy> read = new ArrayList<>();
        Throwable first = null;
        for (java.util.concurrent.Future<InputCopy> f : futures) {
            try {
                InputCopy c = f.get();
                if (c != null) {
                    read.add(c);
                }
            } catch (java.util.concurrent.ExecutionException e) {
                if (first == null && !(e.getCause() instanceof java.io.InterruptedIOException && failed.get())) {
                    first = e.getCause();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                first = first == null ? new java.io.InterruptedIOException("merge interrupted") : first;
            }
        }
        if (first != null) {
            read.forEach(InputCopy::delete);
            if (first instanceof IOException io) {
                throw io;
            }
            if (first instanceof RuntimeException r) {
                throw r;
            }
            throw (Error) first;
        }
        return read;
    }

    private static Result merge(List<InputCopy> read, List<String> sources, OutputStream out, ClockChoice choice, boolean assumeAligned)
            throws IOException {
        List<TraceFacts> facts = new ArrayList<>();
        for (InputCopy c : read) {
            facts.add(c.facts());
        }
        List<TraceFacts> order = ordered(facts);
        List<RankAlignment> alignments = alignAll(order, facts, choice, assumeAligned);
        facts.forEach(f -> f.collectives().release()); // the copy needs none of them
        long base = Long.MAX_VALUE;
        long[] starts = new long[order.size()];
        for (int i = 0; i < order.size(); i++) {
            starts[i] = onReference(order.get(i), order.get(i).baseNs(), alignments.get(i).offsetNs());
            base = Math.min(base, starts[i]);
        }
        JsonGenerator g = TraceSource.JSON.createGenerator(out, JsonEncoding.UTF8);
        g.writeStartObject();
        g.writeNumberField("schemaVersion", 1);
        JsonText.writeStringField(g, "traceName", "merge of " + order.size() + " traces");
        g.writeStringField("displayTimeUnit", "ms");
        g.writeNumberField("baseTimeNanoseconds", base);
        g.writeArrayFieldStart("traceEvents");
        g.flush(); // the events go straight to out, then the generator goes on after them
        InputCopy.MergedEvents events = new InputCopy.MergedEvents(out);
        List<InputCopy> copies = new ArrayList<>();
        long copied = 0;
        for (int i = 0; i < order.size(); i++) {
            TraceFacts f = order.get(i);
            long shift = starts[i] - base; // both within ±2^62 ns: no overflow
            InputCopy copy = read.get(facts.indexOf(f));
            copy.copy(events, i, order.size(), shift, label(f, facts.indexOf(f)));
            copies.add(copy);
            copied += copy.events;
        }
        events.flush();
        long eventCount = copied;
        g.writeEndArray();
        writeDevices(g, order, copies);
        writeAccounting(g, order, facts);
        long bound = 0;
        String clock = null;
        for (RankAlignment a : alignments) {
            bound = bound < 0 || a.boundNs() < 0 ? -1 : Math.max(bound, a.boundNs());
            if (!a.clock().equals("reference")) {
                clock = clock == null || clock.equals(a.clock()) ? a.clock() : "mixed";
            }
        }
        clock = clock == null ? "reference" : clock;
        writeBlock(g, order, alignments, copies, facts, sources, choice, bound, clock);
        g.writeEndObject();
        g.flush();
        g.close();
        List<String> lines = new ArrayList<>();
        List<String> byCollectives = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            RankAlignment a = alignments.get(i);
            String label = label(order.get(i), facts.indexOf(order.get(i)));
            RankAlignment.Collectives c = a.collectives();
            String how = c != null ? " ± " + a.boundNs() + " ns (collectives: " + c.matched() + " ends of " + c.keys() + " kinds matched"
                    + " against " + c.against() + ", median residual " + c.medianResidualNs() + " ns)"
                    : a.boundNs() >= 0 ? " ± " + a.boundNs() + " ns (" + a.clock() + ")"
                    : " (" + a.clock() + ", no anchors)"; // "(assumed, no anchors)": the clock said once
            lines.add(label + ": " + sources.get(facts.indexOf(order.get(i))) + ", " + copies.get(i).events + " events, offset "
                    + a.offsetNs() + " ns" + how);
            if (c != null) {
                byCollectives.add(label + " offset " + a.offsetNs() + " ns, residual " + c.residualNs() + " ns (median "
                        + c.medianResidualNs() + " ns, " + c.matched() + " ends)");
            }
        }
        String collectivesLine = byCollectives.isEmpty() ? null : "aligned by the ends of shared collectives (no clock anchors): "
                + String.join("; ", byCollectives);
        return new Result(eventCount, bound, lines, clock, collectivesLine);
    }

    /** The header of {@link #offsets}'s table. */
    public static final String OFFSETS_HEADER = "input\trank\ttrace\tcollective_kernels\tcollectives_offset_ns\tresidual_ns\tmedian_residual_ns\tmatched\tagainst"
            + "\tanchors_offset_ns\tanchors_bound_ns\tanchors_clock";

    /**
     * What the shared collectives say of each trace's clock, whatever its anchors say, beside what the anchors say
     * where it and the reference have them: one tab-separated row per trace, in the merged order (lowest rank first,
     * the reference), under {@link #OFFSETS_HEADER}; {@code -} where there is nothing to say. Each offset is what is
     * added to the trace's times to put them on the reference's clock, as {@code flagtrace_merge} says it.
     */
    public static List<String> offsets(List<Path> traces, List<String> sources, ClockChoice choice) throws IOException {
        List<TraceFacts> facts = new ArrayList<>();
        for (Path trace : traces) {
            facts.add(TraceFacts.read(trace));
        }
        List<TraceFacts> order = ordered(facts);
        RankAlignment[] aligned = new RankAlignment[order.size()];
        aligned[0] = RankAlignment.REFERENCE;
        List<String> labels = new ArrayList<>();
        for (TraceFacts f : order) {
            labels.add(label(f, facts.indexOf(f)));
        }
        CollectiveAlignment.chain(order, aligned, labels);
        List<String> rows = new ArrayList<>();
        TraceFacts reference = order.get(0);
        for (int i = 0; i < order.size(); i++) {
            TraceFacts f = order.get(i);
            RankAlignment a = aligned[i];
            RankAlignment.Collectives c = a == null ? null : a.collectives();
            String byCollectives = i == 0 ? "0\t0\t0\t-\t-"
                    : c == null ? "-\t-\t-\t0\t-"
                    : a.offsetNs() + "\t" + c.residualNs() + "\t" + c.medianResidualNs() + "\t" + c.matched() + "\t" + c.against();
            String byAnchors = "-\t-\t-";
            if (!f.anchors().isEmpty() && !reference.anchors().isEmpty()) {
                try {
                    RankAlignment anchors = i == 0 ? RankAlignment.REFERENCE : RankAlignment.of(reference, f, choice);
                    byAnchors = anchors.offsetNs() + "\t" + anchors.boundNs() + "\t" + anchors.clock();
                } catch (TraceFormatException refused) { // --clock monotonic across boots, anchors past the bounds: the merge says why
                    byAnchors = "-\t-\trefused";
                }
            }
            rows.add(facts.indexOf(f) + "\t" + (f.rank() >= 0 ? f.rank() : "-") + "\t" + sources.get(facts.indexOf(f)).replace('\t', ' ')
                    + "\t" + f.collectives().count() + "\t" + byCollectives + "\t" + byAnchors);
        }
        return rows;
    }

    /**
     * Each trace's alignment, in the merged order: by clock anchors where it and the reference have them; else by the
     * collectives it shares with the traces aligned so far ({@link CollectiveAlignment#chain}); else, with
     * {@code assumeAligned}, offset 0. A trace none of these aligns is refused.
     */
    private static List<RankAlignment> alignAll(List<TraceFacts> order, List<TraceFacts> facts, ClockChoice choice, boolean assumeAligned)
            throws TraceFormatException {
        TraceFacts reference = order.get(0);
        RankAlignment[] aligned = new RankAlignment[order.size()];
        List<String> labels = new ArrayList<>();
        boolean pending = false;
        for (int i = 0; i < order.size(); i++) {
            TraceFacts f = order.get(i);
            labels.add(label(f, facts.indexOf(f)));
            aligned[i] = align(reference, f, choice);
            pending |= aligned[i] == null;
        }
        if (pending) {
            RankAlignment was = aligned[0];
            aligned[0] = RankAlignment.REFERENCE; // the clock the collectives align the others on, anchors or not
            CollectiveAlignment.chain(order, aligned, labels);
            if (java.util.Arrays.stream(aligned).noneMatch(a -> a != null && a.collectives() != null)) {
                aligned[0] = was; // no trace aligned by collectives: the reference as it was (assumed, without anchors)
            }
            for (int i = 0; i < order.size(); i++) {
                if (aligned[i] == null && assumeAligned) {
                    aligned[i] = RankAlignment.ASSUMED;
                } else if (aligned[i] == null) {
                    TraceFacts f = order.get(i);
                    TraceFacts without = f.anchors().isEmpty() ? f : reference;
                    throw new TraceFormatException(without.path() + " has no clock anchors (flagtrace_process and flagtrace.clock_anchors"
                            + " come from a live session of this version)" + (without == f ? " and it" : "; " + f.path())
                            + " shares no collective with the traces aligned (its " + f.collectives().count() + " collective kernels match"
                            + " fewer than " + CollectiveAlignment.MIN_MATCHED + " ends of theirs): its clock cannot be put beside the"
                            + " others'; --assume-aligned merges such traces with offset 0");
                }
            }
        }
        return List.of(aligned);
    }

    /**
     * Each trace's {@code deviceProperties}, in the merged order, each device's {@code id} (its pid in its own trace,
     * torch's convention) renumbered to the pid its events have in the merged trace; the rest as read.
     */
    private static void writeDevices(JsonGenerator g, List<TraceFacts> order, List<InputCopy> copies) throws IOException {
        g.writeArrayFieldStart("deviceProperties");
        for (int i = 0; i < order.size(); i++) {
            java.util.Map<String, InputCopy.Row> rows = copies.get(i).rows();
            for (EventTokens device : order.get(i).devices()) {
                int depth = 0;
                String field = null;
                for (int k = 0; k < device.size(); k++) {
                    JsonToken t = device.token(k);
                    String text = device.text(k);
                    switch (t) {
                        case START_OBJECT -> {
                            depth++;
                            g.writeStartObject();
                        }
                        case END_OBJECT -> {
                            depth--;
                            g.writeEndObject();
                        }
                        case START_ARRAY -> {
                            depth++;
                            g.writeStartArray();
                        }
                        case END_ARRAY -> {
                            depth--;
                            g.writeEndArray();
                        }
                        case FIELD_NAME -> {
                            field = depth == 1 ? text : field;
                            g.writeFieldName(text);
                        }
                        case VALUE_STRING -> g.writeString(text);
                        case VALUE_NUMBER_INT -> {
                            InputCopy.Row row = depth == 1 && "id".equals(field) ? rows.get(text) : null;
                            if (row != null) {
                                g.writeNumber(row.pid);
                            } else {
                                g.writeNumber(text);
                            }
                        }
                        case VALUE_NUMBER_FLOAT -> g.writeNumber(text);
                        case VALUE_TRUE -> g.writeBoolean(true);
                        case VALUE_FALSE -> g.writeBoolean(false);
                        default -> g.writeNull();
                    }
                }
            }
        }
        g.writeEndArray();
    }

    /**
     * The {@code flagtrace} block of the merge, when any trace has one: each count the sum of the traces' counts of
     * that name (what was lost in any rank was lost in the merge), each trace's notes after its label.
     */
    private static void writeAccounting(JsonGenerator g, List<TraceFacts> order, List<TraceFacts> facts) throws IOException {
        java.util.Map<String, Object> tree = new java.util.LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        boolean any = false;
        for (TraceFacts f : order) {
            any |= f.blocks().flagtrace();
            for (java.util.Map.Entry<String, Long> e : f.accounting().entrySet()) {
                add(tree, e.getKey(), e.getValue());
            }
            for (String note : f.blocks().notes()) {
                notes.add(label(f, facts.indexOf(f)) + ": " + note);
            }
        }
        if (!any) {
            return;
        }
        g.writeObjectFieldStart("flagtrace");
        writeTree(g, tree);
        if (!notes.isEmpty()) {
            g.writeArrayFieldStart("notes");
            for (String note : notes) {
                JsonText.writeString(g, note);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    @SuppressWarnings("unchecked")
    private static void add(java.util.Map<String, Object> tree, String dotted, long value) {
        int dot = dotted.indexOf('.');
        if (dot > 0 && dot < dotted.length() - 1) {
            Object sub = tree.get(dotted.substring(0, dot));
            if (sub == null) {
                sub = new java.util.LinkedHashMap<String, Object>();
                tree.put(dotted.substring(0, dot), sub);
            }
            if (sub instanceof java.util.Map) {
                add((java.util.Map<String, Object>) sub, dotted.substring(dot + 1), value);
                return;
            }
        }
        Object had = tree.get(dotted);
        long sum = had instanceof Long l ? l : 0;
        try {
            tree.put(dotted, Math.addExact(sum, value));
        } catch (ArithmeticException e) {
            tree.put(dotted, Long.MAX_VALUE); // saturated: a count past a long says "more than can be counted"
        }
    }

    @SuppressWarnings("unchecked")
    private static void writeTree(JsonGenerator g, java.util.Map<String, Object> tree) throws IOException {
        for (java.util.Map.Entry<String, Object> e : tree.entrySet()) {
            if (e.getValue() instanceof java.util.Map) {
                g.writeFieldName(e.getKey());
                g.writeStartObject();
                writeTree(g, (java.util.Map<String, Object>) e.getValue());
                g.writeEndObject();
            } else {
                g.writeFieldName(e.getKey());
                g.writeNumber((Long) e.getValue());
            }
        }
    }

    /** A trace's base time on the reference's clock; refused beyond ±2^62 ns, where its events' times would pass a long. */
    private static long onReference(TraceFacts f, long baseNs, long offsetNs) throws TraceFormatException {
        long at = baseNs + offsetNs; // each within ±2^62 (TraceLimits, RankAlignment): exact
        if (at >= TraceLimits.MAX_TIME_NS || at <= -TraceLimits.MAX_TIME_NS) {
            throw new TraceFormatException(f.path() + ": its baseTimeNanoseconds " + baseNs + " on the reference's clock (offset "
                    + offsetNs + " ns) falls beyond ±" + TraceLimits.MAX_TIME_NS + " ns");
        }
        return at;
    }

    /** Ranked traces by rank, then the others in the order given; two traces of one rank are refused. */
    private static List<TraceFacts> ordered(List<TraceFacts> facts) throws TraceFormatException {
        List<TraceFacts> order = new ArrayList<>(facts);
        order.sort(Comparator.comparingLong((TraceFacts f) -> f.rank() < 0 ? Long.MAX_VALUE : f.rank()));
        for (int i = 1; i < order.size(); i++) {
            TraceFacts a = order.get(i - 1);
            TraceFacts b = order.get(i);
            if (a.rank() >= 0 && a.rank() == b.rank()) {
                throw new TraceFormatException(a.path() + " and " + b.path() + " are both rank " + a.rank()
                        + ": a merge takes one trace per rank");
            }
        }
        return order;
    }

    private static RankAlignment align(TraceFacts reference, TraceFacts f, ClockChoice choice)
            throws TraceFormatException {
        if (f == reference) {
            return f.anchors().isEmpty() ? RankAlignment.ASSUMED : RankAlignment.REFERENCE;
        }
        if (f.anchors().isEmpty() || reference.anchors().isEmpty()) {
            return null; // to be aligned by its collectives, or assumed aligned
        }
        return RankAlignment.of(reference, f, choice);
    }

    private static String label(TraceFacts f, int input) {
        return f.rank() >= 0 ? "rank " + f.rank() : "input " + input;
    }

    private static void writeBlock(JsonGenerator g, List<TraceFacts> order, List<RankAlignment> alignments, List<InputCopy> copies,
                                   List<TraceFacts> facts, List<String> sources, ClockChoice choice, long bound, String clock)
            throws IOException {
        g.writeObjectFieldStart("flagtrace_merge");
        g.writeNumberField("traces", order.size());
        if (order.get(0).rank() >= 0) {
            g.writeNumberField("reference_rank", order.get(0).rank());
        }
        g.writeStringField("clock_choice", choice.name().toLowerCase(java.util.Locale.ROOT));
        g.writeStringField("clock", clock);
        if (bound >= 0) {
            g.writeNumberField("bound_ns", bound);
        } else {
            g.writeNullField("bound_ns");
        }
        boolean byCollectives = alignments.stream().anyMatch(a -> a.collectives() != null);
        g.writeStringField("bound_means", "every event of a trace is on the reference's clock to within its bound_ns (the"
                + " trace's own flagtrace.host_clock bound aside); monotonic: exact, one host's shared clock; realtime: the"
                + " two anchors' bounds added, plus drift, not counting how far different hosts' real-time clocks disagree"
                + (byCollectives ? "; collectives: the residual, the largest deviation of a matched collective end from its pair"
                        + " once corrected, plus the bound of the trace it was aligned against; what no collective shows (drift"
                        + " between them) it cannot bound" : ""));
        g.writeNumberField("id_stride", order.size());
        g.writeNumberField("pid_stride", InputCopy.PID_STRIDE);
        g.writeArrayFieldStart("inputs");
        for (int i = 0; i < order.size(); i++) {
            TraceFacts f = order.get(i);
            RankAlignment a = alignments.get(i);
            ProcessIdentity who = f.identity();
            g.writeStartObject();
            JsonText.writeStringField(g, "trace", sources.get(facts.indexOf(f)));
            g.writeNumberField("input", facts.indexOf(f));
            g.writeNumberField("slot", i);
            org.flagos.trace.model.ProcessFacts.writeIdentityFields(g, who);
            g.writeStringField("clock", a.clock());
            g.writeNumberField("offset_ns", a.offsetNs());
            if (a.boundNs() >= 0) {
                g.writeNumberField("bound_ns", a.boundNs());
            } else {
                g.writeNullField("bound_ns");
            }
            if (a.collectives() != null) {
                RankAlignment.Collectives c = a.collectives();
                g.writeObjectFieldStart("collectives");
                JsonText.writeStringField(g, "against", c.against());
                g.writeNumberField("matched", c.matched());
                g.writeNumberField("kinds", c.keys());
                g.writeNumberField("residual_ns", c.residualNs());
                g.writeNumberField("median_residual_ns", c.medianResidualNs());
                g.writeEndObject();
            }
            g.writeNumberField("events", copies.get(i).events);
            g.writeObjectFieldStart("pids");
            for (InputCopy.Row row : copies.get(i).rows().values()) {
                g.writeNumberField(row.original, row.pid);
            }
            g.writeEndObject();
            if (f.collectives().leftOut > 0) { // past CollectiveEnds.MAX_ENDS: not used to align it
                g.writeNumberField("collective_kernels_left_out", f.collectives().leftOut);
            }
            if (copies.get(i).leftOutUnusable > 0) {
                g.writeNumberField("left_out_unusable_times", copies.get(i).leftOutUnusable);
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}
