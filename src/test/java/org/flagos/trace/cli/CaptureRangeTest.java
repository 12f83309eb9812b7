package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code --capture-range}'s three forms pass as given; anything else is a usage error that quotes the value. */
class CaptureRangeTest {
    @Test
    void theThreeFormsPassAsGiven() {
        assertNull(CaptureRange.checked(null));
        assertEquals("cudaProfilerApi", CaptureRange.checked("cudaProfilerApi"));
        assertEquals("nvtx:train step", CaptureRange.checked("nvtx:train step"));
        assertEquals("mstx:step", CaptureRange.checked("mstx:step"));
        assertEquals("nvtx:a:b", CaptureRange.checked("nvtx:a:b"), "the name is everything after the first colon");
        String longest = "nvtx:" + "x".repeat(1024);
        assertEquals(longest, CaptureRange.checked(longest));
    }

    @Test
    void aBadNameIsRefusedSayingWhatANameMayBe() {
        String rule = "--capture-range nvtx:NAME wants a range name of one line (1 to 1024 characters), got '";
        assertEquals(rule + "'", refused("nvtx:"));
        assertEquals(rule + "a\\nb'", refused("nvtx:a\nb"));
        assertEquals(rule + "a\0b'", refused("nvtx:a\0b"));
        assertEquals(rule + "y".repeat(1025) + "'", refused("nvtx:" + "y".repeat(1025)));
        assertEquals("--capture-range mstx:NAME wants a range name of one line (1 to 1024 characters), got ''", refused("mstx:"));
    }

    @Test
    void anotherFormIsRefusedListingTheForms() {
        String forms = "--capture-range wants nvtx:NAME, mstx:NAME or cudaProfilerApi, got '";
        assertEquals(forms + "nvtx'", refused("nvtx"));
        assertEquals(forms + "roctx:step'", refused("roctx:step"));
        assertEquals(forms + ":step'", refused(":step"));
        assertEquals(forms + "cudaprofilerapi'", refused("cudaprofilerapi"));
        assertEquals(forms + "'", refused(""));
        assertEquals(forms + "x\\ny'", refused("x\ny"));
    }

    @Test
    void captureRangeEndCountsWindows() {
        assertEquals(0, CaptureRange.windows(null, null), "not given");
        assertEquals(0, CaptureRange.windows("repeat", "nvtx:step"), "every window");
        assertEquals(1, CaptureRange.windows("stop", "cudaProfilerApi"));
        assertEquals(3, CaptureRange.windows("repeat:3", "mstx:step"));
        assertEquals(9_999_999, CaptureRange.windows("repeat:9999999", "nvtx:step"));
        assertEquals("--capture-range-end goes with --capture-range",
                assertThrows(UsageException.class, () -> CaptureRange.windows("stop", null)).getMessage());
        String rule = "--capture-range-end wants repeat, stop or repeat:N (N from 1 to 9999999), got '";
        for (String bad : new String[] {"repeat:0", "repeat:10000000", "repeat:", "repeat:-1", "Stop"}) {
            assertEquals(rule + bad + "'", assertThrows(UsageException.class, () -> CaptureRange.windows(bad, "nvtx:step")).getMessage());
        }
        assertEquals(rule + "repeat:1\\n'", assertThrows(UsageException.class, () -> CaptureRange.windows("repeat:1\n", "nvtx:step"))
                .getMessage());
    }

    private static String refused(String value) {
        return assertThrows(UsageException.class, () -> CaptureRange.checked(value)).getMessage();
    }
}
