package org.flagos.trace.vendors.mspti;

import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.LongIntHashMap;
import org.flagos.trace.model.RecordNaming;

/**
 * MSPTI's {@code const char*} fields (API name, kernel name, kernel type), read through the
 * capture's strings: live, the C string MSPTI keeps for the process's life (each also saved to the
 * capture's name table); in a replay, that table. The name stage asks for kernel and API names, once
 * per pointer; the decoder reads each kernel type once, so a live capture's name table covers it.
 */
final class MsptiStrings implements RecordNaming {
    private static final int NONE = -1;

    private final KernelNames source;
    private final LongIntHashMap types = new LongIntHashMap(64, NONE);

    MsptiStrings(KernelNames source) {
        this.source = source;
    }

    /** The kernel's (possibly mangled) name, or null for an unknown or null pointer. */
    @Override
    public String kernelName(long pointer) {
        return pointer == 0 ? null : source.lookup(pointer);
    }

    /** The API's name, or null for an unknown or null pointer (the generic label then applies). */
    @Override
    public String apiName(long pointer) {
        return pointer == 0 ? null : source.lookup(pointer);
    }

    /**
     * Reads a kernel type ({@code AI_CORE}, ...) once per pointer, so a live capture's name table
     * covers it; torch's kernel schema has no field for it, so it goes no further.
     */
    void kernelType(long pointer) {
        if (pointer != 0 && types.get(pointer) == NONE) {
            source.lookup(pointer);
            types.put(pointer, 1);
        }
    }
}
