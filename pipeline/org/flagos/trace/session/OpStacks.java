package org.flagos.trace.session;

import java.lang.StackWalker.StackFrame;
import org.flagos.trace.model.OpStack;

/**
 * Walks the stack of the thread opening an op ({@link SessionOptions#withStack}): the innermost
 * frames of the program's own code, the profiler's frames left out, each as Java prints a frame
 * ({@code com.example.Model.forward(Model.java:42)}, without the module). {@link StackWalker} walks
 * lazily, so a bounded depth costs that many frames, not the whole stack.
 */
final class OpStacks {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final String SESSION = ProfilerSession.class.getName();
    private static final String SCHEDULED = ScheduledSession.class.getName();
    private static final String STACKS = OpStacks.class.getName();
    private static final String MARKER = org.flagos.trace.model.HostOpMarker.class.getName();

    /** The calling thread's innermost {@code depth} frames below the profiler's own. */
    static OpStack capture(int depth) {
        String[] frames = WALKER.walk(s -> s.dropWhile(OpStacks::profilers).limit(depth).map(OpStacks::frame)
                .toArray(String[]::new));
        return OpStack.ofTruncated(frames, frames.length);
    }

    private static boolean profilers(StackFrame f) {
        String c = f.getClassName();
        return c.equals(SESSION) || c.equals(SCHEDULED) || c.equals(STACKS) || c.equals(MARKER);
    }

    private static String frame(StackFrame f) {
        String file = f.getFileName();
        String where = f.isNativeMethod() ? "Native Method"
                : file == null ? "Unknown Source" : f.getLineNumber() >= 0 ? file + ":" + f.getLineNumber() : file;
        return f.getClassName() + "." + f.getMethodName() + "(" + where + ")";
    }

    private OpStacks() {
    }
}
