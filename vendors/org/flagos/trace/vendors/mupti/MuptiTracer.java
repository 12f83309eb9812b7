package org.flagos.trace.vendors.mupti;

import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.family.CuptiShapedTracer;

/**
 * Moore Threads MUSA's MUPTI ({@code libmupti.so}): kernels, copies, memsets and runtime calls,
 * with op ids pushed as CUSTOM0 external correlations (MUPTI writes the external-correlation
 * records itself), in MUSA's device clock mapped to epoch ns. API names come from {@code
 * muptiGetCallbackName}, asked on the naming stage's thread and saved into a capture's name table.
 */
public final class MuptiTracer extends CuptiShapedTracer {
    /** The {@code .fltrbuf} vendor id of MUPTI buffers. */
    public static final int DUMP_VENDOR = 3;
    /** MUPTI's profile: CUPTI's kind numbers (assumed), CUSTOM0 pushes, no API-enter binding, its own clock. */
    public static final Profile PROFILE = new Profile("mupti", "mupti", "libmupti.so", DUMP_VENDOR,
            new int[] {CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY, CuptiActivityKind.MEMSET,
                CuptiActivityKind.RUNTIME, CuptiActivityKind.EXTERNAL_CORRELATION},
            CuptiActivityKind.EXTERNAL_CUSTOM0, -1, false);

    /** The library named by the override property or variable, else {@code libmupti.so}. */
    public MuptiTracer() {
        this(null);
    }

    /** The library at {@code library} (null: the default lookup). */
    public MuptiTracer(String library) {
        super(PROFILE, MuptiDecoder.VENDOR, library);
    }
}
