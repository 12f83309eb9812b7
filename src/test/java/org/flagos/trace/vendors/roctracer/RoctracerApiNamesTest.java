package org.flagos.trace.vendors.roctracer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.EventKind;
import org.junit.jupiter.api.Test;

/** HIP API names looked up under (HIP_API, op); HIP's "unknown" and an empty name keep the generic label. */
class RoctracerApiNamesTest {
    private final RoctracerApiNames names = new RoctracerApiNames(Map.of(
            ApiNameHandle.of(3, 107), "hipLaunchKernel",
            ApiNameHandle.of(3, 9999), "unknown",
            ApiNameHandle.of(3, 5), "",
            ApiNameHandle.of(2, 107), "KernelExecution")::get);

    @Test
    void runtimeCallsAreNamedByTheirHipApiId() {
        assertEquals("hipLaunchKernel", names.name(EventKind.RUNTIME, 107));
        assertNull(names.name(EventKind.RUNTIME, 9999), "HIP's answer for an id it does not know");
        assertNull(names.name(EventKind.RUNTIME, 5), "an empty name");
        assertNull(names.name(EventKind.RUNTIME, 6), "not in the table");
        assertNull(names.name(EventKind.DRIVER, 107), "only runtime calls are HIP API calls");
        assertNull(names.name(EventKind.KERNEL, 107));
    }

    @Test
    void labelsAndCategories() {
        assertEquals("hipApi", names.genericLabel(EventKind.RUNTIME));
        assertEquals("privateuse1_runtime", names.category(EventKind.RUNTIME));
        assertEquals("privateuse1_driver", names.category(EventKind.DRIVER));
    }
}
