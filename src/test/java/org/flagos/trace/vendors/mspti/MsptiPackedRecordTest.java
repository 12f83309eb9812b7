package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The packed records' shared fields (start at 4 and end at 12, both unaligned, the 64-bit correlation
 * at 28) read from the fake MSPTI's buffers through both views, against the script's times.
 */
class MsptiPackedRecordTest {
    private static final ByteBuffer BUFFER = FakeMsptiBuffers.scriptedBuffer();

    /** The script's base time: {@code start - step * 10 us - offset}, the same for every record of the run. */
    private static long base(MsptiPackedRecord r, long offsetNs) {
        return r.start() - FakeMsptiBuffers.step(r.correlationId()) * 10_000 - offsetNs;
    }

    @Test
    void apiRecordsTimesAndCorrelationsAreTheScripts() {
        Set<Long> bases = new HashSet<>();
        Set<Long> steps = new HashSet<>();
        MsptiApiRecord api = new MsptiApiRecord();
        for (int kind : new int[] {MsptiActivityKind.ACL_API, MsptiActivityKind.RUNTIME_API}) {
            List<Integer> at = FakeMsptiBuffers.offsets(BUFFER, kind);
            assertEquals(4, at.size());
            for (int offset : at) {
                api.wrap(BUFFER, offset);
                boolean acl = kind == MsptiActivityKind.ACL_API;
                // the ACL call spans s .. s + 4 us, the runtime call inside it s + 1 us .. s + 3 us
                assertEquals(acl ? 4000 : 2000, api.end() - api.start());
                bases.add(base(api, acl ? 0 : 1000));
                steps.add(FakeMsptiBuffers.step(api.correlationId()));
                assertTrue(api.correlationId() > 1L << 32, "all 64 bits read");
            }
        }
        assertEquals(Set.of(1L, 2L, 3L, 4L), steps);
        assertEquals(1, bases.size(), "one base for every call: " + bases);
    }

    @Test
    void kernelRecordsShareTheApiRecordsClock() {
        MsptiApiRecord api = new MsptiApiRecord();
        api.wrap(BUFFER, FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.ACL_API).get(0));
        long apiBase = base(api, 0);
        MsptiKernelRecord kernel = new MsptiKernelRecord();
        Set<Long> steps = new HashSet<>();
        for (int offset : FakeMsptiBuffers.offsets(BUFFER, MsptiActivityKind.KERNEL)) {
            kernel.wrap(BUFFER, offset);
            assertEquals(apiBase, base(kernel, 5000), "a kernel starts 5 us into its step");
            assertEquals(3000, kernel.end() - kernel.start());
            steps.add(FakeMsptiBuffers.step(kernel.correlationId()));
        }
        assertEquals(Set.of(1L, 4L), steps);
    }

    @Test
    void aRecordCutShortIsRefusedNamingTheStruct() {
        MsptiApiRecord api = new MsptiApiRecord();
        api.wrap(BUFFER, BUFFER.limit() - MsptiApiRecord.SIZE); // the last 48 bytes still fit
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                () -> api.wrap(BUFFER, BUFFER.limit() - MsptiApiRecord.SIZE + 1));
        assertEquals("msptiActivityApi of 48 bytes at offset " + (BUFFER.limit() - 47) + " runs past the buffer's valid size "
                + BUFFER.limit(), e.getMessage());
        MsptiKernelRecord kernel = new MsptiKernelRecord();
        assertThrows(IndexOutOfBoundsException.class, () -> kernel.wrap(BUFFER, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> kernel.wrap(ByteBuffer.allocate(55), 0));
    }
}
