package org.flagos.trace.vendors.mcpti;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.CuptiFamilyLibrary;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.vendors.cupti.CuptiActivityKind;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.family.ClockedDecoder;
import org.flagos.trace.vendors.family.CuptiFamilyTracer;

/**
 * MetaX's MCPTI ({@code libmcpti.so}, MACA's CUDA-compatible activity API, prefix {@code mcpti}):
 * CUDA's activity kinds, op ids pushed as CUSTOM0 external correlations, records scanned by {@link
 * McptiBufferDecoder}. MCPTI's timestamps are taken to be UNIX-epoch ns like CUPTI's (the seed's
 * tracer served CUPTI and MCPTI with one code path, no clock conversion, and its capture-window
 * assertion passed on a C550), so the clock mapping is the identity; records outside the session's
 * plausible span are still dropped and counted.
 *
 * <h2>API names: never resolved while a buffer callback may run</h2>
 * MCPTI's runtime callback ids are its own namespace, named by {@code mcptiActivityGetApiName};
 * calling that resolver from a buffer-completion callback can deadlock (the seed, section 6.2). In
 * a streaming pipeline records are named while buffers keep completing, so the names must be known
 * before the first record arrives and must never be asked for lazily:
 * <ol>
 *   <li>at start, before any kind is armed (so the vendor has no records and calls no completion
 *       callback; on later sessions the previous stop's final flush has returned every buffer,
 *       which is checked), the tracer enumerates the runtime namespace from 0 up to
 *       {@value #NAMESPACE_GAP} ids past the last one MCPTI names (at most {@value #NAMESPACE_LIMIT})
 *       and keeps the names in a map;</li>
 *   <li>while the session runs, {@link McptiApiNames} reads only that map (the pipeline's naming
 *       stage never calls the vendor), and the decoder notes each cbid it sees that the map lacks;</li>
 *   <li>at stop, after the final forced flush, once every buffer callback has returned (the
 *       session's callback gate is shut and drained, and the shim has every buffer it handed out
 *       back), the cbids seen but not named are resolved and put in the map. Records the naming stage
 *       reached before then keep the generic label in the live trace (the stage runs beside the
 *       final flush, so it may reach the last ones after and name them); the names go to the
 *       capture's name table, so a replay names them all, and each is reported ({@link
 *       #namedLate()}).</li>
 * </ol>
 * Every name is saved into the session's tap under {@link ApiNameHandle#of}(activity kind, cbid),
 * so a replay names the calls without the library.
 */
public final class McptiTracer extends CuptiFamilyTracer {
    /** MCPTI's profile: CUDA's kinds (KERNEL replaced by CONCURRENT_KERNEL, as the seed armed it). */
    public static final Profile PROFILE = new Profile("mcpti", "mcpti", "libmcpti.so", McptiKinds.DUMP_VENDOR,
            new int[] {CuptiActivityKind.CONCURRENT_KERNEL, CuptiActivityKind.MEMCPY, CuptiActivityKind.MEMSET,
                    CuptiActivityKind.RUNTIME, CuptiActivityKind.EXTERNAL_CORRELATION},
            CuptiActivityKind.EXTERNAL_CUSTOM0, -1, true);
    /** How many ids past the last named one the namespace enumeration looks before it stops. */
    static final int NAMESPACE_GAP = 1024;
    /** The most ids the enumeration tries. */
    static final int NAMESPACE_LIMIT = 1 << 16;
    private static final long QUIESCENCE_WAIT_MS = 2_000;

    private final Map<Long, String> names = new ConcurrentHashMap<>();
    private final McptiApiNames apiNames = new McptiApiNames(names::get);
    private boolean namespaceResolved;
    private volatile Scan lastScan = new Scan(0, 0, 0, List.of());

    /**
     * What the last session's scan counted, and the API names resolved only after its final flush.
     *
     * @param timingUnavailable records skipped for start == end == 0
     * @param resyncs runs of malformed bytes resynchronized over
     * @param resyncedBytes bytes skipped while resynchronizing
     * @param namedLate names resolved after the final flush (the live trace kept the generic label)
     */
    public record Scan(long timingUnavailable, long resyncs, long resyncedBytes, List<String> namedLate) {
    }

