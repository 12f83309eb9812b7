package org.flagos.trace.vendors.roctracer;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.bytedeco.javacpp.BytePointer;
import org.flagos.trace.natives.RoctracerLibrary;
import org.flagos.trace.natives.RoctracerLibrary.Handle;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.KernelNames;

/**
 * Names a live session resolves through the library, each also saved to the session's tap so a
 * dump's name table covers every string its records point at:
 *
 * <ul>
 *   <li>a kernel-name handle is the shim's process-lifetime copy of a dispatch record's
 *       {@code kernel_name} (read during the buffer callback); any other value is never followed;</li>
 *   <li>an API-name handle ({@link ApiNameHandle}) is resolved by {@code roctracer_op_string}, once
 *       per (domain, op) for the tracer's life, and saved under that handle.</li>
 * </ul>
 */
final class RoctracerLiveNames implements KernelNames {
    private final Handle library;
    private final ConcurrentHashMap<Long, String> apiNames = new ConcurrentHashMap<>();
    private volatile BufferTap tap = BufferTap.NONE;

    RoctracerLiveNames(Handle library) {
        this.library = library;
    }

    /** Where names resolved from now on are saved: the current session's tap. */
    void tap(BufferTap tap) {
        this.tap = tap;
    }

    @Override
    public String lookup(long handle) {
        String name = ApiNameHandle.isApiName(handle) ? apiName(handle) : kernelName(handle);
        if (name != null) {
            tap.kernelName(handle, name);
        }
        return name;
    }

    private String kernelName(long handle) {
        BytePointer name = RoctracerLibrary.ft_roc_kernel_name(library, handle);
        return name == null || name.isNull() ? null : name.getString(StandardCharsets.UTF_8);
    }

    private String apiName(long handle) {
        String cached = apiNames.get(handle);
        if (cached != null) {
            return cached;
        }
        int domain = (int) (handle >>> 32) & 0xFFFF;
        int op = (int) handle;
        BytePointer name = RoctracerLibrary.ft_roc_op_string(library, domain, op, 0);
        if (name == null || name.isNull()) {
            return null;
        }
        String resolved = name.getString(StandardCharsets.UTF_8);
        apiNames.put(handle, resolved);
        return resolved;
    }
}
