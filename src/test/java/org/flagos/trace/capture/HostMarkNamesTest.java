package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** {@link HostMarkNames}: one handle per distinct text, from 1; 0 for none; each handle resolves to its text. */
class HostMarkNamesTest {
    @Test
    void oneHandlePerTextEachResolvingToIt() {
        HostMarkNames names = new HostMarkNames();
        long tick = names.handle("tick");
        long app = names.handle("app");
        long empty = names.handle("");
        assertEquals(1, tick);
        assertNotEquals(tick, app);
        assertEquals(tick, names.handle("tick"), "the same text, the same handle");
        assertEquals(0, names.handle(null), "no text (the default domain): no handle");
        assertEquals("tick", names.markerName(tick));
        assertEquals("app", names.markerName(app));
        assertEquals("", names.markerName(empty));
        assertNull(names.markerName(0));
        assertNull(names.markerName(99));
        assertNull(names.kernelName(tick), "marks name no kernel");
    }
}
