package org.flagos.trace.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import org.flagos.trace.capture.CaptureReplay;
import org.flagos.trace.cli.TestDevices;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.ingest.OpsJsonlReader;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A real H200 capture of every record kind against torch 2.11's trace of the same work, recorded in
 * the same device command: category by category, flagtrace writes what torch writes, with torch's
 * event names where they are fixed strings and every argument key torch gives. The two programs
 * differ (C++ or Java against Python), so counts and API names are not compared. Each pair extends
 * this suite.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TorchTwinParity {
    /** Categories whose event names are fixed strings in torch, so the names must match too. */
    private static final Set<String> NAMED = Set.of("cuda_sync", "overhead", "cpu_instant_event", "ac2g");
    /**
     * What torch writes and flagtrace does not, each for a stated reason. The set must stay exact: a
     * category that flagtrace starts writing leaves it, and this test says so.
     */
    private static final Map<String, String> NOT_WRITTEN = Map.of(
            "python_function", "Python stack frames; a Java op's stack is its \"Call stack\" arg");
    /** Keys torch puts on aten ops from autograd, which a flagtrace op does not have. */
    private static final Set<String> AUTOGRAD_ONLY = Set.of("Fwd thread id", "Sequence number");

    protected Map<String, List<JsonNode>> ours;
    protected Map<String, List<JsonNode>> torch;

    /** flagtrace's trace of the work (replayed from the bundled capture). */
    protected abstract JsonNode ourTrace() throws IOException;

    /** torch's trace of the same work, from the same device command. */
    protected abstract JsonNode torchTrace() throws IOException;

    /** Categories each trace of the pair must hold. */
    protected List<String> categoriesInBoth() {
        return List.of("kernel", "gpu_memcpy", "cuda_runtime", "cuda_sync", "overhead", "cpu_instant_event", "ac2g", "cpu_op",
                "user_annotation");
    }

    @BeforeAll
    void load() throws IOException {
        ours = byCategory(ourTrace());
        torch = byCategory(torchTrace());
    }

    /** A capture bundled under captures/, replayed with the H200's properties and GPU annotation spans. */
    protected static JsonNode replay(String name) throws IOException {
        CaptureReplay.Request request = CaptureReplay.Request.of(CaptureBytes.load(Captures.capture(name)), name)
                .ops(OpsJsonlReader.read(Captures.ops(name))).kernelNames(KernelNameFile.read(Captures.names(name)))
                .devices(TestDevices.h200()).ringSize(1 << 12).build();
        return TraceJson.replay(request).trace();
    }

    /** A gzip-compressed trace bundled under captures/. */
    protected static JsonNode gzipped(String path) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(Captures.dir().resolve(path)))) {
            return TraceJson.MAPPER.readTree(in);
        }
    }

    private static Map<String, List<JsonNode>> byCategory(JsonNode trace) {
        Map<String, List<JsonNode>> out = new TreeMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.has("cat")) {
                out.computeIfAbsent(e.get("cat").asText(), c -> new ArrayList<>()).add(e);
            }
        }
        return out;
    }

    private static Set<String> argKeys(List<JsonNode> events) {
        Set<String> keys = new TreeSet<>();
        for (JsonNode e : events) {
            e.path("args").fieldNames().forEachRemaining(keys::add);
        }
        return keys;
    }

    @Test
    void everyCategoryTorchWritesIsWrittenSaveTheOnesListedWithTheirReason() {
        Set<String> missing = new TreeSet<>(torch.keySet());
        missing.removeAll(ours.keySet());
        assertEquals(new TreeSet<>(NOT_WRITTEN.keySet()), missing, "torch's categories flagtrace does not write");
        for (String category : categoriesInBoth()) {
            assertTrue(ours.containsKey(category) && torch.containsKey(category), category + " in both traces");
        }
    }

    @Test
    void everyArgumentKeyTorchGivesACategoryFlagtraceGivesToo() {
        for (Map.Entry<String, List<JsonNode>> c : torch.entrySet()) {
            if (!ours.containsKey(c.getKey())) {
                continue;
            }
            Set<String> lacking = argKeys(c.getValue());
            lacking.removeAll(argKeys(ours.get(c.getKey())));
            if (c.getKey().equals("cpu_op")) {
                lacking.removeAll(AUTOGRAD_ONLY);
            }
            assertEquals(Set.of(), lacking, "torch's " + c.getKey() + " arg keys that flagtrace lacks");
        }
    }

    @Test
    void fixedNamesAreTorchsNames() {
        for (String category : NAMED) {
            if (!torch.containsKey(category)) {
                continue; // checked by categoriesInBoth where the pair must have it
            }
            Set<String> theirs = new TreeSet<>();
            torch.get(category).forEach(e -> theirs.add(e.get("name").asText()));
            Set<String> mine = new TreeSet<>();
            ours.get(category).forEach(e -> mine.add(e.get("name").asText()));
            assertTrue(mine.containsAll(theirs), category + ": torch " + theirs + ", flagtrace " + mine);
        }
    }

    @Test
    void synchronizationAndMemoryArgsComeInTorchsOrder() {
        // A sync whose call the capture lacks (cuCtxSynchronize with DRIVER records off) is bound to no
        // op: torch's keys without the External id it cannot have.
        Set<Long> calls = new java.util.HashSet<>();
        for (String c : List.of("cuda_runtime", "cuda_driver")) {
            ours.getOrDefault(c, List.of()).forEach(e -> calls.add(e.get("args").get("correlation").asLong()));
        }
        List<JsonNode> called = new ArrayList<>();
        List<JsonNode> unbound = new ArrayList<>();
        for (JsonNode e : ours.get("cuda_sync")) {
            (calls.contains(e.get("args").get("correlation").asLong()) ? called : unbound).add(e);
        }
        Map<String, Set<List<String>>> torchOrders = keyOrders(torch.get("cuda_sync"));
        assertEquals(torchOrders, keyOrders(called), "cuda_sync args per sync kind");
        for (Map.Entry<String, Set<List<String>>> kind : keyOrders(unbound).entrySet()) {
            for (List<String> keys : kind.getValue()) {
                List<String> want = new ArrayList<>(torchOrders.get(kind.getKey()).iterator().next());
                want.remove("External id");
                assertEquals(want, keys, kind.getKey() + " without its call");
            }
        }
        assertEquals(keyOrders(named(torch.get("cpu_instant_event"), "[memory]")),
                keyOrders(named(ours.get("cpu_instant_event"), "[memory]")), "[memory] args");
    }

    /**
     * torch's record_function ranges and flagtrace's NVTX ranges are both {@code user_annotation}:
     * the same args in the same order (flagtrace adds {@code domain} for a range in a named NVTX
     * domain), on a host thread's row, complete events.
     */
    @Test
    void nvtxRangesAreUserAnnotationsInTorchsShape() {
        List<String> torchKeys = keys(torch.get("user_annotation").get(0));
        for (JsonNode e : torch.get("user_annotation")) {
            assertEquals(torchKeys, keys(e));
        }
        assertEquals(List.of("External id", "Record function id", "Ev Idx"), torchKeys);
        for (JsonNode e : ours.get("user_annotation")) {
            List<String> mine = keys(e);
            assertEquals(torchKeys, mine.subList(0, torchKeys.size()), e.toString());
            assertTrue(mine.size() == torchKeys.size() || mine.equals(concat(torchKeys, "domain")), e.toString());
            assertEquals(torch.get("user_annotation").get(0).get("ph").asText(), e.get("ph").asText());
            assertEquals(0, e.get("args").get("Record function id").asLong());
        }
    }

    private static List<String> keys(JsonNode e) {
        List<String> keys = new ArrayList<>();
        e.path("args").fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    private static List<String> concat(List<String> keys, String more) {
        List<String> out = new ArrayList<>(keys);
        out.add(more);
        return out;
    }

    private static List<JsonNode> named(List<JsonNode> events, String name) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : events) {
            if (name.equals(e.get("name").asText())) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Both write an op's span on a device stream with the same fields in the same order, on a device row
     * (pid a device, tid one of that device's streams in the trace), with torch's one arg. torch spans
     * only the work of its innermost record_function range, flagtrace an op's and its nested ops'
     * (issue 16 item 6), so spans and counts are not compared.
     */
    @Test
    void gpuAnnotationsHaveTorchsFieldsOnAStreamsRow() {
        for (Map<String, List<JsonNode>> trace : List.of(torch, ours)) {
            Set<String> streams = new TreeSet<>();
            for (String c : List.of("kernel", "gpu_memcpy")) {
                trace.get(c).forEach(e -> streams.add(e.get("pid").asText() + "/" + e.get("tid").asText()));
            }
            for (JsonNode e : trace.get("gpu_user_annotation")) {
                assertTrue(streams.contains(e.get("pid").asText() + "/" + e.get("tid").asText()), "on a stream's row: " + e);
            }
        }
        assertEquals(fieldOrders(torch.get("gpu_user_annotation")), fieldOrders(ours.get("gpu_user_annotation")),
                "the event's fields, then its args, in order");
    }

    private static Set<List<String>> fieldOrders(List<JsonNode> events) {
        Set<List<String>> out = new java.util.HashSet<>();
        for (JsonNode e : events) {
            List<String> keys = new ArrayList<>();
            e.fieldNames().forEachRemaining(keys::add);
            e.path("args").fieldNames().forEachRemaining(k -> keys.add("args." + k));
            out.add(keys);
        }
        return out;
    }

    /** Per event name, the arg keys in the order written (one order per name in each trace). */
    private static Map<String, Set<List<String>>> keyOrders(List<JsonNode> events) {
        Map<String, Set<List<String>>> out = new TreeMap<>();
        for (JsonNode e : events) {
            List<String> keys = new ArrayList<>();
            e.path("args").fieldNames().forEachRemaining(keys::add);
            out.computeIfAbsent(e.get("name").asText(), n -> new java.util.HashSet<>()).add(keys);
        }
        return out;
    }
}
