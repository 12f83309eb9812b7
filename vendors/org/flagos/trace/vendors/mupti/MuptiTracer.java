package org.flagos.trace.vendors.mupti;

import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.flagos.trace.pipeline.ApiNameHandle;
import org.flagos.trace.pipeline.ApiNames;
import org.flagos.trace.pipeline.BufferTap;
import org.flagos.trace.pipeline.NameTable;
import org.flagos.trace.vendors.family.ClockedDecoder;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;
import org.flagos.trace.vendors.family.LiveKernelNames;

/**
 * Moore Threads MUSA's MUPTI ({@code libmupti.so}): kernels, copies, memsets and runtime calls,
 * with op ids pushed as CUSTOM0 external correlations (MUPTI writes the external-correlation
 * records itself), in MUSA's device clock mapped to epoch ns. API names come from {@code
 * muptiGetCallbackName}, asked on the naming stage's thread and saved into a capture's name table.
 */
public final class MuptiTracer extends CuptiFamilyTracer {
    /** The {@code .fltrbuf} vendor id of MUPTI buffers. */
    public static final int DUMP_VENDOR = 3;
    /** MUPTI's profile: CUPTI's kind numbers (assumed), CUSTOM0 pushes, no API-enter binding, its own clock. */
    public static final Profile PROFILE = new Profile("mupti", "mupti", "libmupti.so", DUMP_VENDOR,
            new int[] {MuptiKinds.CONCURRENT_KERNEL, MuptiKinds.MEMCPY, MuptiKinds.MEMSET, MuptiKinds.RUNTIME,
                MuptiKinds.EXTERNAL_CORRELATION},
            MuptiKinds.EXTERNAL_CUSTOM0, -1, false);

    private volatile BufferTap tap = BufferTap.NONE;

    /** The library named by the override property or variable, else {@code libmupti.so}. */
    public MuptiTracer() {
        this(null);
    }

    /** The library at {@code library} (null: the default lookup). */
    public MuptiTracer(String library) {
        super(PROFILE, library);
    }

    /** A fresh cache per session, so every capture's name table holds the names its calls use. */
    @Override
    public ApiNames apiNames() {
        return MuptiDecoder.apiNames(this::resolve);
    }

    @Override
    protected ClockedDecoder decoder(NameTable names, BufferTap sessionTap) {
        this.tap = sessionTap;
        return MuptiDecoder.live(new LiveKernelNames(sessionTap), names, apiNames());
    }

    /** {@code muptiGetCallbackName} through the shim; the name also goes to the capture's name table. */
    private String resolve(int domain, int cbid) {
        Handle library = handle();
        if (library == null) {
            return null;
        }
        BytePointer name = CuptiFamilyLibrary.ft_family_api_name(library, domain, cbid);
        if (name == null || name.isNull()) {
            return null;
        }
        String resolved = name.getString();
        tap.kernelName(ApiNameHandle.of(domain, cbid), resolved);
        return resolved;
    }
}
