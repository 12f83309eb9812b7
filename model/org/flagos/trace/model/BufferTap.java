package org.flagos.trace.model;

import java.nio.ByteBuffer;

/**
 * Receives every raw vendor buffer a live tracer completes, before decoding, and the vendor's
 * kernel names as they are resolved: what a {@code .fltrbuf} capture needs to be replayed later.
 */
public interface BufferTap {
    /** One buffer's valid bytes, as the vendor handed them over. */
    void buffer(int dumpVendor, ByteBuffer validBytes);

    /** A kernel name handle and the name the vendor reported for it. */
    void kernelName(long handle, String vendorName);

    /** The mapping from the vendor's clock to epoch ns the session used (vendors with their own clock). */
    default void clock(DeviceClockMapping mapping) {
    }

    /** A tap that hands everything to {@code first}, then to {@code second}. */
    static BufferTap both(BufferTap first, BufferTap second) {
        if (first == NONE) {
            return second;
        }
        if (second == NONE) {
            return first;
        }
        return new BufferTap() {
            @Override
            public void buffer(int dumpVendor, ByteBuffer validBytes) {
                first.buffer(dumpVendor, validBytes);
                second.buffer(dumpVendor, validBytes);
            }

            @Override
            public void kernelName(long handle, String vendorName) {
                first.kernelName(handle, vendorName);
                second.kernelName(handle, vendorName);
            }

            @Override
            public void clock(DeviceClockMapping mapping) {
                first.clock(mapping);
                second.clock(mapping);
            }
        };
    }

    /** A tap that keeps nothing. */
    BufferTap NONE = new BufferTap() {
        @Override
        public void buffer(int dumpVendor, ByteBuffer validBytes) {
        }

        @Override
        public void kernelName(long handle, String vendorName) {
        }
    };
}
