package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.flagos.trace.model.ApiNameHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ASCEND_RT_VISIBLE_DEVICES as CANN reads it: the list's position is the logical ordinal of each
 * physical id; unset, blank or malformed lists (one warning, word for word) keep ids as recorded; an
 * id the list does not name stays; the mapping survives the capture's name table.
 */
class AscendDevicesTest {
    private static List<Integer> logical(AscendDevices devices, int... physical) {
        return java.util.Arrays.stream(physical).map(devices::logical).boxed().toList();
    }

    @Test
    void thePositionInTheListIsTheLogicalOrdinal() {
        AscendDevices devices = AscendDevices.parse("4,2");
        assertEquals(List.of(0, 1, 3, 0, 7, -1), logical(devices, 4, 2, 3, 0, 7, -1));
        assertEquals(List.of(0, 1), logical(AscendDevices.parse(" 4 , 2 "), 4, 2), "spaces around an id are CANN's too");
        assertEquals(List.of(0, 2), logical(AscendDevices.parse("4,4,2"), 4, 2), "a repeated id keeps its first ordinal");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " "})
    void unsetOrBlankIsTheIdentity(String value) {
        assertEquals(List.of(0, 4, 2), logical(AscendDevices.parse(value), 0, 4, 2));
        assertEquals(List.of(0, 4, 2), logical(AscendDevices.parse(null), 0, 4, 2));
        assertEquals(Map.of(), AscendDevices.parse(value).entries());
    }

    @ParameterizedTest
    @ValueSource(strings = {"4,x", "4,-1", "4,1024", "4,,2"})
    void aMalformedListWarnsAndKeepsIdsAsRecorded(String value) {
        String err = stderrOf(() -> AscendDevices.parse(value), devices -> {
            assertEquals(List.of(4, 2, 0), logical(devices, 4, 2, 0));
        });
        assertTrue(err.contains("flagtrace[mspti] WARNING: ASCEND_RT_VISIBLE_DEVICES=" + value
                + " is not a list of device ids; device ids are kept as MSPTI reports them"), err);
    }

    @Test
    void theLastIdBelowTheDeviceLimitIsAnId() {
        assertEquals(0, AscendDevices.parse("1023").logical(1023));
    }

    @Test
    void theMappingSurvivesTheCapturesNameTable() {
        AscendDevices live = AscendDevices.parse("4,2");
        Map<Long, String> table = new HashMap<>(live.entries());
        assertEquals(Map.of(ApiNameHandle.of(0xA5CE, 4), "0", ApiNameHandle.of(0xA5CE, 2), "1"), table);
        table.put(0x7f00_0000_1000L, "a kernel"); // the table's other names are not devices
        AscendDevices replay = AscendDevices.saved(table::get);
        assertEquals(List.of(0, 1, 3), logical(replay, 4, 2, 3));
        assertEquals(live.entries(), replay.entries());
    }

    @Test
    void aSavedOrdinalThatIsNotANumberWarnsAndIsLeftOut() {
        Map<Long, String> table = Map.of(AscendDevices.handle(3), "three", AscendDevices.handle(5), "0");
        String err = stderrOf(() -> AscendDevices.saved(table::get), devices -> {
            assertEquals(List.of(3, 0), logical(devices, 3, 5));
        });
        assertTrue(err.contains("flagtrace[mspti] WARNING: device ordinal entry for physical device 3 is not a number: three"), err);
    }

    /** What {@code make} printed on stderr, after {@code check} ran on its result. */
    private static String stderrOf(Supplier<AscendDevices> make, java.util.function.Consumer<AscendDevices> check) {
        PrintStream saved = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            check.accept(make.get());
        } finally {
            System.setErr(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
