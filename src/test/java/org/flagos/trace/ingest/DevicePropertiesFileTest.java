package org.flagos.trace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.flagos.trace.model.DeviceProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DevicePropertiesFile}: every bundled {@code .devices.json} (the H200's, written on the device, and the fake
 * vendors') and torch's own H200 trace read field for field as an independent JSON parser reads them; a written file
 * read back equal; and each malformed document refused in one line naming the file, the device and the field.
 */
class DevicePropertiesFileTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Path CAPTURES = Path.of("src/test/resources/captures");
    private static final String H200 = "{\"id\": 0, \"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150109880320, \"computeMajor\": 9,"
            + " \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536,"
            + " \"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"numSms\": 132, \"regsPerMultiprocessor\": 65536,"
            + " \"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472}";

    @TempDir
    Path dir;

    private static void sameAsJackson(JsonNode want, DeviceProperties got, String what) {
        assertEquals(want.get("id").asInt(), got.id(), what);
        assertEquals(want.get("name").asText(), got.name(), what);
        assertEquals(want.get("totalGlobalMem").asLong(), got.totalGlobalMem(), what);
        assertEquals(want.get("computeMajor").asInt(), got.computeMajor(), what);
        assertEquals(want.get("computeMinor").asInt(), got.computeMinor(), what);
        assertEquals(want.get("maxThreadsPerBlock").asInt(), got.maxThreadsPerBlock(), what);
        assertEquals(want.get("maxThreadsPerMultiprocessor").asInt(), got.maxThreadsPerMultiprocessor(), what);
        assertEquals(want.get("regsPerBlock").asInt(), got.regsPerBlock(), what);
        assertEquals(want.get("warpSize").asInt(), got.warpSize(), what);
        assertEquals(want.get("sharedMemPerBlock").asLong(), got.sharedMemPerBlock(), what);
        assertEquals(want.get("numSms").asInt(), got.numSms(), what);
        assertEquals(want.get("regsPerMultiprocessor").asInt(), got.regsPerMultiprocessor(), what);
        assertEquals(want.get("sharedMemPerBlockOptin").asLong(), got.sharedMemPerBlockOptin(), what);
        assertEquals(want.get("sharedMemPerMultiprocessor").asLong(), got.sharedMemPerMultiprocessor(), what);
    }

    @Test
    void everyBundledDevicesFileAndTorchsTraceReadAsJacksonReadsThem() throws Exception {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(CAPTURES)) {
            s.filter(p -> p.getFileName().toString().endsWith(".devices.json")).sorted().forEach(files::add);
        }
        files.add(Path.of("src/test/resources/torch-reference/torch_trace.json"));
        assertTrue(files.size() >= 10, "the H200 and fake vendors' files: " + files);
        int devices = 0;
        for (Path f : files) {
            JsonNode want = MAPPER.readTree(f.toFile()).get("deviceProperties");
            List<DeviceProperties> got = DevicePropertiesFile.read(f);
            assertEquals(want.size(), got.size(), f.toString());
            for (int i = 0; i < got.size(); i++) {
                sameAsJackson(want.get(i), got.get(i), f + " device " + i);
                devices++;
            }
        }
        assertEquals(8 + 1, devices, "one H200 in each of the 8 H200 captures' files and torch's trace; the fake vendors' files list none");
        DeviceProperties h200 = DevicePropertiesFile.read(CAPTURES.resolve("h200-ranks/rank0.devices.json")).get(0);
        assertEquals("NVIDIA H200", h200.name());
        assertEquals(132, h200.numSms());
        assertEquals(150_109_880_320L, h200.totalGlobalMem(), "past 32 bits, read whole");
    }

    @Test
    void aWrittenFileReadsBackEqualAndABareArrayReadsToo() throws Exception {
        List<DeviceProperties> two = new ArrayList<>(DevicePropertiesFile.read(CAPTURES.resolve("h200-ranks/rank0.devices.json")));
        DeviceProperties d = two.get(0);
        two.add(new DeviceProperties(7, "second \"quoted\" \u00e9", d.totalGlobalMem(), d.computeMajor(), d.computeMinor(),
                d.maxThreadsPerBlock(), d.maxThreadsPerMultiprocessor(), d.regsPerBlock(), d.warpSize(), d.sharedMemPerBlock(), 0,
                d.regsPerMultiprocessor(), d.sharedMemPerBlockOptin(), d.sharedMemPerMultiprocessor()));
        Path out = dir.resolve("x.devices.json");
        DevicePropertiesFile.write(out, two);
        assertEquals(two, DevicePropertiesFile.read(out));
        assertEquals(List.of(d), read("[" + H200 + "]"));
        assertEquals(List.of(), read("[]"), "no devices");
        assertEquals(List.of(d), read("{\"schemaVersion\": 1, \"other\": {\"deviceProperties\": 3}, \"deviceProperties\": [" + H200 + "]}"),
                "fields before it skipped, nested ones too");
        assertEquals(List.of(d), read("[" + H200.replace("}", ", \"extra\": [1, {\"a\": 2}], \"clockRate\": 1.98}") + "]"),
                "fields it does not use, of any type");
        assertEquals(CAPTURES.resolve("h200-ranks/rank0.devices.json"), DevicePropertiesFile.besides(CAPTURES.resolve("h200-ranks/rank0.fltrbuf")));
    }

    private static List<DeviceProperties> read(String json) throws Exception {
        return DevicePropertiesFile.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "props.json");
    }

    private static String refused(String json) {
        String m = assertThrows(CaptureFormatException.class, () -> read(json)).getMessage();
        assertFalse(m.contains("\n"), "one line: " + m);
        assertFalse(m.contains("com.fasterxml") || m.contains("Exception"), "no library's words: " + m);
        return m;
    }

    @Test
    void eachMalformedDocumentIsOneLineNamingTheFileDeviceAndField() {
        assertEquals("props.json: no deviceProperties array", refused("{\"deviceProperties\": {\"id\": 0}}"));
        assertEquals("props.json: no deviceProperties array", refused("{}"));
        assertEquals("props.json: expected a deviceProperties array or an object holding one", refused("42"));
        assertEquals("props.json: expected a deviceProperties array or an object holding one", refused(""));
        assertTrue(refused("[" + H200 + ", 3]").startsWith("props.json: device 1 is a number, not a JSON object;"));
        assertTrue(refused("[[]]").startsWith("props.json: device 0 is an array, not a JSON object;"));
        assertTrue(refused("[null]").startsWith("props.json: device 0 is null, not a JSON object;"));
        assertEquals("props.json: device 0 lacks numSms", refused("[" + H200.replace("\"numSms\": 132,", "") + "]"));
        assertEquals("props.json: device 0 lacks numSms", refused("[" + H200.replace("\"numSms\": 132", "\"numSms\": \"132\"") + "]"),
                "a number as a string is not the number");
        assertEquals("props.json: device 0 lacks numSms", refused("[" + H200.replace("\"numSms\": 132", "\"numSms\": 132.0") + "]"));
        assertEquals("props.json: device 0 lacks name", refused("[" + H200.replace("\"name\": \"NVIDIA H200\"", "\"name\": 5") + "]"));
        assertEquals("props.json: device 1: numSms 4294967428 does not fit in 32 bits",
                refused("[" + H200 + "," + H200.replace("\"numSms\": 132", "\"numSms\": 4294967428") + "]"), "2^32 + 132 is not 132");
        assertEquals("props.json: device 0: warpSize 0 is outside [1, 1024]", refused("[" + H200.replace("\"warpSize\": 32", "\"warpSize\": 0") + "]"));
        assertEquals("props.json: device 0: id -1 is outside [0, " + (org.flagos.trace.model.RecordLimits.MAX_DEVICES - 1) + "]",
                refused("[" + H200.replace("\"id\": 0", "\"id\": -1") + "]"));
        assertTrue(refused("[" + H200).startsWith("props.json: "), "cut inside the list");
        assertTrue(refused("[{\"id\": ").startsWith("props.json: invalid JSON ("), "cut inside a device");
        assertTrue(refused("{\"deviceProperties\": [" + H200.replace("}", "") + "]}").startsWith("props.json: invalid JSON ("));
    }

    @Test
    void aPathThatIsNoRegularFileIsRefusedByName() throws Exception {
        Path missing = dir.resolve("none.devices.json");
        assertEquals(missing + ": no such file", assertThrows(CaptureFormatException.class, () -> DevicePropertiesFile.read(missing)).getMessage());
        String m = assertThrows(CaptureFormatException.class, () -> DevicePropertiesFile.read(dir)).getMessage();
        assertTrue(m.startsWith(dir + ": is a directory"), m);
        Path bad = Files.writeString(dir.resolve("bad.json"), "[1]");
        assertTrue(assertThrows(CaptureFormatException.class, () -> DevicePropertiesFile.read(bad)).getMessage()
                .startsWith(bad + ": device 0 is a number"), "the path names the file");
    }
}
