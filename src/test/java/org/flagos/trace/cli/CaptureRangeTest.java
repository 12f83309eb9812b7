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

    private static String refused(String value) {
        return assertThrows(UsageException.class, () -> CaptureRange.checked(value)).getMessage();
    }
}
