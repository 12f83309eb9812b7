package org.flagos.trace.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The one check every input file passes before it is opened: it must be a regular file. A FIFO
 * with no writer would block the open forever, and a device such as {@code /dev/zero} never ends;
 * neither is a capture, an ops file, a name table, device properties or a clock mapping saved on disk.
 */
public final class InputFiles {
    /**
     * Throws a one-line {@link CaptureFormatException} naming {@code path} unless it is a regular file
     * (links followed).
     *
     * @param what what the file should be, in words ("a capture", "an ops file")
     */
    public static void requireRegular(Path path, String what) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new CaptureFormatException(path + ": no such file");
        } catch (IOException e) {
            throw new CaptureFormatException(path + ": cannot read (" + reason(e) + ")", e);
        }
        if (attributes.isDirectory()) {
            throw new CaptureFormatException(path + ": is a directory, not " + what + " file; give the file itself");
        }
        if (!attributes.isRegularFile()) {
            throw new CaptureFormatException(path + ": not a regular file (a pipe, socket or device), so it cannot be "
                    + what + " file; save the data to a file on disk and give that file");
        }
    }

    /**
     * What {@code path} is, in words without an article, links followed: "regular file", "directory", "FIFO",
     * "character device", "block device", "socket", "special file" (another node, or a mode that cannot be read), or
     * "missing" (nothing there, or a dangling link). Read from its attributes only: nothing is opened.
     */
    public static String nodeType(Path path) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (IOException e) {
            return "missing";
        }
        if (a.isRegularFile()) {
            return "regular file";
        }
        if (a.isDirectory()) {
            return "directory";
        }
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode");
            switch (mode & 0170000) {
                case 0020000: return "character device";
                case 0010000: return "FIFO";
                case 0060000: return "block device";
                case 0140000: return "socket";
                default: return "special file";
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "special file";
        }
    }

    /** Why reading failed, in words (never a Java class name); see {@link IoFailureWords#reading}. */
    public static String reason(IOException e) {
        return IoFailureWords.reading(e);
    }

    private InputFiles() {
    }
}
