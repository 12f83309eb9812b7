package org.flagos.trace.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code flagtrace run OPTIONS -d DIR -- COMMAND} on a vendor's fakes, as a user without a GPU runs it: the command
 * runs under {@code sh -c 'eval "$(scripts/fake-gpu-env VENDOR)" && SHELL exec "$0" "$@"'}, flagtrace in a child JVM
 * of this class path (its output and exit code kept by {@link ProgramRun}). Immutable: each {@code with} is a copy.
 * The one way the tests of {@code run} start it.
 */
public final class FakeGpuRun {
    private static final String CLI = "org.flagos.trace.cli.FlagtraceCli";
    private final String vendor;
    private final Path root;
    private final Path agentJar;
    private final List<String> options;
    private final String shell;
    private final List<String> jvmFlags;

    private FakeGpuRun(String vendor, Path root, Path agentJar, List<String> options, String shell, List<String> jvmFlags) {
        this.vendor = vendor;
        this.root = root;
        this.agentJar = agentJar;
        this.options = List.copyOf(options);
        this.shell = shell;
        this.jvmFlags = List.copyOf(jvmFlags);
    }

    /** On {@code vendor}'s fakes ({@code cupti}, {@code mspti}), flagtrace's JVM in {@code root}, the agent jar {@code agentJar}. */
    public static FakeGpuRun on(String vendor, Path root, Path agentJar) {
        return new FakeGpuRun(vendor, root, agentJar, List.of(), "", List.of());
    }

    /** With run's {@code options} before {@code -d}. */
    public FakeGpuRun withOptions(List<String> options) {
        return new FakeGpuRun(vendor, root, agentJar, options, shell, jvmFlags);
    }

    /** With {@code shell} (commands each ending in {@code &&}) run in the target's shell before its exec. */
    public FakeGpuRun withShellBefore(String shell) {
        return new FakeGpuRun(vendor, root, agentJar, options, shell, jvmFlags);
    }

    /** With flags for flagtrace's JVM (Chronicle's, for {@code --journal}). */
    public FakeGpuRun withJvmFlags(List<String> jvmFlags) {
        return new FakeGpuRun(vendor, root, agentJar, options, shell, jvmFlags);
    }

    /** Starts flagtrace run writing into {@code dir} with {@code command} (the program and its arguments) as the target. */
    public ProgramRun start(Path dir, List<String> command) throws IOException {
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(options);
        args.addAll(List.of("-d", dir.toString(), "--agent-jar", agentJar.toString(), "--", "sh", "-c",
                "eval \"$(" + Path.of("scripts/fake-gpu-env").toAbsolutePath() + " " + vendor + ")\" && " + shell + "exec \"$0\" \"$@\""));
        args.addAll(command);
        return ProgramRun.start(root, jvmFlags, CLI, args.toArray(String[]::new));
    }
}
