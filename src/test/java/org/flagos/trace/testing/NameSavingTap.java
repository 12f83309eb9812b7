package org.flagos.trace.testing;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.flagos.trace.model.BufferTap;

/** A tap that drops buffers and keeps every name saved to it, by handle, in the order saved: the live name readers' tests. */
public final class NameSavingTap implements BufferTap {
    /** The names saved so far. */
    public final Map<Long, String> saved = new LinkedHashMap<>();

    @Override
    public void buffer(int dumpVendor, ByteBuffer validBytes) {
    }

    @Override
    public void kernelName(long handle, String vendorName) {
        saved.put(handle, vendorName);
    }
}
