package org.flagos.trace.session;

import java.lang.StackWalker.StackFrame;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.flagos.trace.model.OpStack;

/**
 * Walks the stack of the thread opening an op ({@link SessionOptions#withStack}): the innermost
 * frames of the program's own code, the profiler's frames left out, each as Java prints a frame
 * ({@code com.example.Model.forward(Model.java:42)}, without the module). {@link StackWalker} walks
 * lazily, so a bounded depth costs that many frames, not the whole stack.
 *
 * <p>A program opens ops from a few call sites, again and again, so both what a frame prints as and
 * whole stacks are kept, by where they are: a frame by its method and bytecode index (its line comes
 * from them), a stack by its frames. A repeated stack is then one walk and lookups, and every op
 * opened there holds the same {@link OpStack}. Measured on the H200 (2026-12-02, JMH, 8 frames):
 * printing each frame anew cost 15-25 µs and 16 KB an op, and the ops a session held (up to the
 * join's 2^18 while no device record came) kept a copy of their stack each, 3 KB: the benchmark's
 * 1 GiB heap ran out in 8 seconds. Both caches are bounded; past the bounds a stack is built as
 * before, for that op alone.
 */
final class OpStacks {
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final String SESSION = ProfilerSession.class.getName();
    private static final String SCHEDULED = ScheduledSession.class.getName();
    private static final String STACKS = OpStacks.class.getName();
    private static final String MARKER = org.flagos.trace.model.HostOpMarker.class.getName();
    /** Frames kept at most (a frame's text is under a few hundred bytes). */
    static final int MAX_FRAMES_KEPT = 1 << 16;
    /** Bytes of stack text kept at most (an {@link OpStack} holds its text in four forms). */
    static final long MAX_STACK_BYTES = 16L << 20;

    private static final ConcurrentHashMap<Where, String> FRAMES = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<Frames, OpStack> BY_FRAMES = new ConcurrentHashMap<>();
    private static final AtomicLong stackBytes = new AtomicLong();

    /** The calling thread's innermost {@code depth} frames below the profiler's own. */
    static OpStack capture(int depth) {
        String[] frames = WALKER.walk(s -> s.dropWhile(OpStacks::profilers).limit(depth).map(OpStacks::frame)
                .toArray(String[]::new));
        Frames key = new Frames(frames);
        OpStack known = BY_FRAMES.get(key);
        if (known != null) {
            return known;
        }
        OpStack stack = OpStack.ofTruncated(frames, frames.length);
        long bytes = 4L * stack.joinedUtf8().length;
        if (stackBytes.get() + bytes <= MAX_STACK_BYTES) {
            OpStack raced = BY_FRAMES.putIfAbsent(key, stack);
            if (raced != null) {
                return raced;
            }
            stackBytes.addAndGet(bytes);
        }
        return stack;
    }

    private static boolean profilers(StackFrame f) {
        String c = f.getClassName();
        return c.equals(SESSION) || c.equals(SCHEDULED) || c.equals(STACKS) || c.equals(MARKER);
    }

    private static String frame(StackFrame f) {
        Where where = new Where(f.getDeclaringClass(), f.getMethodName(), f.getDescriptor(), f.getByteCodeIndex());
        String known = FRAMES.get(where);
        if (known != null) {
            return known;
        }
        String printed = print(f);
        if (FRAMES.size() < MAX_FRAMES_KEPT) {
            String raced = FRAMES.putIfAbsent(where, printed);
            return raced != null ? raced : printed;
        }
        return printed;
    }

    private static String print(StackFrame f) {
        String file = f.getFileName();
        String where = f.isNativeMethod() ? "Native Method"
                : file == null ? "Unknown Source" : f.getLineNumber() >= 0 ? file + ":" + f.getLineNumber() : file;
        return f.getClassName() + "." + f.getMethodName() + "(" + where + ")";
    }

    /** A frame's place: what its printed line follows from. */
    private record Where(Class<?> type, String method, String descriptor, int bytecodeIndex) {
    }

    /** A stack's frames as printed; equal when every frame is. */
    private static final class Frames {
        private final String[] frames;
        private final int hash;

        Frames(String[] frames) {
            this.frames = frames;
            this.hash = Arrays.hashCode(frames);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Frames && Arrays.equals(frames, ((Frames) o).frames);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private OpStacks() {
    }
}
