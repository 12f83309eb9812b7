package org.flagos.trace.ingest;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * Why a file could not be read or written, in words for a one-line error (never a Java class
 * name). Reading and writing share the wording but for a missing path and the system's own
 * reason: a reader says "no such file" and lowers the system's reason to lower case; a writer
 * says "no such file or directory", keeps the reason as the system gave it, and names a file that
 * stands where a directory must be made.
 */
public final class IoFailureWords {
    /** Why reading failed. */
    public static String reading(IOException e) {
        return words(e, "no such file", true);
    }

    /** Why writing failed. */
    public static String writing(IOException e) {
        if (e instanceof FileAlreadyExistsException) {
            return "a file is in the way of a directory it needs";
        }
        return words(e, "no such file or directory", false);
    }

    private static String words(IOException e, String missing, boolean lowerSystemReason) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return missing;
        }
        if (e instanceof NotDirectoryException) {
            return "a path component is not a directory";
        }
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            String reason = ((FileSystemException) e).getReason();
            return lowerSystemReason ? reason.toLowerCase(Locale.ROOT) : reason;
        }
        String message = e.getMessage();
        return message == null || message.isBlank() ? "an input/output error" : message;
    }

    private IoFailureWords() {
    }
}
