package org.flagos.trace.capture;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.flagos.trace.model.KernelNames;

/**
 * The kernel names of an {@link ArrivingReplay} as they arrived, each handle's answer kept as first given, so that the
 * table written at the close can be held to every answer.
 */
final class ArrivingNames implements KernelNames {
    /** The answer "no name" (a handle answered null), told apart from one not looked up. */
    private static final String NONE = new String("(none)");
    private final Map<Long, String> received = new ConcurrentHashMap<>();
    private volatile Map<Long, String> fromProcess = Map.of();
    private final Map<Long, String> looked = new ConcurrentHashMap<>();

    /** The table's entries a vendor derives from the process, under those the stream names. */
    void fromProcess(Map<Long, String> entries) {
        fromProcess = Map.copyOf(entries);
    }

    /** A name of the table, as the table holds it (its first naming of a handle stands). */
    void received(long handle, String name) {
        received.putIfAbsent(handle, name);
    }

    @Override
    public String lookup(long handle) {
        String known = looked.get(handle);
        if (known == null) {
            String name = received.get(handle);
            String answer = name != null ? name : fromProcess.getOrDefault(handle, NONE);
            known = looked.computeIfAbsent(handle, h -> answer);
        }
        return known == NONE ? null : known;
    }

    /** Whether {@code written} names every handle looked up as it was answered. */
    boolean answeredAs(KernelNames written) {
        for (Map.Entry<Long, String> e : looked.entrySet()) {
            if (!Objects.equals(e.getValue() == NONE ? null : e.getValue(), written.lookup(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
