package org.flagos.trace.vendors.ppu;

import static org.flagos.trace.vendors.cupti.CuptiActivityKind.CONCURRENT_KERNEL;
import static org.flagos.trace.vendors.cupti.CuptiActivityKind.DRIVER;
import static org.flagos.trace.vendors.cupti.CuptiActivityKind.EXTERNAL_CORRELATION;
import static org.flagos.trace.vendors.cupti.CuptiActivityKind.EXTERNAL_CUSTOM0;
import static org.flagos.trace.vendors.cupti.CuptiActivityKind.KERNEL;
import static org.flagos.trace.vendors.cupti.CuptiActivityKind.MEMCPY;
import static org.flagos.trace.vendors.cupti.CuptiActivityKind.MEMSET;
import static org.flagos.trace.vendors.cupti.CuptiActivityKind.RUNTIME;

import java.util.List;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.family.ClockedDecoder;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;

/**
 * PPU's CUPTI-compatible activity library ({@code libcupti.so} from the PPU SDK, entry points
 * prefixed {@code cupti}; {@value org.flagos.trace.vendors.activity.VendorLibrary#LIBRARY_PROPERTY} or
 * {@value org.flagos.trace.vendors.activity.VendorLibrary#LIBRARY_ENV} points it elsewhere). Its records are CUPTI's and are
 * decoded by CUPTI's decoder; its buffers are saved as CUPTI buffers ({@code .fltrbuf} vendor 1)
 * with the clock mapping beside them, since PPU's device clock differs from the epoch in both
 * origin and rate ({@code VendorClock}'s affine mapping, resampled per buffer).
 *
 * <p>KERNEL and CONCURRENT_KERNEL exclude each other on PPU: the tracer enables CONCURRENT_KERNEL,
 * and only if PPU refuses it, KERNEL; never both.
 */
public final class PpuTracer extends CuptiFamilyTracer {
    /** PPU's profile: CUPTI's kinds and external-correlation kind; its own device clock. */
    public static final Profile PROFILE = new Profile("ppu", "cupti", "libcupti.so", 1,
            new int[] {CONCURRENT_KERNEL, MEMCPY, MEMSET, RUNTIME, DRIVER, EXTERNAL_CORRELATION}, EXTERNAL_CUSTOM0, -1, false);

    private volatile int kernelKind = -1;

    /** PPU's libcupti.so (or the library the property or environment names). */
    public PpuTracer() {
        this(null);
    }

    /** The library at {@code library} (a path or a name the dynamic linker searches for). */
    public PpuTracer(String library) {
        super(PROFILE, library);
    }

    @Override
    public ApiNames apiNames() {
        return CuptiBufferDecoder.cudaApiNames();
    }

    @Override
    protected ClockedDecoder decoder(NameTable names, BufferTap tap) {
        return new CuptiBufferDecoder(CuptiBufferDecoder.liveKernelNames(tap), names, List.of());
    }

    /** CONCURRENT_KERNEL, or KERNEL when PPU refuses it; never both (they exclude each other on PPU). */
    @Override
    protected int enableKind(int kind) {
        if (kind != CONCURRENT_KERNEL) {
            return super.enableKind(kind);
        }
        kernelKind = -1;
        int status = super.enableKind(CONCURRENT_KERNEL);
        if (status == 0) {
            kernelKind = CONCURRENT_KERNEL;
            return 0;
        }
        Diagnostics.warn(name(), "cuptiActivityEnable(CONCURRENT_KERNEL) returned " + status + ": using KERNEL");
        int fallback = super.enableKind(KERNEL);
        if (fallback == 0) {
            kernelKind = KERNEL;
        }
        return fallback;
    }

    /** Disables the kernel kind {@link #enableKind} actually enabled in CONCURRENT_KERNEL's place. */
    @Override
    protected int disableKind(int kind) {
        return super.disableKind(kind == CONCURRENT_KERNEL && kernelKind > 0 ? kernelKind : kind);
    }

    /** The kernel kind the last session enabled (CONCURRENT_KERNEL, or KERNEL when PPU refused it); -1 for none. */
    public int kernelKind() {
        return kernelKind;
    }
}
