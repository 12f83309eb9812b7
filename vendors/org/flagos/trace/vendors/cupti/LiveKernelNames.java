package org.flagos.trace.vendors.cupti;

import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.pipeline.BufferTap;
import org.flagos.trace.pipeline.KernelNames;

/**
 * Reads a kernel's name where CUPTI's record points: a NUL-terminated string owned by CUPTI for the
 * process's life. Called once per distinct kernel (the decoder caches by pointer); each name also
 * goes to the tap, so a dumped capture carries its name table.
 */
final class LiveKernelNames implements KernelNames {
    private final BufferTap tap;

    LiveKernelNames(BufferTap tap) {
        this.tap = tap;
    }

    @Override
    public String lookup(long handle) {
        if (handle == 0) {
            return null;
        }
        String name = new CString(handle).getString();
        tap.kernelName(handle, name);
        return name;
    }

    /** A view of a C string at a raw address, owned by CUPTI. */
    private static final class CString extends BytePointer {
        CString(long address) {
            this.address = address;
        }
    }
}
