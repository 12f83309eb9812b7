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

    private static final Kept KEPT = new Kept(MAX_FRAMES_KEPT, MAX_STACK_BYTES);

    /** The calling thread's innermost {@code depth} frames below the profiler's own. */
    static OpStack capture(int depth) {
        String[] frames = WALKER.walk(s -> s.dropWhile(OpStacks::profilers).limit(depth).map(OpStacks::frame)
                .toArray(String[]::new));
        return KEPT.stack(frames);
    }

    private static boolean profilers(StackFrame f) {
        String c = f.getClassName();
        return c.equals(SESSION) || c.equals(SCHEDULED) || c.equals(STACKS) || c.equals(MARKER);
    }

    private static String frame(StackFrame f) {
        Where where = new Where(f.getDeclaringClass(), f.getMethodName(), f.getDescriptor(), f.getByteCodeIndex());
        String known = KEPT.knownFrame(where);
        return known != null ? known : KEPT.keepFrame(where, print(f));
    }

    private static String print(StackFrame f) {
        String file = f.getFileName();
        String where = f.isNativeMethod() ? "Native Method"
                : file == null ? "Unknown Source" : f.getLineNumber() >= 0 ? file + ":" + f.getLineNumber() : file;
        return f.getClassName() + "." + f.getMethodName() + "(" + where + ")";
    }

    /**
     * The two bounded caches: printed frames by {@link Where}, stacks by their frames. One for the
     * process ({@link #capture}); a test makes its own to fill to the bounds.
     */
    static final class Kept {
        private final int maxFrames;
        private final long maxStackBytes;
        private final ConcurrentHashMap<Where, String> frames = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<Frames, OpStack> byFrames = new ConcurrentHashMap<>();
        private final AtomicLong stackBytes = new AtomicLong();

        Kept(int maxFrames, long maxStackBytes) {
            this.maxFrames = maxFrames;
            this.maxStackBytes = maxStackBytes;
        }

        /** The frame printed at {@code where} when kept, else null. */
        String knownFrame(Where where) {
            return frames.get(where);
        }

        /** {@code printed}, the frame at {@code where}, kept while fewer than the bound are (the one kept first on a race). */
        String keepFrame(Where where, String printed) {
            if (frames.size() < maxFrames) {
                String raced = frames.putIfAbsent(where, printed);
                return raced != null ? raced : printed;
            }
            return printed;
        }

        /** The stack of {@code printedFrames}: the one kept for them, or a new one, kept while its text fits the bound. */
        OpStack stack(String[] printedFrames) {
            Frames key = new Frames(printedFrames);
            OpStack known = byFrames.get(key);
            if (known != null) {
                return known;
            }
            OpStack stack = OpStack.ofTruncated(printedFrames, printedFrames.length);
            long bytes = 4L * stack.joinedUtf8().length;
            if (stackBytes.get() + bytes <= maxStackBytes) {
                OpStack raced = byFrames.putIfAbsent(key, stack);
                if (raced != null) {
                    return raced;
                }
                stackBytes.addAndGet(bytes);
            }
            return stack;
        }

        int framesKept() {
            return frames.size();
        }

        int stacksKept() {
            return byFrames.size();
        }

        long stackBytesKept() {
            return stackBytes.get();
        }
    }

    /** A frame's place: what its printed line follows from. */
    record Where(Class<?> type, String method, String descriptor, int bytecodeIndex) {
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
