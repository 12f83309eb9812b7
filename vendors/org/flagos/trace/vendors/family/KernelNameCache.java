package org.flagos.trace.vendors.family;

import org.flagos.trace.names.ItaniumDemangler;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.KernelNames;
import org.agrona.collections.Long2LongHashMap;
import org.flagos.trace.model.NameTable;

/**
 * Kernel name handle to interned, demangled name id. CUPTI and the CUPTI-shaped libraries hand the
 * same {@code const char*} for every launch of a kernel, so the string work (lookup, demangling)
 * happens once per kernel.
 */
public final class KernelNameCache {
    private final KernelNames source;
    private final NameTable table;
    private final Long2LongHashMap ids = new Long2LongHashMap(256, 0.65f, -1, true);
    private DecodeStats stats;

    /** Names from {@code source}, interned into {@code table}. */
    public KernelNameCache(KernelNames source, NameTable table) {
        this.source = source;
        this.table = table;
    }

    /** Where unresolved handles are counted (none until set). */
    public void stats(DecodeStats stats) {
        this.stats = stats;
    }

    /** The interned name of {@code handle}; a placeholder name (counted) when the source has none. */
    public int nameId(long handle) {
        int id = (int) ids.get(handle);
        if (id >= 0) {
            return id;
        }
        String mangled = source.lookup(handle);
        String name;
        if (mangled == null) {
            name = "<unresolved kernel 0x" + Long.toHexString(handle) + ">";
            if (stats != null) {
                stats.unnamedKernel();
            }
        } else {
            name = ItaniumDemangler.demangle(mangled);
        }
        id = table.intern(name);
        ids.put(handle, id);
        return id;
    }
}
