package org.flagos.trace.cli;

/** A command line that names things wrongly, found after parsing; the message says which argument. Exit 2. */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
