package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Each kind's record size is the header's {@code sizeof}, and the fake MSPTI's buffers walk by them to the byte. */
class MsptiActivityKindTest {
    @Test
    void everyKindOfTheHeaderHasItsStructsSize() {
        // mspti_activity.h: marker, kernel, hccl, memset and memcpy are 56 bytes; the four API kinds
        // share msptiActivityApi (48); memory 64; external correlation 24; communication 72
        int[][] sizes = {{1, 56}, {2, 56}, {3, 48}, {4, 56}, {5, 64}, {6, 56}, {7, 56}, {8, 24}, {9, 72}, {10, 48},
            {11, 48}, {12, 48}};
        for (int[] kindSize : sizes) {
            assertEquals(kindSize[1], MsptiActivityKind.recordSize(kindSize[0]), "kind " + kindSize[0]);
            assertEquals(0, kindSize[1] % 8, "8-byte overall alignment");
        }
    }

    @Test
    void kindsTheHeaderDoesNotDefineHaveNoSize() {
        for (int kind : new int[] {0, 13, -1, 255, Integer.MIN_VALUE}) {
            assertEquals(-1, MsptiActivityKind.recordSize(kind), "kind " + kind);
        }
    }

    @Test
    void theFakeMsptisBuffersWalkToTheirExactEnd() {
        ByteBuffer buffer = FakeMsptiBuffers.scriptedBuffer();
        Map<Integer, Integer> counts = new TreeMap<>();
        int pos = 0;
        while (pos < buffer.limit()) {
            int kind = buffer.getInt(pos);
            counts.merge(kind, 1, Integer::sum);
            pos += MsptiActivityKind.recordSize(kind);
        }
        assertEquals(buffer.limit(), pos, "the last record ends where the valid bytes do");
        // the script: 3 launches, 1 copy, 1 memset; each call one ACL and one runtime API record; the 6 API
        // records inside the pushed id each preceded by an external-correlation record
        assertEquals(Map.of(MsptiActivityKind.KERNEL, 2, MsptiActivityKind.MEMSET, 1, MsptiActivityKind.MEMCPY, 1,
                MsptiActivityKind.EXTERNAL_CORRELATION, 6, MsptiActivityKind.ACL_API, 4, MsptiActivityKind.RUNTIME_API, 4),
                counts);
        assertEquals(2 * 56 + 56 + 56 + 6 * 24 + 8 * 48, buffer.limit());
    }
}
