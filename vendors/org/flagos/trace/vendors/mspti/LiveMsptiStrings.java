package org.flagos.trace.vendors.mspti;

import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.KernelNames;

/**
 * Reads a string where an MSPTI record points: NUL-terminated, owned by MSPTI for the process's life.
 * Called during the buffer callback, once per distinct pointer; each string also goes to the tap,
 * so a dumped capture carries every name its records point to.
 */
final class LiveMsptiStrings implements KernelNames {
    private final BufferTap tap;

    LiveMsptiStrings(BufferTap tap) {
        this.tap = tap;
    }

    @Override
    public String lookup(long handle) {
        if (handle == 0) {
            return null;
        }
        String name = new CString(handle).getString(java.nio.charset.StandardCharsets.UTF_8);
        tap.kernelName(handle, name);
        return name;
    }

    /** A view of a C string at a raw address. */
    private static final class CString extends BytePointer {
        CString(long address) {
            this.address = address;
        }
    }
}
