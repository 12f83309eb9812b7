package org.flagos.trace.ingest;

import org.flagos.trace.model.ExternalId;
import org.flagos.trace.model.OpArgs;
import org.flagos.trace.model.OpStack;

/**
 * One host op range from an ops file.
 *
 * @param thread the thread that ran it, or {@link #NO_THREAD} when the file did not say
 * @param threadName that thread's name as the program knows it ({@code main}, {@code worker-3}), or
 *        null when the file did not say
 * @param args the op's args ({@code Input Dims}, ...), or null when it has none
 * @param stack the call stack that opened the op, or null when none was recorded
 * @param annotation true for a user annotation (a scheduled session's {@code ProfilerStep#N}, torch's
 *        {@code record_function} scope), drawn as {@code user_annotation}; false for an op, drawn as
 *        {@code cpu_op} (and for every op of a file or journal that does not say)
 */
public record HostOp(String name, ExternalId externalId, long thread, long startNs, long endNs, String threadName,
        OpArgs args, OpStack stack, boolean annotation) {
    /** An op ({@code cpu_op}), not an annotation. */
    public HostOp(String name, ExternalId externalId, long thread, long startNs, long endNs, String threadName,
            OpArgs args, OpStack stack) {
        this(name, externalId, thread, startNs, endNs, threadName, args, stack, false);
    }

    /** An op whose thread has no name. */
    public HostOp(String name, ExternalId externalId, long thread, long startNs, long endNs) {
        this(name, externalId, thread, startNs, endNs, null);
    }

    /** An op without args or stack. */
    public HostOp(String name, ExternalId externalId, long thread, long startNs, long endNs, String threadName) {
        this(name, externalId, thread, startNs, endNs, threadName, null, null);
    }

    /** Thread value of ops whose line carried no {@code thread}: they all count as one thread. */
    public static final long NO_THREAD = -1;

    public boolean hasThread() {
        return thread != NO_THREAD;
    }
}
