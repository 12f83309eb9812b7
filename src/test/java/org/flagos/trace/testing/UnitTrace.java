package org.flagos.trace.testing;

import java.util.List;
import java.util.Map;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.stages.CaptureWindowFilter;
import org.flagos.trace.stages.TraceHeader;

/**
 * The parts of the small hand-fed trace that the pipeline's and the encoders' own tests build it from
 * (CapturePipelineTest, ChromeJsonSinkTest, OpArgsGoldenTest): one clock base, an API name table that
 * names every runtime call {@code cudaLaunchKernel}, the header of process {@code proc} (pid 4242), and
 * the capture window the encoder tests put their records in.
 */
public final class UnitTrace {
    /** The capture's clock base, ns. */
    public static final long BASE = 1_795_982_694_000_000_000L;

    /** Every API call is {@code cudaLaunchKernel}; the generic label, {@code cudaRuntime}. */
    public static final ApiNames LAUNCH_NAMES = new ApiNames() {
        @Override
        public String name(EventKind kind, int cbid) {
            return "cudaLaunchKernel";
        }

        @Override
        public String genericLabel(EventKind kind) {
            return "cudaRuntime";
        }
    };

    private UnitTrace() {
    }

    /** The header of device-less process {@code proc} (pid 4242) at {@link #BASE}, with {@code properties}. */
    public static TraceHeader header(Map<String, String> properties) {
        return new TraceHeader("unit", List.of(), BASE, properties, "proc", 4242);
    }

    /** The window from 1 us to 1 ms past {@link #BASE}. */
    public static CaptureWindowFilter window() {
        return new CaptureWindowFilter(BASE + 1_000, BASE + 1_000_000);
    }
}
