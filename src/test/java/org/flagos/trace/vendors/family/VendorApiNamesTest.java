package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.EventKind;
import org.junit.jupiter.api.Test;

/**
 * API names a CUPTI-shaped vendor resolves itself: in a replay from the capture's name table (the
 * bundled MUPTI capture's three runtime calls), live from a resolver asked once per (domain, callback
 * id) whatever it answers; runtime and driver calls each in their own domain, with their generic
 * label and PrivateUse1 category.
 */
class VendorApiNamesTest {
    private static Path names(String file) throws URISyntaxException {
        return Path.of(VendorApiNamesTest.class.getResource("/captures/fake/" + file).toURI());
    }

    @Test
    void aReplayNamesTheCallsFromTheCapturesTable() throws Exception {
        VendorApiNames names = new VendorApiNames("musaRuntimeApi", "muDriverApi", 2, 1,
                VendorApiNames.fromTable(KernelNameFile.read(names("fake-mupti.names.tsv"))));
        // the table's 0xfa00000200000029, ...33 and ...d3: domain 2 (runtime), ids 41, 51, 211
        assertEquals("musaMemcpyAsync", names.name(EventKind.RUNTIME, 41));
        assertEquals("musaMemsetAsync", names.name(EventKind.RUNTIME, 51));
        assertEquals("musaLaunchKernel", names.name(EventKind.RUNTIME, 211));
        assertNull(names.name(EventKind.DRIVER, 211), "the driver domain has no such name");
        assertNull(names.name(EventKind.RUNTIME, 42));
        assertEquals("musaRuntimeApi", names.genericLabel(EventKind.RUNTIME));
        assertEquals("muDriverApi", names.genericLabel(EventKind.DRIVER));
        assertEquals("privateuse1_runtime", names.category(EventKind.RUNTIME));
        assertEquals("privateuse1_driver", names.category(EventKind.DRIVER));
    }

    @Test
    void theResolverIsAskedOncePerCallWhateverItAnswers() {
        List<String> asked = new ArrayList<>();
        VendorApiNames names = new VendorApiNames("rt", "drv", 7, 3, (domain, cbid) -> {
            asked.add(domain + ":" + cbid);
            return cbid == 1 ? "first" : cbid == 2 ? "" : null;
        });
        for (int i = 0; i < 3; i++) {
            assertEquals("first", names.name(EventKind.RUNTIME, 1));
            assertEquals("first", names.name(EventKind.DRIVER, 1));
            assertNull(names.name(EventKind.RUNTIME, 2), "an empty name is no name");
            assertNull(names.name(EventKind.RUNTIME, 3));
        }
        assertEquals(List.of("7:1", "3:1", "7:2", "7:3"), asked, "each (domain, id) once, unnamed ones too");
        assertNull(names.name(EventKind.RUNTIME, -1));
        assertEquals("7:-1", asked.get(asked.size() - 1), "any id is passed on as it is");
    }
}
