package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.TreeMap;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * {@link EventClass}: the complete events of torch's own H200 trace (kineto's categories) and of torch 1.13's legacy
 * trace (no category, pid "CPU functions") fall into the classes torch's own table gives them: every name torch's
 * {@code key_averages} lists is an op, a runtime call, device work or the vendor's overhead ("Activity Buffer Request"),
 * and the trace span, the one event of no class, is no row of it; the 2021 schema's names and other vendors' runtimes too.
 */
class EventClassTest {
    @Test
    void torchsOwnTracesAreClassedAsTorchsTableClassesThem() throws Exception {
        JsonNode events = TraceJson.MAPPER.readTree(TorchKeyAveragesTest.resource("torch_trace.json").toFile()).get("traceEvents");
        Map<String, Integer> byClass = new TreeMap<>();
        String table = java.nio.file.Files.readString(TorchKeyAveragesTest.resource("key_averages.txt"));
        for (JsonNode e : events) {
            if (!e.path("ph").asText().equals("X")) {
                continue;
            }
            EventClass c = EventClass.of(e.path("cat").asText(null), e.path("pid").asText());
            byClass.merge(c.name(), 1, Integer::sum);
            String name = e.path("name").asText();
            if (c == EventClass.OTHER) {
                assertEquals(false, table.contains(name), name + " is no row of torch's table");
            } else if (c == EventClass.OVERHEAD) {
                assertEquals(true, table.contains(name), name + " is a row of torch's table");
            }
        }
        assertEquals(Map.of("DEVICE", 33, "HOST_OP", 37, "OTHER", 1, "OVERHEAD", 1, "RUNTIME", 49), byClass,
                "25 kernels, 6 memsets and 2 copies; 37 cpu_op; the Trace span; one overhead; 49 cuda_runtime");
        JsonNode legacy = TraceJson.MAPPER.readTree(FlagtraceLegacyTorchTest.resource("shapes.json").toFile());
        JsonNode legacyEvents = legacy.isArray() ? legacy : legacy.get("traceEvents");
        int ops = 0;
        for (JsonNode e : legacyEvents) {
            if (e.path("ph").asText().equals("X")) {
                assertEquals(EventClass.HOST_OP, EventClass.of(e.path("cat").asText(null), e.path("pid").asText()), e.toString());
                ops++;
            }
        }
        assertEquals(71, ops);
    }

    @Test
    void everyCategoryOfBothSchemas() {
        for (String cat : new String[] {"cpu_op", "user_annotation", "python_function", "Operator"}) {
            assertEquals(EventClass.HOST_OP, EventClass.of(cat), cat);
        }
        for (String cat : new String[] {"cuda_runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver", "Runtime",
            "mspti_runtime"}) {
            assertEquals(EventClass.RUNTIME, EventClass.of(cat), cat);
        }
        for (String cat : new String[] {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}) {
            assertEquals(EventClass.DEVICE, EventClass.of(cat), cat);
        }
        assertEquals(EventClass.OVERHEAD, EventClass.of("overhead"));
        for (String cat : new String[] {"Trace", "gpu_user_annotation", "ac2g", "runtime", "driver", "Kernel ", "", "cpu_instant_event"}) {
            assertEquals(EventClass.OTHER, EventClass.of(cat), "'" + cat + "'");
        }
        assertEquals(EventClass.OTHER, EventClass.of(null));
        assertEquals(EventClass.OTHER, EventClass.of(null, "4242"), "no category on any other process: nothing");
        assertEquals(EventClass.HOST_OP, EventClass.of(null, "CPU functions"), "torch's legacy exporter's ops");
        assertEquals(EventClass.DEVICE, EventClass.of("kernel", "CPU functions"), "a category decides where there is one");
    }
}
