package org.flagos.trace.agent;

import java.io.IOException;
import java.util.List;
import org.flagos.trace.testing.ChildJvm;

/**
 * A process tree for the agent's tests: this JVM starts a child JVM running {@link UnchangedProgram}
 * (the same java, the same class path and build-tree settings, its environment inherited, as a launcher such as torchrun
 * starts its workers), waits for it, and exits with its exit code.
 */
public final class ForkingProgram {
    private ForkingProgram() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        List<String> command = ChildJvm.command();
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), UnchangedProgram.class.getName(), args[0]));
        Process child = new ProcessBuilder(command).inheritIO().start();
        System.exit(child.waitFor());
    }
}
