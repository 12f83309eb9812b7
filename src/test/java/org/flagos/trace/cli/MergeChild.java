package org.flagos.trace.cli;

import org.flagos.trace.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.RealtimeClock;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;
import org.flagos.trace.vendors.mcpti.McptiTracer;

/**
 * One rank of {@link MultiProcessMergeTest}, in a JVM of its own: captures a few steps through the
 * fake MCPTI library (whose clock {@code FAKE_CLOCK_OFFSET_NS} moves), its rank from {@code RANK}
 * and {@code WORLD_SIZE} as torchrun sets them, into {@code DIR/rankN.json} with a dump beside it
 * and a journal ({@code DIR/rankN.journal});
 * writes {@code DIR/rankN.mark}: the host's real time just before and just after it opened the op
 * {@code mark}.
 */
public final class MergeChild {
    /** Starts a child for {@code rank} of {@code world} whose vendor clock is {@code offsetNs} off the host's. */
    static Process start(Path dir, Path library, int rank, int world, long offsetNs) throws IOException {
        List<String> command = ChildJvm.command("-Xmx256m", "-XX:TieredStopAtLevel=1",
                // the journal's (Chronicle's) flags on Java 17, as JournalChild starts it
                "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), MergeChild.class.getName(),
                dir.toString(), library.toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("rank" + rank + ".log").toFile());
        Map<String, String> env = builder.environment();
        env.put("RANK", Integer.toString(rank));
        env.put("WORLD_SIZE", Integer.toString(world));
        env.put("LOCAL_RANK", Integer.toString(rank));
        env.put("LOCAL_WORLD_SIZE", Integer.toString(world));
        env.put("FAKE_CLOCK_OFFSET_NS", Long.toString(offsetNs));
        return builder.start();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        McptiTracer tracer = new McptiTracer(args[1]);
        if (!tracer.available()) {
            throw new IllegalStateException(tracer.unavailableReason());
        }
        tracer.invoke("fakeReset", 0);
        String rank = System.getenv("RANK");
        Path trace = dir.resolve("rank" + rank + ".json");
        long before;
        long after;
        try (ProfilerSession session = Profiler.start(tracer, SessionOptions.to(trace)
                .withDumpBuffers(dir.resolve("rank" + rank + ".fltrbuf")).withJournal(dir.resolve("rank" + rank + ".journal")))) {
            for (int step = 0; step < 6; step++) {
                try (OpScope op = session.op("step")) {
                    tracer.invoke("fakeLaunchKernel", step % 2);
                    tracer.invoke("fakeMemcpy", 4096);
                }
            }
            before = RealtimeClock.nowNs();
            try (OpScope op = session.op("mark")) {
                after = RealtimeClock.nowNs();
                tracer.invoke("fakeLaunchKernel", 0);
            }
        }
        Files.writeString(dir.resolve("rank" + rank + ".mark"), before + " " + after + "\n");
    }

    private MergeChild() {
    }
}
