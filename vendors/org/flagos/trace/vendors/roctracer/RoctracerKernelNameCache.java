package org.flagos.trace.vendors.roctracer;

import org.flagos.trace.natives.ItaniumDemangler;
import org.flagos.trace.pipeline.DecodeStats;
import org.flagos.trace.pipeline.KernelNames;
import org.agrona.collections.Long2LongHashMap;
import org.flagos.trace.pipeline.NameTable;

/**
 * Kernel name handle to interned, demangled name id, once per distinct handle. A live handle is the
 * shim's process-lifetime copy of the name (one per distinct name), a replayed one the same value
 * read back from the capture, so caching by handle is exact in both.
 */
final class RoctracerKernelNameCache {
    private final KernelNames source;
    private final NameTable table;
    private final Long2LongHashMap ids = new Long2LongHashMap(64, 0.65f, -1, true);

    RoctracerKernelNameCache(KernelNames source, NameTable table) {
        this.source = source;
        this.table = table;
    }

    int nameId(long handle, DecodeStats stats) {
        int id = (int) ids.get(handle);
        if (id >= 0) {
            return id;
        }
        String mangled = handle == 0 ? null : source.lookup(handle);
        String name;
        if (mangled == null) {
            name = "<unresolved kernel 0x" + Long.toHexString(handle) + ">";
            stats.unnamedKernel();
        } else {
            name = ItaniumDemangler.demangle(mangled);
        }
        id = table.intern(name);
        ids.put(handle, id);
        return id;
    }
}
