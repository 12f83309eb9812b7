package org.flagos.trace.capture;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.flagos.trace.model.RecordNaming;

/**
 * The texts of a replay's marks (their messages and domains) behind handles, as a vendor's marker records point to
 * theirs: the name stage resolves a mark's handles through {@link #markerName}. One handle per distinct text, from 1
 * (0 is no text). Handles are given on the publishing thread; the name stage reads them on its own.
 */
final class HostMarkNames implements RecordNaming {
    private final Map<String, Long> handles = new HashMap<>();
    private final Map<Long, String> texts = new ConcurrentHashMap<>();

    /** The handle of {@code text}; 0 for null. Publisher thread only. */
    long handle(String text) {
        if (text == null) {
            return 0;
        }
        Long h = handles.get(text);
        if (h == null) {
            h = (long) handles.size() + 1;
            texts.put(h, text); // before the slot that carries the handle is published
            handles.put(text, h);
        }
        return h;
    }

    @Override
    public String kernelName(long handle) {
        return null;
    }

    @Override
    public String markerName(long handle) {
        return texts.get(handle);
    }
}
