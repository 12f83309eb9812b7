package org.flagos.trace.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** {@code --version}: the version Maven filtered into {@code version.properties}, and the Java running it. */
final class VersionProvider implements CommandLine.IVersionProvider {
    static String version() {
        Properties p = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "flagtrace " + version(),
            "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")",
        };
    }
}
