package org.flagos.trace.report;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Fuzz target, differential: the summary's fast path ({@link SummaryScan}, its event forms included) against the one
 * reader, on a stretch of events that is {@link SummaryScanTest#GOOD} twice (its forms learnt, then guessed) and then the
 * input. Where the scan takes the stretch, the reader must take it too and hand the summary the same events, field for
 * field ({@link SummaryScanTest#agrees}); a difference, or a stretch the scan takes and the reader refuses, is a finding.
 *
 * <p>Seeds: {@code src/test/resources/org/flagos/trace/report/SummaryScanFuzzTestInputs/scan/}.
 */
class SummaryScanFuzzTest {
    private static final byte[] FORMS = (SummaryScanTest.GOOD + ",\n" + SummaryScanTest.GOOD + ",\n").getBytes(StandardCharsets.UTF_8);

    @FuzzTest(maxDuration = "3m")
    void scan(byte[] events) throws IOException {
        ByteArrayOutputStream stretch = new ByteArrayOutputStream(FORMS.length + events.length);
        stretch.writeBytes(FORMS);
        stretch.writeBytes(events);
        SummaryScanTest.agrees("the input after the good events", stretch.toByteArray());
    }
}
