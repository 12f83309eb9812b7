package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The pause before the forced flush at a stop: the in-process session's and the injected library's are one. */
class CuptiStopPauseTest {
    @Test
    void theInjectedLibraryPausesAsLongBeforeItsFlush() throws IOException {
        String c = InjectedLibrarySource.text();
        assertEquals(CuptiStopPause.NANOS, InjectedLibrarySource.constant("STOP_PAUSE_NS"));
        int flush = c.indexOf("static void cupti_flush(void) {");
        assertTrue(flush > 0 && c.indexOf("nanosleep", flush) < c.indexOf("cupti.flushAll(1)", flush), "the pause comes before the flush");
    }

    @Test
    void theSessionPausesBeforeItsForcedFlush() throws IOException {
        String java = Files.readString(Path.of("vendors", "org", "flagos", "trace", "vendors", "cupti", "CuptiTracer.java"));
        int pause = java.indexOf("CuptiStopPause.pause();");
        assertTrue(pause > 0, "the stop pauses");
        assertTrue(pause < java.indexOf("cuptiActivityFlushAll(1", pause), "before the forced flush");
    }
}
