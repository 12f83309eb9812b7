package org.flagos.trace.journal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link MappedFault}: the JVM's report of a SIGBUS on a mapped write (an {@link InternalError} with HotSpot's words)
 * is recognised itself and under any depth of causes; another InternalError, the same words in another exception,
 * a message-less InternalError and a cause chain that loops are not, and the loop ends.
 */
class MappedFaultTest {
    /** HotSpot's message, word for word (JavaThread::handle_async_exception / Unsafe). */
    private static final String HOTSPOT = "a fault occurred in a recent unsafe memory access operation in compiled Java code";

    @Test
    void theJvmsFaultIsRecognisedItselfAndAsACause() {
        InternalError fault = new InternalError(HOTSPOT);
        assertTrue(MappedFault.is(fault));
        assertTrue(MappedFault.is(new IllegalStateException("append failed", new UncheckedIOException(new IOException(fault)))));
    }

    @Test
    void otherErrorsAreNot() {
        assertFalse(MappedFault.is(null));
        assertFalse(MappedFault.is(new InternalError("some other VM error")));
        assertFalse(MappedFault.is(new InternalError((String) null)));
        assertFalse(MappedFault.is(new IOException(HOTSPOT)), "the words in another exception are not the JVM's fault");
        assertFalse(MappedFault.is(new OutOfMemoryError(HOTSPOT)));
    }

    /** Before the fix only a self-cause (which {@link Throwable} refuses anyway) ended the walk: a two-link loop spun for ever. */
    @Test
    void aCauseChainThatLoopsEnds() {
        Exception a = new Exception("a");
        Exception b = new Exception("b", a);
        a.initCause(b);
        assertFalse(assertTimeoutPreemptively(Duration.ofSeconds(60), () -> MappedFault.is(a)), "a loop, not a hang");
        Exception c = new Exception("c");
        InternalError fault = new InternalError(HOTSPOT, c);
        c.initCause(fault);
        assertTrue(MappedFault.is(new RuntimeException(c)), "the fault inside a loop is found");
    }
}
