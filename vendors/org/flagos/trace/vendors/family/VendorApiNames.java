package org.flagos.trace.vendors.family;

import java.util.concurrent.ConcurrentHashMap;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;
import org.flagos.trace.model.KernelNames;

/**
 * API names a CUPTI-shaped vendor resolves itself ({@code GetCallbackName}): there is no table in
 * flagtrace. Asked on the API-naming stage's thread, never inside a buffer callback, and cached per
 * (domain, callback id). Live, the source is the vendor library (and each name is saved into the
 * capture's name table under {@link ApiNameHandle#of}); in a replay the source is that table.
 */
public final class VendorApiNames implements ApiNames {
    /** Where names come from: the vendor's resolver, or a capture's name table. */
    @FunctionalInterface
    public interface Source {
        /** The vendor's name for callback {@code cbid} of callback {@code domain}, or null. */
        String name(int domain, int cbid);
    }

    private static final String UNNAMED = "";

    private final String genericRuntime;
    private final String genericDriver;
    private final int runtimeDomain;
    private final int driverDomain;
    private final Source source;
    private final ConcurrentHashMap<Long, String> cache = new ConcurrentHashMap<>();

    /**
     * @param runtimeDomain the callback domain of runtime API records (CUPTI's RUNTIME_API, 2)
     * @param driverDomain the callback domain of driver API records (CUPTI's DRIVER_API, 1)
     */
    public VendorApiNames(String genericRuntime, String genericDriver, int runtimeDomain, int driverDomain, Source source) {
        this.genericRuntime = genericRuntime;
        this.genericDriver = genericDriver;
        this.runtimeDomain = runtimeDomain;
        this.driverDomain = driverDomain;
        this.source = source;
    }

    /** Names from a capture's name table (a replay). */
    public static Source fromTable(KernelNames table) {
        return (domain, cbid) -> table.lookup(ApiNameHandle.of(domain, cbid));
    }

    @Override
    public String name(EventKind kind, int cbid) {
        int domain = kind == EventKind.DRIVER ? driverDomain : runtimeDomain;
        String name = cache.computeIfAbsent(ApiNameHandle.of(domain, cbid), h -> {
            String resolved = source.name(domain, cbid);
            return resolved == null || resolved.isEmpty() ? UNNAMED : resolved;
        });
        return name.isEmpty() ? null : name;
    }

    @Override
    public String genericLabel(EventKind kind) {
        return kind == EventKind.DRIVER ? genericDriver : genericRuntime;
    }

    @Override
    public String category(EventKind kind) {
        return kind == EventKind.DRIVER ? "privateuse1_driver" : "privateuse1_runtime";
    }
}
