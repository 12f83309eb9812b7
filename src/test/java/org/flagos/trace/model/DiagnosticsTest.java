package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DiagnosticsTest {
    private final ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    private final PrintStream sink = new PrintStream(warnings, true, StandardCharsets.UTF_8);

    @ParameterizedTest
    @ValueSource(strings = {"1", "true", "TRUE", "On", "yes", " YES "})
    void truthyValuesTurnItOn(String value) {
        assertTrue(Diagnostics.parse(value, sink));
        assertEquals("", warnings.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "false", "Off", "NO", ""})
    void falsyValuesTurnItOffQuietly(String value) {
        assertFalse(Diagnostics.parse(value, sink));
        assertEquals("", warnings.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2", "maybe", "enabled"})
    void anythingElseIsOffWithOneWarningLine(String value) {
        assertFalse(Diagnostics.parse(value, sink));
        String text = warnings.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.contains("FLAGOS_TRACE=" + value + " is not a boolean"), text);
    }
}
