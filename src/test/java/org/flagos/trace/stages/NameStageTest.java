package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.CopyKind;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.MemoryKind;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.RecordType;
import org.flagos.trace.model.TraceRecord;
import org.junit.jupiter.api.Test;

class NameStageTest {
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
        NameStage stage = new NameStage(TABLE, names);
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
    void unnamedCallbackIdsReadFromRecordsAreKeptByIdOnlyUpToTheBoundTheRestCountedTogether() {
        NameStage stage = new NameStage(TABLE, new NameTable());
        int distinct = NameStage.UNKNOWN_CBIDS_KEPT + 500;
        long seq = 0;
        for (int i = 0; i < distinct; i++) {
            int cbid = 100_000 + i; // past every table: a hostile capture's ids
            stage.onEvent(api(EventKind.RUNTIME, cbid), seq++, true);
            if (i % 2 == 0) {
                stage.onEvent(api(EventKind.RUNTIME, cbid), seq++, true);
            }
        }
        stage.onEvent(api(EventKind.RUNTIME, -7), seq++, true);
        java.util.Map<String, Long> histogram = stage.unknownCbids();
        assertEquals(NameStage.UNKNOWN_CBIDS_KEPT + 1, histogram.size(), "the ids kept and one 'other'");
        assertEquals(2L, histogram.get("runtime:100000"), "a kept id counts every record of it");
        assertEquals(stage.generic(), histogram.values().stream().mapToLong(Long::longValue).sum(),
                "no unnamed record is lost from the histogram");
        assertEquals(null, histogram.get("runtime:-7"), "an id first seen past the bound is not kept");
        long beyond = 500 + 250 + 1; // ids 1024..1523 (those at even i twice) and -7
        assertEquals(beyond, histogram.get(NameStage.OTHER_CBIDS));
    }

    @Test
    void aDeviceRecordNamedBeforeTheStageKeepsItsName() {
        NameStage stage = new NameStage(TABLE, new NameTable());
        TraceRecord kernel = api(EventKind.KERNEL, 211);
        kernel.nameId = 42;
        stage.onEvent(kernel, 0, true);
        assertEquals(42, kernel.nameId);
    }

    /** A vendor's naming that counts what it is asked and fills one figure. */
    private static final class CountingNaming implements RecordNaming {
        final List<Long> asked = new ArrayList<>();

        @Override
        public String kernelName(long handle) {
            asked.add(handle);
            return handle == 7 ? "_Z4reluPfi" : null;
        }

        @Override
        public String apiName(long handle) {
            asked.add(-handle);
            return handle == 9 ? "aclrtLaunch" : null;
        }

        @Override
        public void kernelFigures(TraceRecord kernel) {
            kernel.occupancyPercent = 50;
        }
    }

    private static TraceRecord kernel(long handle, RecordNaming naming) {
        TraceRecord r = api(EventKind.KERNEL, 0);
        r.nameHandle = handle;
        r.naming = naming;
        return r;
    }

    @Test
    void kernelHandlesAreResolvedOnceDemangledAndUnknownOnesCounted() {
        NameTable names = new NameTable();
        DecodeStats stats = new DecodeStats();
        NameStage stage = new NameStage(TABLE, names, stats);
        CountingNaming naming = new CountingNaming();
        TraceRecord first = kernel(7, naming);
        TraceRecord again = kernel(7, naming);
        TraceRecord unknown = kernel(0xbeef, naming);
        stage.onEvent(first, 0, true);
        stage.onEvent(again, 1, true);
        stage.onEvent(unknown, 2, true);
        stage.onEvent(kernel(0xbeef, naming), 3, true);
        assertEquals("relu(float*, int)", names.name(first.nameId));
        assertEquals(first.nameId, again.nameId);
        assertEquals("<unresolved kernel 0xbeef>", names.name(unknown.nameId));
        assertEquals(List.of(7L, 0xbeefL), naming.asked, "each handle asked once");
        assertEquals(1, stats.unnamedKernels(), "counted once per distinct kernel");
        assertEquals(50, first.occupancyPercent, "the vendor's figures are filled with the name");
    }

