package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.ingest.HostOps;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal in a child JVM: killed with SIGKILL mid-capture, and watched for network access. */
class JournalProcessTest {
    private static final String CAPTURE = "h200-tiny30k";

    @TempDir
    Path tmp;

    @Test
    void aJournalKilledMidCaptureReplaysEveryEventAppendedBeforeTheKill() throws Exception {
        Path dir = tmp.resolve("journal");
        Process child = JournalChild.start("slow", CAPTURE, dir.toString());
        long acknowledged = 0;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.startsWith("appended ")) {
                    acknowledged = Long.parseLong(line.substring("appended ".length()));
                    if (acknowledged >= 3_000) {
                        child.destroyForcibly(); // SIGKILL: no shutdown hook, no close
                        break;
                    }
                }
            }
        }
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(137, child.exitValue(), "killed by SIGKILL");
        assertTrue(acknowledged >= 3_000, "the child appended " + acknowledged + " ops before the kill");

        JournalFixtures.Export export = JournalFixtures.export(dir, JournalWindow.ALL);
        JournalFacts facts = export.result().facts();
        assertFalse(facts.stopped(), "killed: no stop marker");
        assertTrue(facts.ops() >= acknowledged, facts.ops() + " ops recovered, " + acknowledged + " acknowledged");
        assertEquals(2, facts.buffers());

        // The same records replayed straight from the capture: every op the journal holds, the buffers.
        CaptureReplay.Request full = JournalFixtures.request(CAPTURE);
        HostOps ops = (HostOps) full.ops(); // the fixture reads the ops file into memory
        HostOps prefix = new HostOps(ops.windowStartNs(), Long.MAX_VALUE, ops.ops().subList(0, (int) facts.ops()));
        CaptureReplay.Request same = CaptureReplay.Request.of(full.capture(), full.source()).ops(prefix)
                .kernelNames(full.kernelNames()).devices(full.devices()).metadata(full.metadata())
                .traceName(full.traceName()).ringSize(full.ringSize()).clock(full.clock()).build();
        TraceJson.Replayed direct = TraceJson.replay(same);
        assertEquals(sortedEvents(direct.trace()), sortedEvents(export.trace()));
    }

    @Test
    void theJournalTouchesNoNetworkAndChronicleAnalyticsIsAbsent() throws Exception {
        Process child = JournalChild.start("net", tmp.resolve("journal").toString());
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output + new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertTrue(output.contains("property-after=true"), output);
        assertTrue(output.contains("analytics-class=absent"), output);
        assertTrue(output.contains("analytics-enabled=false"), output);
        assertTrue(output.contains("network=0 "), output);
        assertTrue(output.lines().anyMatch("chronicle-threads="::equals), "no Chronicle thread outlives the journal: " + output);
    }


    private static List<String> sortedEvents(JsonNode trace) {
        List<String> events = new ArrayList<>();
        trace.get("traceEvents").forEach(e -> events.add(e.toString()));
        events.sort(null);
        return events;
    }
}
