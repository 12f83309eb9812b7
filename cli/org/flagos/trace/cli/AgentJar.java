package org.flagos.trace.cli;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flagos.trace.agent.FlagtraceAgent;

/**
 * What {@code run} and {@code attach} hand the agent: the jar it is loaded from (flagtrace's own, as
 * the launcher builds it: {@code target/flagtrace.jar}) and its option string, checked here first.
 */
final class AgentJar {
    private AgentJar() {
    }

    /** Refuses {@code options} as the agent would, with the CLI's usage code instead of a line in the program. */
    static String checked(String options, long pid) {
        try {
            org.flagos.trace.agent.AgentOptions.parse(options, pid);
            return options;
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** {@code given} made absolute, or flagtrace's own jar; a usage error when flagtrace runs from classes, not a jar. */
    static Path of(Path given) {
        if (given != null) {
            return given.toAbsolutePath();
        }
        try {
            Path p = Path.of(FlagtraceAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(p) && p.toString().endsWith(".jar")) {
                return p;
            }
            throw new UsageException("the agent must be loaded from flagtrace's jar, and this flagtrace runs from " + p
                    + " (run the launcher, which builds target/flagtrace.jar)");
        } catch (URISyntaxException | SecurityException e) {
            throw new UsageException("cannot tell where flagtrace's jar is: " + e.getMessage());
        }
    }
}
