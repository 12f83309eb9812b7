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
            throw new CaptureFormatException(path + ": " + notRegular(path) + ", so it cannot be "
                    + what + " file; save the data to a file on disk and give that file");
        }
    }

    /**
     * Why {@code path} is no regular file, in words to follow its path, or null where it is one (links followed):
     * "is a FIFO, not a regular file", "is a link to a character device, not a regular file", "is a directory, not a
     * regular file", "is a link that leads to no file (a dangling link, or a loop of links)", "does not exist", or
     * "cannot be read (REASON)". The one wording of every reader's refusal of such a path, each adding what the file
     * should have been. Read from its attributes only: nothing is opened (a FIFO with no writer would block the open
     * for ever, and {@code /dev/zero} never ends).
     */
    public static String notRegular(Path path) {
        try {
            if (Files.readAttributes(path, BasicFileAttributes.class).isRegularFile()) {
                return null;
            }
        } catch (IOException e) {
            return Files.isSymbolicLink(path) ? "is a link that leads to no file (a dangling link, or a loop of links)"
                    : e instanceof NoSuchFileException ? "does not exist" : "cannot be read (" + reason(e) + ")";
        }
        String type = nodeType(path);
        if (type.equals("regular file") || type.equals("missing")) { // changed between the two reads
            return notRegular(path);
        }
        return "is " + (Files.isSymbolicLink(path) ? "a link to " : "") + "a " + type + ", not a regular file";
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
