package org.flagos.trace.journal;

/**
 * A write into a memory-mapped file that faulted. The journal (Chronicle Queue) writes through
 * mapped files; when the file system cannot back a page it has mapped (the disk or tmpfs is full,
 * or the file was cut while mapped), the kernel sends SIGBUS and the JVM turns it into an
 * {@link InternalError} "a fault occurred in a recent unsafe memory access operation", raised at
 * the next safe point, so not always inside the call that wrote. This is the one place that
 * recognises it and says it in words.
 */
public final class MappedFault {
    /** What such a fault means, in words. */
    public static final String WORDS = "the disk is full (a write into a memory-mapped file failed: the file system had no"
            + " space left for it, or the file was cut while it was written)";

    private MappedFault() {
    }

    /** Whether {@code e}, or one of its causes, is the JVM's report of a faulting mapped-memory write. */
    public static boolean is(Throwable e) {
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) { // a chain may loop (a's cause b, b's a)
            if (t instanceof InternalError && t.getMessage() != null && t.getMessage().contains("unsafe memory access")) {
                return true;
            }
        }
        return false;
    }
}
