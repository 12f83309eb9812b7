package org.flagos.trace.model;

/** Direction of a device copy, as torch labels it in {@code Memcpy HtoD (...)}. */
public enum CopyKind {
    UNKNOWN("Unknown"), HTOD("HtoD"), DTOH("DtoH"), HTOA("HtoA"), ATOH("AtoH"), ATOA("AtoA"),
    ATOD("AtoD"), DTOA("DtoA"), DTOD("DtoD"), HTOH("HtoH"), PTOP("PtoP");

    private final String label;

    CopyKind(String label) {
        this.label = label;
    }

    /** The short label torch prints. */
    public String label() {
        return label;
    }
}
