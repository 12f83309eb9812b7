package org.flagos.trace.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.vendors.cupti.workload.KindsWorkload;

/**
 * Live, NVIDIA only: the kinds workload (syncs, a CUDA graph, allocations, copies, overhead) in
 * several sessions of one JVM. CUPTI is detached at every stop by default and registered again at
 * the next start, so every session after the first runs on a CUPTI set up again: each must hold
 * every trace category the first held (counts of syncs and overhead vary run to run). Prints one line per session
 * (events per category, CUPTI's drops) and exits 1 when a later session lacks what the first had.
 * Usage: {@code RepeatedKindsProbe [sessions=3] [dir]}.
 */
public final class RepeatedKindsProbe {
    /** The trace writer's compact form; the device JVM carries no JSON tree library. */
    private static final Pattern CATEGORY = Pattern.compile("\"cat\":\"([^\"]*)\"");
    private static final Pattern GRAPH = Pattern.compile("\"graph id\":");

    public static void main(String[] args) throws Exception {
        int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Path dir = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("flagtrace-kinds-");
        DeviceTracer tracer = Profiler.init(); // before the first CUDA call
        if (!tracer.available()) {
            throw new IllegalStateException("tracer unavailable: " + tracer.unavailableReason());
        }
        List<TreeMap<String, Integer>> perSession = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            Path trace = dir.resolve("kinds-" + s + ".json");
            ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace));
            new KindsWorkload().run(session);
            session.close();
            TreeMap<String, Integer> categories = new TreeMap<>();
            String text = Files.readString(trace);
            Matcher m = CATEGORY.matcher(text);
            while (m.find()) {
                categories.merge(m.group(1), 1, Integer::sum);
            }
            Matcher g = GRAPH.matcher(text);
            while (g.find()) {
                categories.merge("(graph id)", 1, Integer::sum);
            }
            perSession.add(categories);
            System.out.println("[kinds] session " + s + ": " + categories + "; CUPTI dropped " + tracer.droppedByVendor());
            Files.deleteIfExists(trace);
        }
        List<String> problems = new ArrayList<>();
        TreeMap<String, Integer> first = perSession.get(0);
        for (int s = 1; s < sessions; s++) {
            for (var c : first.entrySet()) {
                int n = perSession.get(s).getOrDefault(c.getKey(), 0);
                // Overhead records and sync counts vary run to run; every category must still be there.
                if (n == 0) {
                    problems.add("session " + s + " has no " + c.getKey() + " (the first had " + c.getValue() + ")");
                }
            }
        }
        System.out.println(problems.isEmpty() ? "[kinds] PASS: every category of the first session in all " + sessions + " sessions"
                : "[kinds] FAIL: " + problems);
        System.exit(problems.isEmpty() ? 0 : 1);
    }

    private RepeatedKindsProbe() {
    }
}
