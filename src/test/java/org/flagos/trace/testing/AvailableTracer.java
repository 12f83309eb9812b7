package org.flagos.trace.testing;

import java.util.List;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.UnavailableTracer;

/**
 * A tracer that is there ({@link #available()}) and otherwise does what {@link UnavailableTracer} does: nothing. The
 * session tests' fakes extend it and override what their case is about (a slow push, a flush).
 */
public abstract class AvailableTracer implements DeviceTracer {
    private final DeviceTracer none = new UnavailableTracer("none");

    /** The fake's class: a test's tracer names itself by what it is. */
    @Override
    public String name() {
        return getClass().getSimpleName();
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public ApiNames apiNames() {
        return none.apiNames();
    }

    @Override
    public void start(RecordSink sink, NameTable names, DecodeStats stats, BufferTap tap) {
        none.start(sink, names, stats, tap);
    }

    @Override
    public void stop() {
        none.stop();
    }

    @Override
    public boolean pushCorrelation(ExternalId id) {
        return none.pushCorrelation(id);
    }

    @Override
    public void popCorrelation() {
        none.popCorrelation();
    }

    @Override
    public int deviceCount() {
        return none.deviceCount();
    }

    @Override
    public List<DeviceProperties> deviceProperties() {
        return none.deviceProperties();
    }

    @Override
    public long droppedByVendor() {
        return none.droppedByVendor();
    }

    @Override
    public long timestampNs() {
        return none.timestampNs();
    }
}
