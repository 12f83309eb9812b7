package org.flagos.trace.vendors;

import java.util.List;
import java.util.Map;
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
import org.flagos.trace.vendors.cupti.workload.ExchangeWorkload;
import org.flagos.trace.vendors.cupti.workload.KindsWorkload;
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
 * The one table that knows every vendor: a list of {@link VendorPlugin}s, each saying which
 * accelerator's process gets its tracer and which decoder reads its buffers in a capture file
 * ({@code .fltrbuf} vendor ids). Adding a vendor is its files in {@code vendors/} and one line
 * here. Nothing outside {@code vendors/} names a vendor type. Every accelerator but NONE is served
 * by exactly one line (checked when the table loads); NONE gets the unavailable tracer explicitly.
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

    /**
     * Every vendor, one line each. The CUPTI line reaches its tracer through a method of this class
     * ({@link #cupti()}): its bindings are optional.
     */
    private static final List<VendorPlugin> PLUGINS = List.of(
            new VendorPlugin("cupti", Accelerator.CUDA, 1, "CUPTI (NVIDIA)", Vendors::cupti,
                    CuptiBufferDecoder::forCapture, false),
            new VendorPlugin("mspti", Accelerator.ASCEND, MsptiTracer.DUMP_VENDOR, "MSPTI (Ascend)", MsptiTracer::new,
                    (kernelNames, names, devices, clock) -> new MsptiBufferDecoder(kernelNames, names), false),
            new VendorPlugin("mupti", Accelerator.MUSA, MuptiTracer.DUMP_VENDOR, "MUPTI (MUSA)", () -> new MuptiTracer(),
                    (kernelNames, names, devices, clock) -> MuptiDecoder.replay(kernelNames, names, clock), true),
            new VendorPlugin("roctracer", Accelerator.DCU, RoctracerTracer.DUMP_VENDOR, "ROCtracer (AMD/DCU)",
                    () -> new RoctracerTracer(),
                    (kernelNames, names, devices, clock) -> new RoctracerBufferDecoder(kernelNames, names, clock), true),
            new VendorPlugin("topspti", Accelerator.GCU, TopsptiTracer.DUMP_VENDOR, "TOPSPTI (Enflame GCU)",
                    () -> new TopsptiTracer(),
                    (kernelNames, names, devices, clock) -> TopsptiDecoder.replay(kernelNames, names, clock), true),
            new VendorPlugin("mcpti", Accelerator.METAX, 6, "MCPTI (MetaX)", () -> new McptiTracer(),
                    McptiBufferDecoder::forCapture, false),
            new VendorPlugin("ppu", Accelerator.PPU, VendorPlugin.SAVED_AS_ANOTHER, "", () -> new PpuTracer(), null, true));

    /** The tracer of a process without an accelerator: the one accelerator no vendor serves. */
    private static final Supplier<DeviceTracer> NO_ACCELERATOR =
            () -> new UnavailableTracer("no accelerator selected (FLAGOS_ACCELERATOR unset and no CUDA bindings)");

    static {
        for (Accelerator a : Accelerator.values()) {
            long serving = PLUGINS.stream().filter(p -> p.accelerator() == a).count();
            if (serving != (a == Accelerator.NONE ? 0 : 1)) {
                throw new ExceptionInInitializerError("accelerator " + a + " is served by " + serving + " vendors");
            }
        }
    }

    /** Every vendor, in the table's order. */
    public static List<VendorPlugin> plugins() {
        return PLUGINS;
    }

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
        for (VendorPlugin plugin : PLUGINS) {
            if (plugin.accelerator() == accelerator) {
                return plugin.tracer().get();
            }
        }
        return NO_ACCELERATOR.get();
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
            "parity", () -> new ParityWorkload(),
            "kinds", () -> new KindsWorkload(),
            "exchange", () -> new ExchangeWorkload());

    /** The named workload for {@code flagtrace record}, or null. */
    public static Workload workload(String name) {
        Supplier<Workload> factory = WORKLOADS.get(name);
        return factory == null ? null : factory.get();
    }

    /** Names of the built-in workloads, in name order (Map.of's order changes from run to run). */
    public static java.util.Set<String> workloads() {
        return new java.util.TreeSet<>(WORKLOADS.keySet());
    }

    /** The decoder factory for a {@code .fltrbuf} vendor id, or null when none is built in. */
    public static DecoderFactory decoderFor(int dumpVendor) {
        VendorPlugin plugin = savedAs(dumpVendor);
        return plugin == null ? null : plugin.replay();
    }

    /**
     * The name-table entries a vendor derives from a traced process's environment, for a capture made
     * outside this process ({@code flagtrace run}'s injected or preloaded library): MSPTI's records
     * carry physical device ids, mapped to the process's ordinals by its {@code ASCEND_RT_VISIBLE_DEVICES},
     * as a live session saves them beside its capture. Empty for the other vendors.
     */
    public static Map<Long, String> processNameEntries(int dumpVendor, java.util.function.UnaryOperator<String> environment) {
        return dumpVendor == MsptiTracer.DUMP_VENDOR
                ? MsptiTracer.deviceNameEntries(environment.apply("ASCEND_RT_VISIBLE_DEVICES")) : Map.of();
    }

    /** A human name for a {@code .fltrbuf} vendor id. */
    public static String dumpVendorName(int dumpVendor) {
        VendorPlugin plugin = savedAs(dumpVendor);
        return plugin == null ? "unknown vendor " + dumpVendor : plugin.dumpName();
    }

    private static VendorPlugin savedAs(int dumpVendor) {
        for (VendorPlugin plugin : PLUGINS) {
            if (plugin.dumpVendor() == dumpVendor && dumpVendor != VendorPlugin.SAVED_AS_ANOTHER) {
                return plugin;
            }
        }
        return null;
    }

    private Vendors() {
    }
}
