package org.flagos.trace.agent;

import java.lang.instrument.Instrumentation;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.model.TerminalText;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ProfilerSession;
import org.flagos.trace.session.SessionOptions;

/**
 * Arms a flagtrace session inside a Java program that was not written for it: at launch
 * ({@code java -javaagent:flagtrace.jar=OPTIONS ...}, {@link #premain}) or in a running JVM
 * ({@code flagtrace attach PID}, which loads this agent through the JDK's Attach API:
 * {@link #agentmain}). {@link AgentOptions} says what the options are.
 *
 * <p>The program is never harmed: a failure (bad options, a session already running, an output that
 * cannot be written) is one line on its standard error, and the program runs on untraced. The session
 * stops after its duration, at {@code stop}, or when the program exits (a shutdown hook), whichever
 * comes first; the one thread the agent starts is a daemon and ends with the session.
 */
public final class FlagtraceAgent {
    private static final Object LOCK = new Object();
    /** The session armed by the agent, or null. */
    private static ProfilerSession session;
    /** Where that session's trace goes. */
    private static java.nio.file.Path trace;
    /** Counts arms, so a timer of an earlier arm never stops a later one. */
    private static long generation;
    private static boolean hooked;

    private FlagtraceAgent() {
    }

    /** Loaded with the program: {@code -javaagent:flagtrace.jar=OPTIONS}. */
    public static void premain(String options, Instrumentation instrumentation) {
        load(options);
    }

    /** Loaded into a running program by {@code flagtrace attach PID}. */
    public static void agentmain(String options, Instrumentation instrumentation) {
        load(options);
    }

    private static void load(String options) {
        try {
            AgentOptions parsed = AgentOptions.parse(options, ProcessHandle.current().pid());
            if (parsed.stop()) {
                stop("stopped by 'flagtrace attach --stop'");
            } else {
                schedule(parsed);
            }
        } catch (Throwable e) { // never into the program's start or the attaching thread
            say("not tracing: " + message(e));
        }
    }

    private static void schedule(AgentOptions options) {
        long armed;
        synchronized (LOCK) {
            if (session != null) {
                throw new IllegalStateException("a session armed by the agent is running; stop it first (flagtrace attach PID --stop)");
            }
            armed = ++generation;
            if (!hooked) {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> stop("the program exited"), "flagtrace-agent-exit"));
                hooked = true;
            }
        }
        if (options.delayNs() == 0) {
            arm(options, armed); // at once, on the loading thread: nothing the program does next is missed
            if (options.durationNs() > 0) {
                timer(() -> sleepThenStop(options.durationNs(), armed));
            }
        } else {
            timer(() -> {
                if (sleep(options.delayNs())) {
                    arm(options, armed);
                    if (options.durationNs() > 0) {
                        sleepThenStop(options.durationNs(), armed);
                    }
                }
            });
        }
    }

    private static void timer(Runnable body) {
        Thread t = new Thread(body, "flagtrace-agent");
        t.setDaemon(true);
        t.start();
    }

    private static void sleepThenStop(long ns, long armed) {
        if (sleep(ns)) {
            synchronized (LOCK) {
                if (generation != armed) {
                    return;
                }
            }
            stop("its duration ended");
        }
    }

    private static boolean sleep(long ns) {
        try {
            Thread.sleep(ns / 1_000_000, (int) (ns % 1_000_000));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void arm(AgentOptions options, long armed) {
        synchronized (LOCK) {
            if (generation != armed || session != null) {
                return;
            }
            try {
                DeviceTracer tracer = Profiler.init();
                SessionOptions o = SessionOptions.to(options.trace());
                if (options.journal() != null) {
                    o = o.withJournal(options.journal());
                }
                session = Profiler.start(tracer, o);
                trace = options.trace();
                say("tracing " + (tracer.available() ? "with " + tracer.name() : "the host only (" + tracer.unavailableReason() + ")")
                        + " to " + options.trace());
            } catch (Throwable e) {
                say("not tracing: " + message(e));
            }
        }
    }

    /** Stops the agent's session, if one runs, and says where its trace went. */
    private static void stop(String why) {
        ProfilerSession s;
        java.nio.file.Path path;
        synchronized (LOCK) {
            s = session;
            path = trace;
            session = null;
            generation++;
        }
        if (s == null) {
            if (why.startsWith("stopped by")) {
                say("no session armed by the agent is running");
            }
            return;
        }
        try {
            s.close();
            say("trace written (" + why + "): " + path + ", " + s.events() + " events");
        } catch (Throwable e) {
            say("the trace could not be written: " + message(e));
        }
    }

    private static String message(Throwable e) {
        String m = e.getMessage();
        return TerminalText.safe(m == null || m.isBlank() ? e.getClass().getSimpleName() : m);
    }

    private static void say(String line) {
        System.err.println("flagtrace agent: " + line);
    }
}
