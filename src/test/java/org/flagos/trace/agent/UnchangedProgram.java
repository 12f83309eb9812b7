package org.flagos.trace.agent;

import java.io.IOException;

/**
 * A Java program that knows nothing of flagtrace, for the agent's tests: prints a line, then waits
 * for {@code args[0]} milliseconds or, with "stdin", until its standard input closes; exits with 7.
 */
public final class UnchangedProgram {
    private UnchangedProgram() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        System.out.println("hello from the program");
        System.out.flush();
        if ("stdin".equals(args[0])) {
            while (System.in.read() >= 0) {
                // until the test closes it
            }
        } else {
            Thread.sleep(Long.parseLong(args[0]));
        }
        System.out.println("bye");
        System.exit(7);
    }
}
