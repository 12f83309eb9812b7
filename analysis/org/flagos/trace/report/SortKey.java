package org.flagos.trace.report;

import java.util.Comparator;

/** The keys torch's {@code key_averages().table(sort_by=...)} accepts that the summary can sort by. */
public enum SortKey {
    SELF_CPU_TIME_TOTAL("self_cpu_time_total", Comparator.comparingDouble(KeyAveragesRow::selfCpuUs)),
    CPU_TIME_TOTAL("cpu_time_total", Comparator.comparingDouble(KeyAveragesRow::cpuTotalUs)),
    CPU_TIME("cpu_time", Comparator.comparingDouble(KeyAveragesRow::cpuAvgUs)),
    SELF_DEVICE_TIME_TOTAL("self_device_time_total", Comparator.comparingDouble(KeyAveragesRow::selfDeviceUs)),
    DEVICE_TIME_TOTAL("device_time_total", Comparator.comparingDouble(KeyAveragesRow::deviceTotalUs)),
    DEVICE_TIME("device_time", Comparator.comparingDouble(KeyAveragesRow::deviceAvgUs)),
    COUNT("count", Comparator.comparingLong(KeyAveragesRow::count));

    private final String key;
    private final Comparator<KeyAveragesRow> ascending;

    SortKey(String key, Comparator<KeyAveragesRow> ascending) {
        this.key = key;
        this.ascending = ascending;
    }

    /** The name torch uses for the key. */
    public String key() {
        return key;
    }

    /** Largest first; ties keep their order (a stable sort, as Python's). */
    public Comparator<KeyAveragesRow> descending() {
        return ascending.reversed();
    }

    /** The key named {@code name} (torch's name; {@code cuda} in place of {@code device} is accepted), or null. */
    public static SortKey parse(String name) {
        String n = name.replace("cuda", "device");
        for (SortKey k : values()) {
            if (k.key.equals(n)) {
                return k;
            }
        }
        return null;
    }

    /** The accepted names, for a usage message. */
    public static String names() {
        StringBuilder b = new StringBuilder();
        for (SortKey k : values()) {
            b.append(b.length() == 0 ? "" : ", ").append(k.key);
        }
        return b.toString();
    }
}
