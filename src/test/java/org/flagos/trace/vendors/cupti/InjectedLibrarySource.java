package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The injected library's C source ({@code native/inject/flagtrace_inject.c}), read by the tests that hold its lists and constants equal to Java's. */
final class InjectedLibrarySource {
    static final Path PATH = Path.of("native", "inject", "flagtrace_inject.c");

    private InjectedLibrarySource() {
    }

    static String text() throws IOException {
        return Files.readString(PATH);
    }

    /** The values of {@code static const int NAME[] = {...};}. */
    static int[] intArray(String name) throws IOException {
        Matcher m = Pattern.compile(name + "\\[\\]\\s*=\\s*\\{([^}]*)\\}").matcher(text());
        assertTrue(m.find(), name + " in " + PATH);
        return Arrays.stream(m.group(1).split(",")).map(String::strip).mapToInt(Integer::parseInt).toArray();
    }

    /** The value of the enum constant {@code NAME = N}. */
    static long constant(String name) throws IOException {
        Matcher m = Pattern.compile(name + "\\s*=\\s*(\\d+)").matcher(text());
        assertTrue(m.find(), name + " in " + PATH);
        return Long.parseLong(m.group(1));
    }
}
