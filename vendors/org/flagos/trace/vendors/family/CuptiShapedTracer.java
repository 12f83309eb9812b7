package org.flagos.trace.vendors.family;

import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.natives.CuptiFamilyLibrary.Handle;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.NameTable;

/**
 * A {@link CuptiFamilyTracer} for a {@link CuptiShapedVendor}: its buffers go to a {@link
 * CuptiShapedDecoder}, kernel names are read live where the records point, and API names are asked
 * of the vendor's callback-name call through the shim, each also saved into a capture's name table.
 */
public abstract class CuptiShapedTracer extends CuptiFamilyTracer {
    private final CuptiShapedVendor vendor;
    private volatile BufferTap tap = BufferTap.NONE;

    /** The vendor {@code profile} describes, read as {@code vendor}, from {@code library} (null: the default lookup). */
    protected CuptiShapedTracer(Profile profile, CuptiShapedVendor vendor, String library) {
        super(profile, library);
        this.vendor = vendor;
    }

    /** A fresh cache per session, so every capture's name table holds the names its calls use. */
    @Override
    public ApiNames apiNames() {
        return vendor.apiNames(this::resolve);
    }

    @Override
    protected ClockedDecoder decoder(NameTable names, BufferTap sessionTap) {
        this.tap = sessionTap;
        return vendor.live(new LiveKernelNames(sessionTap), names, apiNames());
    }

    /** The vendor's callback name through the shim; the name also goes to the capture's name table. */
    private String resolve(int domain, int cbid) {
        Handle library = handle();
        if (library == null) {
            return null;
        }
        BytePointer name = CuptiFamilyLibrary.ft_family_api_name(library, domain, cbid);
        if (name == null || name.isNull()) {
            return null;
        }
        String resolved = name.getString(java.nio.charset.StandardCharsets.UTF_8); // as the replay reads the name table
        tap.kernelName(ApiNameHandle.of(domain, cbid), resolved);
        return resolved;
    }
}
