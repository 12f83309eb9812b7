package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

class ApiNameStageTest {
    private static final ApiNames TABLE = new ApiNames() {
        @Override
        public String name(EventKind kind, int cbid) {
            return kind == EventKind.RUNTIME && cbid == 211 ? "cudaLaunchKernel" : null;
        }

        @Override
        public String genericLabel(EventKind kind) {
            return kind == EventKind.RUNTIME ? "cudaRuntime" : "cudaDriver";
        }
    };

    private static TraceRecord api(EventKind kind, int cbid) {
        TraceRecord r = new TraceRecord();
        r.clear();
        r.type = RecordType.ACTIVITY;
        r.kind = kind;
        r.cbid = cbid;
        return r;
    }

    @Test
    void knownIdsGetTheirNameUnknownKeepTheGenericLabelAndTheirCbid() {
        NameTable names = new NameTable();
        ApiNameStage stage = new ApiNameStage(TABLE, names);
        TraceRecord known = api(EventKind.RUNTIME, 211);
        TraceRecord unknown = api(EventKind.RUNTIME, 9999);
        TraceRecord driver = api(EventKind.DRIVER, 211);
        stage.onEvent(known, 0, true);
        stage.onEvent(unknown, 1, true);
        stage.onEvent(driver, 2, true);
        stage.onEvent(api(EventKind.RUNTIME, 211), 3, true);
        assertEquals("cudaLaunchKernel", names.name(known.nameId));
        assertEquals("cudaRuntime", names.name(unknown.nameId));
        assertEquals(9999, unknown.cbid, "the numeric id still travels");
        assertEquals("cudaDriver", names.name(driver.nameId), "driver ids are a separate namespace");
        assertEquals(2, stage.resolved());
        assertEquals(2, stage.generic());
        assertEquals(1L, stage.unknownCbids().get("runtime:9999"));
    }

    @Test
    void deviceRecordsAreLeftAlone() {
        ApiNameStage stage = new ApiNameStage(TABLE, new NameTable());
        TraceRecord kernel = api(EventKind.KERNEL, 211);
        kernel.nameId = 42;
        stage.onEvent(kernel, 0, true);
        assertEquals(42, kernel.nameId);
    }
}