    /** MCPTI at {@code libmcpti.so} (or the library the property or environment names). */
    public McptiTracer() {
        this(null);
    }

    /** MCPTI at {@code library} (a path or a name the dynamic linker searches for). */
    public McptiTracer(String library) {
        super(PROFILE, library);
    }

    @Override
    public ApiNames apiNames() {
        return apiNames;
    }

    @Override
    protected ClockedDecoder decoder(NameTable table, BufferTap tap) {
        return new McptiBufferDecoder(CuptiBufferDecoder.liveKernelNames(tap), table, List.of(), apiNames);
    }

    @Override
    protected void beforeArming(BufferTap tap) {
        if (!quiescent("start")) {
            return;
        }
        if (!namespaceResolved) {
            resolveNamespace();
            namespaceResolved = true;
        }
        names.forEach(tap::kernelName);
    }

    private void resolveNamespace() {
        int lastNamed = 0;
        for (int id = 0; id < NAMESPACE_LIMIT && id - lastNamed <= NAMESPACE_GAP; id++) {
            String name = resolve(CuptiActivityKind.RUNTIME, id);
            if (name != null) {
                names.put(ApiNameHandle.of(CuptiActivityKind.RUNTIME, id), name);
                lastNamed = id;
            }
        }
        Diagnostics.trace(name(), names.size() + " runtime API names resolved before arming (ids up to " + lastNamed + ")");
    }

    @Override
    protected void afterFinalFlush(ClockedDecoder decoder, BufferTap tap) {
        McptiBufferDecoder scan = (McptiBufferDecoder) decoder;
        List<String> late = new java.util.ArrayList<>();
        if (quiescent("stop")) {
            for (long handle : scan.unnamedSeen()) {
                int kind = (int) (handle >>> 32 & 0xFFFF);
                int id = (int) handle;
                String name = names.get(handle);
                if (name == null) {
                    name = resolve(kind, id);
                }
                if (name != null) {
                    names.put(handle, name);
                    tap.kernelName(handle, name);
                    late.add(id + "=" + name);
                }
            }
        }
        if (!late.isEmpty()) {
            Diagnostics.warn(name(), late.size() + " MCPTI API ids lay outside the namespace resolved at start and kept the"
                    + " generic label in the live trace (named in the capture's name table): " + late);
        }
        lastScan = new Scan(scan.timingUnavailable(), scan.resyncs(), scan.resyncedBytes(), List.copyOf(late));
        if (scan.resyncs() > 0 || scan.timingUnavailable() > 0) {
            Diagnostics.trace(name(), "scan: " + scan.timingUnavailable() + " records without timing, "
                    + scan.resyncs() + " resynchronizations over " + scan.resyncedBytes() + " bytes");
        }
    }

    /** What the last stopped session's scan counted. */
    public Scan lastScan() {
        return lastScan;
    }

    /** Names resolved after the last session's final flush. */
    public List<String> namedLate() {
        return lastScan.namedLate();
    }

    private String resolve(int kind, int id) {
        BytePointer name = CuptiFamilyLibrary.ft_family_activity_api_name(handle(), kind, id);
        return name == null || name.isNull() ? null : name.getString(StandardCharsets.UTF_8);
    }

    /**
     * True once the shim has every buffer it handed to MCPTI back: then no completion callback is
     * running or can start before kinds are armed again. Waits a little for a callback finishing.
     */
    private boolean quiescent(String when) {
        long deadline = System.currentTimeMillis() + QUIESCENCE_WAIT_MS;
        while (CuptiFamilyLibrary.ft_family_buffers_in_flight(handle()) > 0) {
            if (System.currentTimeMillis() > deadline) {
                Diagnostics.warn(name(), "MCPTI still holds activity buffers at " + when + ": API names are not resolved"
                        + " now (the resolver can deadlock inside a buffer callback); unresolved calls keep the generic label");
                return false;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
