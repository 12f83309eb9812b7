package org.flagos.trace.model;

import java.util.List;

/**
 * The tracer of a platform without a usable activity API: it publishes nothing, says why in one
 * line, and lets CPU-side profiling go on.
 */
public final class UnavailableTracer implements DeviceTracer {
    private final String reason;

    public UnavailableTracer(String reason) {
        this.reason = reason;
    }

    @Override
    public String name() {
        return "unavailable";
    }

    @Override
    public boolean available() {
        return false;
    }

    @Override
    public String unavailableReason() {
        return reason;
    }

    @Override
    public ApiNames apiNames() {
        return NO_API_NAMES;
    }

    @Override
    public void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
    }

    @Override
    public void stop() {
    }

    @Override
    public boolean pushCorrelation(ExternalId id) {
        return false;
    }

    @Override
    public void popCorrelation() {
    }

    @Override
    public int deviceCount() {
        return 0;
    }

    @Override
    public List<DeviceProperties> deviceProperties() {
        return List.of();
    }

    @Override
    public long droppedByVendor() {
        return 0;
    }

    @Override
    public long timestampNs() {
        return RealtimeClock.nowNs();
    }

    private static final ApiNames NO_API_NAMES = new ApiNames() {
        @Override
        public String name(EventKind kind, int cbid) {
            return null;
        }

        @Override
        public String genericLabel(EventKind kind) {
            return kind == EventKind.DRIVER ? "driver" : "runtime";
        }
    };
}