    @Test
    void anApiRecordThatCarriesItsNameKeepsItAndOneThatPointsNowhereGetsTheTables() {
        NameTable names = new NameTable();
        NameStage stage = new NameStage(TABLE, names);
        CountingNaming naming = new CountingNaming();
        TraceRecord named = api(EventKind.RUNTIME, 0);
        named.nameHandle = 9;
        named.naming = naming;
        TraceRecord nowhere = api(EventKind.RUNTIME, 211);
        nowhere.nameHandle = 5;
        nowhere.naming = naming;
        stage.onEvent(named, 0, true);
        stage.onEvent(nowhere, 1, true);
        assertEquals("aclrtLaunch", names.name(named.nameId));
        assertEquals("cudaLaunchKernel", names.name(nowhere.nameId), "the callback-id table then names it");
        assertEquals(1, stage.vendorNamed());
        assertEquals(1, stage.resolved());
    }

    @Test
    void copiesAndSetsGetTorchsTransferNamesOneStringPerKindCombination() {
        NameTable names = new NameTable();
        NameStage stage = new NameStage(TABLE, names);
        TraceRecord copy = api(EventKind.MEMCPY, 0);
        copy.copyKind = CopyKind.HTOD;
        copy.srcKind = MemoryKind.PAGEABLE;
        copy.dstKind = MemoryKind.DEVICE;
        TraceRecord bare = api(EventKind.MEMCPY, 0);
        bare.copyKind = CopyKind.DTOH;
        TraceRecord set = api(EventKind.MEMSET, 0);
        set.memoryKind = MemoryKind.DEVICE;
        TraceRecord plainSet = api(EventKind.MEMSET, 0);
        for (TraceRecord r : List.of(copy, bare, set, plainSet)) {
            stage.onEvent(r, 0, true);
        }
        assertEquals("Memcpy HtoD (Pageable -> Device)", names.name(copy.nameId));
        assertEquals("Memcpy DtoH", names.name(bare.nameId));
        assertEquals("Memset (Device)", names.name(set.nameId));
        assertEquals("Memset", names.name(plainSet.nameId));
        int size = names.size();
        TraceRecord second = api(EventKind.MEMCPY, 0);
        second.copyKind = CopyKind.HTOD;
        second.srcKind = MemoryKind.PAGEABLE;
        second.dstKind = MemoryKind.DEVICE;
        stage.onEvent(second, 1, true);
        assertEquals(copy.nameId, second.nameId);
        assertEquals(size, names.size());
    }

    @Test
    void hostOpsAndTheEndOfTheCaptureAreNamedHere() {
        NameTable names = new NameTable();
        NameStage stage = new NameStage(TABLE, names);
        TraceRecord op = new TraceRecord();
        op.clear();
        op.type = RecordType.HOST_OP;
        op.opName = "aten::mm";
        op.opThreadName = "main";
        TraceRecord unnamedThread = new TraceRecord();
        unnamedThread.clear();
        unnamedThread.type = RecordType.HOST_OP;
        unnamedThread.opName = "aten::mm";
        TraceRecord end = new TraceRecord();
        end.clear();
        end.type = RecordType.END_OF_CAPTURE;
        stage.onEvent(op, 0, true);
        stage.onEvent(unnamedThread, 1, true);
        stage.onEvent(end, 2, true);
        assertEquals("aten::mm", names.name(op.nameId));
        assertEquals("main", names.name(op.threadNameId));
        assertEquals(op.nameId, unnamedThread.nameId);
        assertEquals(-1, unnamedThread.threadNameId);
        assertEquals("PyTorch Profiler (0)", names.name(end.nameId), "the capture span's name");
    }
}
