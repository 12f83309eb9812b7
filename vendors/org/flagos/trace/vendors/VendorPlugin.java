package org.flagos.trace.vendors;

import java.util.function.Supplier;
import org.flagos.trace.model.Accelerator;
import org.flagos.trace.model.DeviceTracer;

/**
 * One vendor as the rest of flagtrace reaches it: a line of {@link Vendors}'s list. What a vendor
 * differs in beyond these (its API names and their category, extra stages such as MSPTI's
 * correlation remap, a device clock of its own) travels with the tracer and the replay decoder it
 * builds ({@code DeviceTracer.apiNames()/stages()}, {@code ActivityBufferDecoder.apiNames()/stages()},
 * and the saved clock mapping handed to {@link Vendors.DecoderFactory#create}).
 *
 * @param name        short vendor name, as its tracer's {@code name()}
 * @param accelerator the accelerator whose process gets this vendor's tracer
 * @param dumpVendor  the {@code .fltrbuf} vendor id its buffers are saved under, or
 *                    {@link #SAVED_AS_ANOTHER} when they are saved as another vendor's (PPU's are
 *                    CUPTI's)
 * @param dumpName    a human name for {@code dumpVendor}; empty without one
 * @param tracer      builds the live tracer
 * @param replay      builds the decoder of a saved capture; null without one
 * @param ownClock    true when its records are in a device clock of its own, mapped to epoch ns
 *                    live and through the mapping saved beside a capture ({@code NAME.clock.json})
 */
public record VendorPlugin(String name, Accelerator accelerator, int dumpVendor, String dumpName,
                           Supplier<DeviceTracer> tracer, Vendors.DecoderFactory replay, boolean ownClock) {
    /** The {@link #dumpVendor} of a vendor whose buffers are saved as another vendor's. */
    public static final int SAVED_AS_ANOTHER = -1;
}
