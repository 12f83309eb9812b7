package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.vendors.cupti.CuptiRecordLayout;
import org.flagos.trace.vendors.mupti.MuptiDecoder;
import org.junit.jupiter.api.Test;

/** A CUPTI-shaped vendor's API names: its own labels, each call asked of its domain; in a replay, from the name table. */
class CuptiShapedVendorTest {
    private static final int RUNTIME = 2;
    private static final int DRIVER = 1;
    private static final CuptiShapedVendor VENDOR = new CuptiShapedVendor("TESTPTI", CuptiRecordLayout.CUPTI_11_1, "testRuntime",
            "testDriver", RUNTIME, DRIVER);

    @Test
    void apiNamesAskTheSourceUnderEachKindsDomain() {
        List<String> asked = new ArrayList<>();
        ApiNames names = VENDOR.apiNames((domain, cbid) -> {
            asked.add(domain + ":" + cbid);
            return domain == RUNTIME && cbid == 7 ? "testLaunchKernel" : domain == DRIVER && cbid == 7 ? "tuLaunchKernel" : null;
        });
        assertEquals("testLaunchKernel", names.name(EventKind.RUNTIME, 7));
        assertEquals("tuLaunchKernel", names.name(EventKind.DRIVER, 7));
        assertNull(names.name(EventKind.RUNTIME, 8));
        assertEquals(List.of("2:7", "1:7", "2:8"), asked);
        assertEquals("testRuntime", names.genericLabel(EventKind.RUNTIME));
        assertEquals("testDriver", names.genericLabel(EventKind.DRIVER));
    }

    @Test
    void aReplaysApiNamesComeFromTheNameTable() {
        Map<Long, String> table = Map.of(ApiNameHandle.of(RUNTIME, 3), "testMemcpy", ApiNameHandle.of(DRIVER, 3), "tuMemcpy");
        ApiNames names = VENDOR.replay(table::get, new NameTable(), DeviceClockMapping.IDENTITY).apiNames();
        assertEquals("testMemcpy", names.name(EventKind.RUNTIME, 3));
        assertEquals("tuMemcpy", names.name(EventKind.DRIVER, 3));
        assertNull(names.name(EventKind.RUNTIME, 4), "not in the table: the generic label applies");
        assertEquals("testRuntime", names.genericLabel(EventKind.RUNTIME));
    }

    @Test
    void musasLabelsAndDomains() {
        ApiNames musa = MuptiDecoder.VENDOR.apiNames((domain, cbid) -> domain + "/" + cbid);
        assertEquals("musaRuntime", musa.genericLabel(EventKind.RUNTIME));
        assertEquals("musaDriver", musa.genericLabel(EventKind.DRIVER));
        assertEquals("2/9", musa.name(EventKind.RUNTIME, 9), "CUPTI's runtime domain");
        assertEquals("1/9", musa.name(EventKind.DRIVER, 9), "CUPTI's driver domain");
    }
}
