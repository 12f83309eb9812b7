package org.flagos.trace.vendors.family;

import java.nio.charset.StandardCharsets;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.KernelNames;

/**
 * Reads a kernel's name where a CUPTI or CUPTI-shaped record points: a NUL-terminated string the
 * vendor keeps for the process's life (as CUPTI does). Called once per distinct kernel (the decoder
 * caches by pointer); each name also goes to the tap, so a dumped capture carries its name table. Read as UTF-8,
 * whatever the JVM's default charset, as a replay reads the name table: a live trace and its replay name alike.
 */
public final class LiveKernelNames implements KernelNames {
    private final BufferTap tap;

    /** Names read live, each also saved into {@code tap}. */
    public LiveKernelNames(BufferTap tap) {
        this.tap = tap;
    }

    @Override
    public String lookup(long handle) {
        if (handle == 0) {
            return null;
        }
        String name = new CString(handle).getString(StandardCharsets.UTF_8);
        tap.kernelName(handle, name);
        return name;
    }

    /** A view of a C string at a raw address, owned by the vendor. */
    private static final class CString extends BytePointer {
        CString(long address) {
            this.address = address;
        }
    }
}
