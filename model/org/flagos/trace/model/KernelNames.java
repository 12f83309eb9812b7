package org.flagos.trace.model;

/**
 * Resolves a vendor's kernel-name handle (in CUPTI, a {@code const char*} in the capturing
 * process) to the name the vendor reported. Live tracers read the string in place; replays use
 * the name table saved beside the capture.
 */
@FunctionalInterface
public interface KernelNames {
    /** The vendor's (possibly mangled) name for {@code handle}, or null when unknown. */
    String lookup(long handle);

    /** A resolver that knows no names. */
    KernelNames NONE = handle -> null;
}
