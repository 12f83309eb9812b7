package org.flagos.trace.vendors.mcpti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.testing.Captures;
import org.junit.jupiter.api.Test;

/**
 * MCPTI's namespace: a name is looked up under the handle of (API kind, cbid) in the capture's name
 * table, runtime and driver apart; the labels and categories are MCPTI's and torch's PrivateUse1.
 */
class McptiApiNamesTest {
    private static final KernelNameFile TABLE = KernelNameFile.read(Captures.dir().resolve("fake/fake-mcpti.names.tsv"));

    @Test
    void namesComeFromTheCapturesTableUnderTheirHandles() {
        McptiApiNames names = new McptiApiNames(TABLE);
        assertEquals(0xFA00_0005_0000_0001L, McptiApiNames.handle(EventKind.RUNTIME, 1), "runtime: CUPTI's kind 5");
        assertEquals(0xFA00_0004_0000_0001L, McptiApiNames.handle(EventKind.DRIVER, 1), "driver: CUPTI's kind 4");
        assertEquals(0xFA00_0005_FFFF_FFFFL, McptiApiNames.handle(EventKind.RUNTIME, -1), "the cbid unsigned, not sign-extended");
        assertEquals("mcApi1", names.name(EventKind.RUNTIME, 1));
        assertEquals("mcApi2", names.name(EventKind.RUNTIME, 2));
        assertNull(names.name(EventKind.DRIVER, 1), "the table holds runtime names only: the driver's 1 is another call");
        assertEquals(names.name(EventKind.RUNTIME, 1), names.name(EventKind.KERNEL, 1), "anything not DRIVER is runtime");
    }

    @Test
    void labelsAndCategoriesAreMetaxs() {
        McptiApiNames names = new McptiApiNames(TABLE);
        assertEquals("mcptiDriver", names.genericLabel(EventKind.DRIVER));
        assertEquals("mcptiRuntime", names.genericLabel(EventKind.RUNTIME));
        assertEquals("privateuse1_driver", names.category(EventKind.DRIVER));
        assertEquals("privateuse1_runtime", names.category(EventKind.RUNTIME));
    }
}
