package org.flagos.trace.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code --version} prints the version Maven filtered in (the pom's own) and the running Java. */
class VersionProviderTest {
    @Test
    void theVersionIsThePoms() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher m = Pattern.compile("<artifactId>flagtrace</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(m.find(), "the pom names flagtrace's version");
        assertEquals(m.group(1), VersionProvider.version());
        assertTrue(!VersionProvider.version().contains("${"), "filtered, not the placeholder");
    }

    @Test
    void versionLinesNameFlagtraceAndJava() {
        assertArrayEquals(new String[] {"flagtrace " + VersionProvider.version(),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"},
                new VersionProvider().getVersion());
    }
}
