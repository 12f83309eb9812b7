package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Notes are held until the end of a capture and written into the trace: their number is bounded. */
class CaptureAccountingNotesTest {
    @Test
    void pastTheLimitOnlyTheNumberOfNotesIsKept() {
        CaptureAccounting accounting = new CaptureAccounting(null); // notes need no decoder counts
        for (int i = 0; i < 1000; i++) {
            accounting.note("note " + i);
        }
        List<String> notes = accounting.notes();
        assertEquals(CaptureAccounting.MAX_NOTES + 1, notes.size());
        assertEquals("note 0", notes.get(0));
        assertEquals("note 99", notes.get(CaptureAccounting.MAX_NOTES - 1));
        assertEquals("900 more notes left out (only the first 100 are kept)", notes.get(CaptureAccounting.MAX_NOTES));
    }
}
