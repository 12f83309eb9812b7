package org.flagos.trace.model;

/** Kind of memory at either end of a copy or under a memset, as torch labels it. */
public enum MemoryKind {
    UNKNOWN("Unknown"), PAGEABLE("Pageable"), PINNED("Pinned"), DEVICE("Device"), ARRAY("Array"),
    MANAGED("Managed"), DEVICE_STATIC("Device Static"), MANAGED_STATIC("Managed Static");

    private final String label;

    MemoryKind(String label) {
        this.label = label;
    }

    /** The label torch prints. */
    public String label() {
        return label;
    }
}
