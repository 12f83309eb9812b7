package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.StringWriter;
import org.flagos.trace.testing.Captures;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;

/**
 * {@link DeviceProperties}: the H200 the parity capture was recorded on is written back field for field as its
 * {@code deviceProperties} entry says it (torch's names and order), and the bounds occupancy relies on hold at their
 * edges: the last device id and no SMs are accepted, a warp wider than a block, a device id past the table and a
 * missing name are refused in words.
 */
class DevicePropertiesTest {
    private static JsonNode h200() throws Exception {
        return TraceJson.MAPPER.readTree(Captures.dir().resolve("h200-java-parity.devices.json").toFile()).get("deviceProperties").get(0);
    }

    private static DeviceProperties of(JsonNode d) {
        return new DeviceProperties(d.get("id").intValue(), d.get("name").textValue(), d.get("totalGlobalMem").longValue(),
                d.get("computeMajor").intValue(), d.get("computeMinor").intValue(), d.get("maxThreadsPerBlock").intValue(),
                d.get("maxThreadsPerMultiprocessor").intValue(), d.get("regsPerBlock").intValue(), d.get("warpSize").intValue(),
                d.get("sharedMemPerBlock").longValue(), d.get("numSms").intValue(), d.get("regsPerMultiprocessor").intValue(),
                d.get("sharedMemPerBlockOptin").longValue(), d.get("sharedMemPerMultiprocessor").longValue());
    }

    private static DeviceProperties h200With(int id, int warpSize, int maxThreadsPerBlock, int numSms, String name) {
        return new DeviceProperties(id, name, 150109880320L, 9, 0, maxThreadsPerBlock, 2048, 65536, warpSize, 49152, numSms, 65536,
                232448, 233472);
    }

    @Test
    void theH200IsWrittenBackAsItsCaptureSaysItFieldForField() throws Exception {
        JsonNode entry = h200();
        DeviceProperties h200 = of(entry);
        assertEquals("NVIDIA H200", h200.name());
        assertEquals(132, h200.numSms());
        StringWriter out = new StringWriter();
        try (JsonGenerator g = TraceJson.MAPPER.getFactory().createGenerator(out)) {
            h200.writeJson(g);
        }
        assertEquals(entry.toString(), out.toString(), "same fields, same order, same values");
    }

    @Test
    void theEdgesOccupancyReliesOnAreAcceptedOrRefusedInWords() {
        assertEquals(RecordLimits.MAX_DEVICES - 1, h200With(RecordLimits.MAX_DEVICES - 1, 32, 1024, 132, "d").id());
        assertEquals(0, h200With(0, 32, 1024, 0, "d").numSms(), "no SMs: per-SM figures say inf");
        assertEquals(32, h200With(0, 32, 32, 132, "d").maxThreadsPerBlock(), "a block of one warp");
        assertEquals("id 1024 is outside [0, 1023]",
                assertThrows(IllegalArgumentException.class, () -> h200With(RecordLimits.MAX_DEVICES, 32, 1024, 132, "d")).getMessage());
        assertEquals("id -1 is outside [0, 1023]",
                assertThrows(IllegalArgumentException.class, () -> h200With(-1, 32, 1024, 132, "d")).getMessage());
        assertEquals("warpSize 0 is outside [1, 1024]",
                assertThrows(IllegalArgumentException.class, () -> h200With(0, 0, 1024, 132, "d")).getMessage());
        assertEquals("maxThreadsPerBlock 16 is outside [32, 65536]",
                assertThrows(IllegalArgumentException.class, () -> h200With(0, 32, 16, 132, "d")).getMessage(),
                "a block smaller than a warp");
        assertEquals("numSms 65537 is outside [0, 65536]",
                assertThrows(IllegalArgumentException.class, () -> h200With(0, 32, 1024, 65537, "d")).getMessage());
        assertEquals("name is missing", assertThrows(IllegalArgumentException.class, () -> h200With(0, 32, 1024, 132, null)).getMessage());
    }
}
