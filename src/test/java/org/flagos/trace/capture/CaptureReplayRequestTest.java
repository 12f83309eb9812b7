package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.KernelNames;
import org.junit.jupiter.api.Test;

/** A replay request's builder: every default in one place, the checks at build, and toBuilder keeping every field. */
class CaptureReplayRequestTest {
    private static final ByteBuffer BYTES = ByteBuffer.allocate(8);

    @Test
    void ofGivesEveryDefault() {
        CaptureReplay.Request r = CaptureReplay.Request.of(BYTES, "c.fltrbuf").build();
        assertSame(BYTES, r.capture());
        assertEquals("c.fltrbuf", r.source());
        assertEquals("c.fltrbuf", r.traceName(), "the trace is named as its source unless told");
        assertNull(r.ops());
        assertSame(KernelNames.NONE, r.kernelNames());
        assertEquals(List.of(), r.devices());
        assertEquals(Map.of(), r.metadata());
        assertSame(CaptureReplay.IN_FILE_ORDER, r.frameOrder());
        assertEquals(CapturePipeline.DEFAULT_RING_SIZE, r.ringSize());
        assertSame(DeviceClockMapping.IDENTITY, r.clock());
        assertNull(r.file());
        assertNull(r.process());
        assertTrue(r.gpuAnnotations());
    }

    @Test
    void toBuilderKeepsEveryFieldAndWithersChangeOne() {
        CaptureReplay.Request r = CaptureReplay.Request.of(BYTES, "c.fltrbuf").traceName("t").ringSize(1 << 10)
                .metadata(Map.of("k", "v")).build();
        assertEquals(r, r.toBuilder().build());
        CaptureReplay.Request plain = r.withoutGpuAnnotations();
        assertFalse(plain.gpuAnnotations());
        assertEquals(r, plain.toBuilder().gpuAnnotations(true).build());
        assertEquals(r, r.withProcess(null));
    }

    @Test
    void aRequestReadsBytesOrAFileExactlyOnce() {
        assertThrows(IllegalArgumentException.class, () -> CaptureReplay.Request.of(BYTES, "c").file(Path.of("c.fltrbuf")).build());
        assertThrows(IllegalArgumentException.class, () -> CaptureReplay.Request.of(null, "c").build());
        assertThrows(NullPointerException.class, () -> CaptureReplay.Request.of(BYTES, "c").kernelNames(null).build());
    }
}
