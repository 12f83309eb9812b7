package org.flagos.trace.vendors.topspti;

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
 * Enflame GCU's TOPSPTI ({@code libtopspti.so}): kernels, copies, memsets, runtime and driver calls
 * in the GCU's device clock mapped to epoch ns. TOPSPTI has no external-correlation records and no
 * push/pop: the shim keeps each thread's op-id stack, and a runtime-domain API-enter callback binds
 * each call's correlation id to the calling thread's innermost op; the tracer publishes those
 * bindings before each buffer's records (and saves them into a capture).
 */
public final class TopsptiTracer extends CuptiFamilyTracer {
    /** The {@code .fltrbuf} vendor id of TOPSPTI buffers. */
    public static final int DUMP_VENDOR = 5;
    /** TOPSPTI's profile: CUPTI's kind numbers (assumed), bindings at runtime API enter, its own clock. */
    public static final Profile PROFILE = new Profile("topspti", "topspti", "libtopspti.so", DUMP_VENDOR,
            new int[] {TopsptiKinds.CONCURRENT_KERNEL, TopsptiKinds.MEMCPY, TopsptiKinds.MEMSET, TopsptiKinds.RUNTIME,
                TopsptiKinds.DRIVER},
            TopsptiKinds.BINDINGS_EXTERNAL_KIND, TopsptiKinds.DOMAIN_RUNTIME_API, false);

    private volatile BufferTap tap = BufferTap.NONE;

    /** The library named by the override property or variable, else {@code libtopspti.so}. */
    public TopsptiTracer() {
        this(null);
    }

    /** The library at {@code library} (null: the default lookup). */
    public TopsptiTracer(String library) {
        super(PROFILE, library);
    }

    /** A fresh cache per session, so every capture's name table holds the names its calls use. */
    @Override
    public ApiNames apiNames() {
        return TopsptiDecoder.apiNames(this::resolve);
    }

    @Override
    protected ClockedDecoder decoder(NameTable names, BufferTap sessionTap) {
        this.tap = sessionTap;
        return TopsptiDecoder.live(new LiveKernelNames(sessionTap), names, apiNames());
    }

    /** {@code topsptiGetCallbackName} (else {@code ActivityGetApiName}) through the shim; saved into the name table. */
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
