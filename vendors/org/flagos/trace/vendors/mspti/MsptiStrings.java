package org.flagos.trace.vendors.mspti;

import org.flagos.trace.names.ItaniumDemangler;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.LongIntHashMap;
import org.flagos.trace.model.NameTable;

/**
 * MSPTI's {@code const char*} fields (API name, kernel name, kernel type) to interned name ids. MSPTI
 * hands the same pointer for every record of one name, so each string is read once. Live, the
 * source reads the C string during the buffer callback (and saves it to the capture's name table);
 * in a replay it is that table.
 */
final class MsptiStrings {
    private static final int NONE = -1;

    private final KernelNames source;
    private final NameTable table;
    private final LongIntHashMap kernels = new LongIntHashMap(256, NONE);
    private final LongIntHashMap apis = new LongIntHashMap(256, NONE);
    private final LongIntHashMap types = new LongIntHashMap(64, NONE);
    private DecodeStats stats;

    MsptiStrings(KernelNames source, NameTable table) {
        this.source = source;
        this.table = table;
    }

    void stats(DecodeStats stats) {
        this.stats = stats;
    }

    /** The kernel name's id; an unknown pointer keeps a visible placeholder and is counted. */
    int kernel(long pointer) {
        int id = kernels.get(pointer);
        if (id != NONE) {
            return id;
        }
        String name = pointer == 0 ? null : source.lookup(pointer);
        if (name == null) {
            name = "<unresolved kernel 0x" + Long.toHexString(pointer) + ">";
            if (stats != null) {
                stats.unnamedKernel();
            }
        } else {
            name = ItaniumDemangler.demangle(name);
        }
        id = table.intern(name);
        kernels.put(pointer, id);
        return id;
    }

    /** The API name's id, or -1 when the record names none (the generic label then applies). */
    int api(long pointer) {
        if (pointer == 0) {
            return NONE;
        }
        int id = apis.get(pointer);
        if (id != NONE) {
            return id;
        }
        String name = source.lookup(pointer);
        id = name == null || name.isEmpty() ? NONE : table.intern(name);
        if (id != NONE) {
            apis.put(pointer, id);
        }
        return id;
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
