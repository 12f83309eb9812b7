package org.flagos.trace.vendors.mspti;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.flagos.trace.model.ApiNameHandle;
import org.flagos.trace.model.BufferTap;
import org.flagos.trace.model.Diagnostics;
import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.RecordLimits;

/**
 * Physical Ascend device ids (what MSPTI records carry) to the logical ordinals the process sees,
 * through {@code ASCEND_RT_VISIBLE_DEVICES}: {@code "4,2"} makes physical 4 logical 0 and physical 2
 * logical 1. Unset, empty or malformed: ids stay as recorded. An id the list does not name stays as
 * recorded too.
 *
 * <p>A replay runs where that variable may differ, so a live session saves the mapping in the
 * capture's name table, one entry per listed device, under {@link #handle(int)} (a tagged handle in
 * a domain of its own, no pointer collides with it); the replay's decoder reads it back from there.
 */
final class AscendDevices {
    /** The variable CANN reads. */
    static final String VISIBLE_DEVICES = "ASCEND_RT_VISIBLE_DEVICES";
    /** The name-table domain of the saved mapping ({@link ApiNameHandle#of}). */
    private static final int DOMAIN = 0xA5CE;

    private final int[] logicalByPhysical;

    private AscendDevices(int[] logicalByPhysical) {
        this.logicalByPhysical = logicalByPhysical;
    }

    /** The mapping {@code value} of {@value #VISIBLE_DEVICES} describes (null or blank: identity). */
    static AscendDevices parse(String value) {
        int[] map = new int[0];
        if (value == null || value.isBlank()) {
            return new AscendDevices(map);
        }
        String[] parts = value.split(",");
        for (int logical = 0; logical < parts.length; logical++) {
            int physical;
            try {
                physical = Integer.parseInt(parts[logical].trim());
            } catch (NumberFormatException e) {
                physical = -1;
            }
            if (physical < 0 || physical >= RecordLimits.MAX_DEVICES) {
                Diagnostics.warn("mspti", VISIBLE_DEVICES + "=" + value + " is not a list of device ids;"
                        + " device ids are kept as MSPTI reports them");
                return new AscendDevices(new int[0]);
            }
            if (physical >= map.length) {
                int old = map.length;
                map = Arrays.copyOf(map, physical + 1);
                Arrays.fill(map, old, map.length, -1);
            }
            if (map[physical] < 0) {
                map[physical] = logical;
            }
        }
        return new AscendDevices(map);
    }

    /** The mapping a capture's name table saved ({@link #save}); identity where it saved nothing. */
    static AscendDevices saved(KernelNames names) {
        int[] map = new int[0];
        for (int physical = 0; physical < RecordLimits.MAX_DEVICES; physical++) {
            String logical = names.lookup(handle(physical));
            if (logical == null) {
                continue;
            }
            try {
                int value = Integer.parseInt(logical.trim());
                if (physical >= map.length) {
                    int old = map.length;
                    map = Arrays.copyOf(map, physical + 1);
                    Arrays.fill(map, old, map.length, -1);
                }
                map[physical] = value;
            } catch (NumberFormatException e) {
                Diagnostics.warn("mspti", "device ordinal entry for physical device " + physical + " is not a number: " + logical);
            }
        }
        return new AscendDevices(map);
    }

    /** The name-table handle under which the ordinal of {@code physical} is saved. */
    static long handle(int physical) {
        return ApiNameHandle.of(DOMAIN, physical);
    }

    /** Saves the mapping into a capture's name table. */
    void save(BufferTap tap) {
        entries().forEach(tap::kernelName);
    }

    /** The mapping as a capture's name table holds it: {@link #handle} of each listed physical id, its logical ordinal. */
    Map<Long, String> entries() {
        Map<Long, String> entries = new LinkedHashMap<>();
        for (int physical = 0; physical < logicalByPhysical.length; physical++) {
            if (logicalByPhysical[physical] >= 0) {
                entries.put(handle(physical), Integer.toString(logicalByPhysical[physical]));
            }
        }
        return entries;
    }

    /** The logical ordinal of {@code physical}, or {@code physical} when the mapping does not name it. */
    int logical(int physical) {
        if (physical >= 0 && physical < logicalByPhysical.length && logicalByPhysical[physical] >= 0) {
            return logicalByPhysical[physical];
        }
        return physical;
    }
}
