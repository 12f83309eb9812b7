package org.flagos.trace.pipeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DiagnosticsTest {
    @ParameterizedTest
    @ValueSource(strings = {"1", "true", "TRUE", "On", "yes", " YES "})
    void truthyValuesTurnItOn(String value) {
        assertTrue(Diagnostics.parse(value));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "false", "Off", "NO", "", "2", "maybe", "enabled"})
    void everythingElseIsOff(String value) {
        assertFalse(Diagnostics.parse(value));
    }
}
