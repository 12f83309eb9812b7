package org.flagos.trace.vendors;

import java.util.List;
import java.util.Map;
import java.util.EnumMap;
import java.util.function.Supplier;
import org.flagos.trace.model.Accelerator;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.UnavailableTracer;
import org.flagos.trace.model.Workload;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.DeviceProperties;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.cupti.CuptiTracer;
import org.flagos.trace.vendors.cupti.workload.ParityWorkload;
import org.flagos.trace.vendors.mupti.MuptiDecoder;
import org.flagos.trace.vendors.mupti.MuptiTracer;
import org.flagos.trace.vendors.topspti.TopsptiDecoder;
import org.flagos.trace.vendors.topspti.TopsptiTracer;
import org.flagos.trace.vendors.roctracer.RoctracerBufferDecoder;
import org.flagos.trace.vendors.roctracer.RoctracerTracer;
import org.flagos.trace.vendors.mspti.MsptiBufferDecoder;
import org.flagos.trace.vendors.mspti.MsptiTracer;
import org.flagos.trace.vendors.mcpti.McptiBufferDecoder;
import org.flagos.trace.vendors.mcpti.McptiTracer;
import org.flagos.trace.vendors.ppu.PpuTracer;

/**
 * The one table that knows every vendor: which tracer each accelerator gets, and which decoder
 * reads each vendor's buffers in a capture file ({@code .fltrbuf} vendor ids). Adding a vendor is
 * one file in {@code vendors/} and one line here. Nothing outside {@code vendors/} names a vendor
 * type. Every accelerator is given a tracer deliberately: an accelerator without one gets the
 * unavailable tracer by an explicit line, never by falling through.
 */
public final class Vendors {
    /** Builds a decoder for one capture. */
    @FunctionalInterface
    public interface DecoderFactory {
        /** A decoder whose records' times go through {@code clock} (the identity for epoch-ns vendors). */
        ActivityBufferDecoder create(KernelNames kernelNames, NameTable names, List<DeviceProperties> devices,
                                     DeviceClockMapping clock);

        /** A decoder for a capture whose records are in epoch ns. */
        default ActivityBufferDecoder create(KernelNames kernelNames, NameTable names, List<DeviceProperties> devices) {
            return create(kernelNames, names, devices, DeviceClockMapping.IDENTITY);
        }
    }

    private static final Map<Integer, String> DUMP_VENDOR_NAMES = Map.of(
            1, "CUPTI (NVIDIA)", 2, "MSPTI (Ascend)", 3, "MUPTI (MUSA)", 4, "ROCtracer (AMD/DCU)",
            5, "TOPSPTI (Enflame GCU)", 6, "MCPTI (MetaX)");

    private static final Map<Integer, DecoderFactory> DECODERS = Map.of(
            1, CuptiBufferDecoder::forCapture,
            MuptiTracer.DUMP_VENDOR, (kernelNames, names, devices, clock) -> MuptiDecoder.replay(kernelNames, names, clock),
            TopsptiTracer.DUMP_VENDOR, (kernelNames, names, devices, clock) -> TopsptiDecoder.replay(kernelNames, names, clock),
            4, (kernelNames, names, devices, clock) -> new RoctracerBufferDecoder(kernelNames, names, clock),
            MsptiTracer.DUMP_VENDOR, (kernelNames, names, devices, clock) -> new MsptiBufferDecoder(kernelNames, names),
            6, McptiBufferDecoder::forCapture);

    private static final Map<Accelerator, Supplier<DeviceTracer>> TRACERS = new EnumMap<>(Map.of(
            Accelerator.CUDA, Vendors::cupti,
            Accelerator.METAX, () -> new McptiTracer(),
            Accelerator.ASCEND, MsptiTracer::new,
            Accelerator.MUSA, () -> new MuptiTracer(),
            Accelerator.DCU, () -> new RoctracerTracer(),
            Accelerator.GCU, () -> new TopsptiTracer(),
            Accelerator.PPU, () -> new PpuTracer(),
            Accelerator.NONE, () -> new UnavailableTracer("no accelerator selected (FLAGOS_ACCELERATOR unset and no CUDA bindings)")));

    /**
     * This process's accelerator: {@code FLAGOS_ACCELERATOR} when set, else CUDA when the CUDA
     * bindings are on the class path (probed by name, without loading them), else NONE.
     */
    public static Accelerator detect() {
        Accelerator chosen = Accelerator.fromEnvironment();
        if (chosen != null) {
            return chosen;
        }
        try {
            Class.forName("org.bytedeco.cuda.global.cupti", false, Vendors.class.getClassLoader());
            return Accelerator.CUDA;
        } catch (ClassNotFoundException e) {
            return Accelerator.NONE;
        }
    }

    /** The tracer for {@code accelerator}: the one line per accelerator that picks it. */
    public static DeviceTracer tracerFor(Accelerator accelerator) {
        return TRACERS.get(accelerator).get();
    }

    /**
     * CUPTI through JavaCPP. The bindings ({@code org.bytedeco:cuda}) are an optional dependency:
     * a program without them must still profile its CPU side, so the tracer's class is reached only
     * here, from a lambda (a method reference would resolve it when this table is built), and a
     * missing class becomes the unavailable tracer with one line saying what to add.
     */
    private static DeviceTracer cupti() {
        try {
            return CuptiTracer.instance();
        } catch (LinkageError e) {
            return new UnavailableTracer("the CUDA bindings are not on the class path (add org.bytedeco:cuda and its"
                    + " linux-x86_64 jar for NVIDIA capture): " + e);
        }
    }

    private static final Map<String, Supplier<Workload>> WORKLOADS = Map.of(
            "parity", () -> new ParityWorkload());

    /** The named workload for {@code flagtrace record}, or null. */
    public static Workload workload(String name) {
        Supplier<Workload> factory = WORKLOADS.get(name);
        return factory == null ? null : factory.get();
    }

    /** Names of the built-in workloads. */
    public static java.util.Set<String> workloads() {
        return WORKLOADS.keySet();
    }

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
