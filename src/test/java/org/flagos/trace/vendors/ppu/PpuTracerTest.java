package org.flagos.trace.vendors.ppu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.flagos.trace.testing.FakeVendorLibrary;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.junit.jupiter.api.Test;

/**
 * PpuTracer's own rules, over the fake PPU library (src/test/native/fake_ppu.c) without a session: a
 * missing library or one without CUPTI's entry points is one sentence; the profile never asks for
 * both kernel kinds; CONCURRENT_KERNEL is enabled alone, and when PPU refuses it KERNEL is used in
 * its place (one warning, word for word) and is what disabling CONCURRENT_KERNEL disables.
 */
class PpuTracerTest {
    /** fake_cupti_engine.h's CUPTI_ERROR_NOT_COMPATIBLE. */
    private static final int NOT_COMPATIBLE = 17;
    /** fakeStat(3): the mask of enabled kinds. */
    private static final int ENABLED_MASK = 3;

    private static PpuTracer fake() {
        PpuTracer tracer = new PpuTracer(FakeVendorLibrary.build("fake_ppu").toString());
        assertTrue(tracer.available(), tracer.unavailableReason());
        tracer.invoke("fakeReset", 0);
        return tracer;
    }

    @Test
    void aMissingLibraryIsOneSentence() {
        String path = "/nonexistent/flagtrace-test/libcupti.so";
        PpuTracer tracer = new PpuTracer(path);
        assertFalse(tracer.available());
        assertTrue(tracer.unavailableReason().startsWith("ppu library " + path + " could not be loaded: " + path + ":"),
                tracer.unavailableReason());
        assertTrue(tracer.unavailableReason().endsWith(": cannot open shared object file: No such file or directory"),
                tracer.unavailableReason());
        assertFalse(tracer.unavailableReason().contains("\n"), "one line");
    }

    @Test
    void aLibraryWithoutCuptisEntryPointsIsRefusedNamingTheFirstMissing() {
        String other = FakeVendorLibrary.build("fake_roctracer").toString();
        PpuTracer tracer = new PpuTracer(other);
        assertFalse(tracer.available());
        assertTrue(tracer.unavailableReason().matches("ppu library \\Q" + other + "\\E could not be loaded: \\Q" + other
                + "\\E has no cupti\\w+"), tracer.unavailableReason());
    }

    @Test
    void theProfileAsksForConcurrentKernelNeverKernel() {
        int[] kinds = PpuTracer.PROFILE.sessionKinds();
        assertTrue(Arrays.stream(kinds).anyMatch(k -> k == CuptiActivityKind.CONCURRENT_KERNEL));
        assertFalse(Arrays.stream(kinds).anyMatch(k -> k == CuptiActivityKind.KERNEL));
    }

    @Test
    void concurrentKernelIsEnabledAloneWhenPpuTakesIt() {
        PpuTracer tracer = fake();
        assertEquals(-1, tracer.kernelKind(), "no session enabled a kernel kind yet");
        assertEquals(0, tracer.enableKind(CuptiActivityKind.CONCURRENT_KERNEL));
        assertEquals(CuptiActivityKind.CONCURRENT_KERNEL, tracer.kernelKind());
        assertEquals(1L << CuptiActivityKind.CONCURRENT_KERNEL, tracer.invoke("fakeStat", ENABLED_MASK));
        assertEquals(0, tracer.disableKind(CuptiActivityKind.CONCURRENT_KERNEL));
        assertEquals(0, tracer.invoke("fakeStat", ENABLED_MASK));
    }

    @Test
    void whenPpuRefusesConcurrentKernelKernelTakesItsPlaceEverywhere() {
        PpuTracer tracer = fake();
        tracer.invoke("fakeRefuseConcurrentKernel", 1);
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = tracer.enableKind(CuptiActivityKind.CONCURRENT_KERNEL);
        } finally {
            System.setErr(saved);
            tracer.invoke("fakeRefuseConcurrentKernel", 0);
        }
        assertEquals(0, status);
        assertEquals(CuptiActivityKind.KERNEL, tracer.kernelKind());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("flagtrace[ppu] WARNING: cuptiActivityEnable(CONCURRENT_KERNEL) returned "
                + NOT_COMPATIBLE + ": using KERNEL"), err.toString(StandardCharsets.UTF_8));
        assertEquals(1L << CuptiActivityKind.KERNEL, tracer.invoke("fakeStat", ENABLED_MASK));
        assertEquals(0, tracer.disableKind(CuptiActivityKind.CONCURRENT_KERNEL), "disables the KERNEL enabled in its place");
        assertEquals(0, tracer.invoke("fakeStat", ENABLED_MASK));
        assertEquals(0, tracer.invoke("fakeStat", 0), "never both kernel kinds asked for");
        assertEquals(0, tracer.enableKind(CuptiActivityKind.MEMCPY), "other kinds pass through");
        assertEquals(0, tracer.disableKind(CuptiActivityKind.MEMCPY));
    }
}
