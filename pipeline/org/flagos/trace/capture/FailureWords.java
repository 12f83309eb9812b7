package org.flagos.trace.capture;

import java.io.IOException;

/** A failure in words for one line of output: what happened and what to do, never a Java class name. */
public final class FailureWords {
    private FailureWords() {
    }

    /** {@code failure} as words; its message is kept where it has one. */
    public static String of(Throwable failure) {
        if (failure instanceof OutOfMemoryError) {
            return "out of memory (" + message(failure, "heap exhausted") + "); give the JVM more heap,"
                    + " e.g. FLAGTRACE_JAVA_OPTS=-Xmx8g, or split the capture";
        }
        if (failure instanceof StackOverflowError) {
            return "stack overflow while processing the input (a pathological name or nesting?)";
        }
        if (failure instanceof IOException) {
            return AtomicOutput.describe(failure);
        }
        if (failure instanceof NumberFormatException) {
            return "a number could not be read (" + message(failure, "no detail") + ")";
        }
        return message(failure, "an unexpected failure with no message");
    }

    private static String message(Throwable failure, String otherwise) {
        String message = failure.getMessage();
        if (message == null || message.isBlank()) {
            return otherwise;
        }
        int nl = message.indexOf('\n');
        return (nl < 0 ? message : message.substring(0, nl)).strip();
    }
}
