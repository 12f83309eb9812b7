package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FailureWords}: each kind of failure in one line of words, what to do where there is something to do, a
 * message cut at its first line, never a Java class name; a real failure of the file system (writing into a missing
 * folder) in the words of {@link AtomicOutput} ("no such file or directory", the caller naming the path).
 */
class FailureWordsTest {
    @TempDir
    Path dir;

    @Test
    void eachKindInOneLine() {
        assertEquals("out of memory (Java heap space); give the JVM more heap, e.g. FLAGTRACE_JAVA_OPTS=-Xmx8g, or split the capture",
                FailureWords.of(new OutOfMemoryError("Java heap space")));
        assertEquals("out of memory (heap exhausted); give the JVM more heap, e.g. FLAGTRACE_JAVA_OPTS=-Xmx8g, or split the capture",
                FailureWords.of(new OutOfMemoryError()));
        assertEquals("stack overflow while processing the input (a pathological name or nesting?)", FailureWords.of(new StackOverflowError()));
        assertEquals("a number could not be read (For input string: \"x\")", FailureWords.of(numberFormat("x")));
        assertEquals("a number could not be read (no detail)", FailureWords.of(new NumberFormatException()));
        assertEquals("first line", FailureWords.of(new IllegalStateException("  first line  \nsecond line\nthird")));
        assertEquals("an unexpected failure with no message", FailureWords.of(new IllegalStateException(" \n ")),
                "a blank message is no message");
        assertEquals("an unexpected failure with no message", FailureWords.of(new NullPointerException()));
        assertEquals("disk on fire", FailureWords.of(new IOException("disk on fire")));
    }

    @Test
    void aFileSystemFailureInAtomicOutputsWords() throws Exception {
        Path target = dir.resolve("no/such/folder/t.json");
        IOException real = null;
        try {
            Files.newOutputStream(target);
        } catch (IOException e) {
            real = e;
        }
        assertTrue(real != null);
        String words = FailureWords.of(real);
        assertEquals(AtomicOutput.describe(real), words);
        assertFalse(words.contains("Exception") || words.contains("java."), words);
        assertEquals("no such file or directory", words, "the caller names the path");
        assertEquals("permission denied", FailureWords.of(new AccessDeniedException("/x/y")));
    }

    private static NumberFormatException numberFormat(String s) {
        try {
            Long.parseLong(s);
            throw new AssertionError();
        } catch (NumberFormatException e) {
            return e;
        }
    }
}
