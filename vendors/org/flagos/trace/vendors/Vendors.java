package org.flagos.trace.vendors;

import java.util.List;
import java.util.Map;
import org.flagos.trace.pipeline.ActivityBufferDecoder;
import org.flagos.trace.pipeline.DeviceProperties;
import org.flagos.trace.pipeline.KernelNames;
import org.flagos.trace.pipeline.NameTable;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;

/**
 * The one table that knows every vendor: which decoder reads each vendor's buffers in a capture
 * file ({@code .fltrbuf} vendor ids). Adding a vendor is one file in {@code vendors/} and one line
 * here. Nothing outside {@code vendors/} names a vendor type.
 */
public final class Vendors {
    /** Builds a decoder for one capture. */
    @FunctionalInterface
    public interface DecoderFactory {
        ActivityBufferDecoder create(KernelNames kernelNames, NameTable names, List<DeviceProperties> devices);
    }

    private static final Map<Integer, String> DUMP_VENDOR_NAMES = Map.of(
            1, "CUPTI (NVIDIA)", 2, "MSPTI (Ascend)", 3, "MUPTI (MUSA)", 4, "ROCtracer (AMD/DCU)",
            5, "TOPSPTI (Enflame GCU)", 6, "MCPTI (MetaX)");

    private static final Map<Integer, DecoderFactory> DECODERS = Map.of(
            1, CuptiBufferDecoder::new);

    /** The decoder factory for a {@code .fltrbuf} vendor id, or null when none is built in. */
    public static DecoderFactory decoderFor(int dumpVendor) {
        return DECODERS.get(dumpVendor);
    }

    /** A human name for a {@code .fltrbuf} vendor id. */
    public static String dumpVendorName(int dumpVendor) {
        return DUMP_VENDOR_NAMES.getOrDefault(dumpVendor, "unknown vendor " + dumpVendor);
    }

    private Vendors() {
    }
}
