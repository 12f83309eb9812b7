package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** A failed native load said by the library that was missing, from JavaCPP's chain of link errors. */
class NativeLoadFailureTest {
    /** The chain JavaCPP 1.5.13 throws on a machine without the NVIDIA driver (seen on the 2-core machine, 2026-12-05). */
    private static UnsatisfiedLinkError javacpp(String linker) {
        UnsatisfiedLinkError top = new UnsatisfiedLinkError("no jnicudart in java.library.path: /usr/java/packages/lib:/usr/lib");
        top.initCause(new UnsatisfiedLinkError(linker));
        return top;
    }

    @Test
    void theLinkersLibraryIsNamedNotTheBridge() {
        UnsatisfiedLinkError e = javacpp("/root/.javacpp/cache/cuda-13.1-9.19-1.5.13-linux-x86_64.jar/org/bytedeco/cuda/linux-x86_64/"
                + "libjnicudart.so: libcuda.so.1: cannot open shared object file: No such file or directory");
        assertEquals("libcuda.so.1: cannot open shared object file: No such file or directory", NativeLoadFailure.describe(e));
        assertEquals("libcuda.so.1", NativeLoadFailure.library(e));
        UnsatisfiedLinkError runtime = javacpp("/tmp/c/libjnicudart.so: libcudart.so.13: cannot open shared object file: No such file");
        assertEquals("libcudart.so.13", NativeLoadFailure.library(runtime));
    }

    @Test
    void otherFailuresKeepTheDeepestLinkErrorsFirstLine() {
        UnsatisfiedLinkError symbol = javacpp("/tmp/c/libjnicupti.so: undefined symbol: cuptiActivityFlushAll\nmore");
        assertEquals("/tmp/c/libjnicupti.so: undefined symbol: cuptiActivityFlushAll", NativeLoadFailure.describe(symbol));
        assertNull(NativeLoadFailure.library(symbol));
        assertEquals("no jnicudart in java.library.path: /usr/lib",
                NativeLoadFailure.describe(new UnsatisfiedLinkError("no jnicudart in java.library.path: /usr/lib")));
        NoClassDefFoundError noClass = new NoClassDefFoundError("Could not initialize class org.bytedeco.cuda.global.cudart");
        assertEquals("Could not initialize class org.bytedeco.cuda.global.cudart", NativeLoadFailure.describe(noClass));
        RuntimeException wrapped = new RuntimeException("load", javacpp("/x/libjnicudart.so: libcuda.so.1: cannot open shared object file"));
        assertEquals("libcuda.so.1", NativeLoadFailure.library(wrapped), "found through a wrapper");
    }
}
