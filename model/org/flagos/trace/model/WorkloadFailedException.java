package org.flagos.trace.model;

/**
 * A workload that could not do its work for a reason it can state in one line (a peer that never
 * came, a missing setting): {@code flagtrace record} prints the message as an error, not as an
 * internal failure.
 */
public final class WorkloadFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public WorkloadFailedException(String message) {
        super(message);
    }
}
