package org.flagos.trace.vendors.family;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.testing.NameSavingTap;
import org.junit.jupiter.api.Test;

/** A kernel name read at the address a record points to, up to its NUL, and saved to the tap under that address. */
class LiveKernelNamesTest {
    private final NameSavingTap tap = new NameSavingTap();
    private final Map<Long, String> saved = tap.saved;

    @Test
    void readsTheNameAtTheAddressAndSavesIt() {
        String mangled = "_ZN2at6native18elementwise_kernelILi128ELi4EEEviPf";
        try (BytePointer c = new BytePointer(mangled, StandardCharsets.UTF_8);
             BytePointer d = new BytePointer("triton_poi_fused_add_0", StandardCharsets.UTF_8)) {
            LiveKernelNames names = new LiveKernelNames(tap);
            assertEquals(mangled, names.lookup(c.address()));
            assertEquals("triton_poi_fused_add_0", names.lookup(d.address()));
            assertEquals(Map.of(c.address(), mangled, d.address(), "triton_poi_fused_add_0"), saved);
        }
    }

    @Test
    void stopsAtTheFirstNul() {
        byte[] bytes = "kernel_a\0kernel_b".getBytes(StandardCharsets.US_ASCII);
        try (BytePointer c = new BytePointer(bytes.length + 1)) {
            c.put(bytes).put(bytes.length, (byte) 0);
            assertEquals("kernel_a", new LiveKernelNames(tap).lookup(c.address()));
        }
    }

    /**
     * A name that is not ASCII (a Triton kernel's, an NVTX-named one) reads as UTF-8 in a JVM whose default charset is
     * not (Java 17 takes it from the locale): a child JVM with ISO-8859-1 prints the name's code points.
     */
    @Test
    void aNameIsUtf8WhateverTheDefaultCharset() throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of("target", "live-kernel-names").toAbsolutePath();
        java.nio.file.Files.createDirectories(dir);
        org.flagos.trace.testing.ProgramRun run = org.flagos.trace.testing.ProgramRun.start(dir,
                java.util.List.of("-Dfile.encoding=ISO-8859-1"), ReadInDefaultCharset.class.getName());
        assertEquals(0, run.finish(), run.stderr());
        assertEquals("ISO-8859-1 6b 5f b5 73\n", run.stdout(), "k_µs, read as UTF-8");
        run.clean();
        java.nio.file.Files.deleteIfExists(dir);
    }

    /** The child: reads "k_µs" (UTF-8 bytes) through LiveKernelNames and prints its default charset and code points. */
    public static final class ReadInDefaultCharset {
        public static void main(String[] args) {
            byte[] utf8 = "k_\u00b5s".getBytes(StandardCharsets.UTF_8);
            try (BytePointer c = new BytePointer(utf8.length + 1)) {
                c.put(utf8).put(utf8.length, (byte) 0);
                String name = new LiveKernelNames(new NameSavingTap()).lookup(c.address());
                StringBuilder out = new StringBuilder(java.nio.charset.Charset.defaultCharset().name());
                name.codePoints().forEach(cp -> out.append(' ').append(Integer.toHexString(cp)));
                System.out.println(out);
            }
        }
    }

    @Test
    void aNullPointerIsNoneAndNotSaved() {
        assertNull(new LiveKernelNames(tap).lookup(0));
        assertEquals(Map.of(), saved);
    }
}
