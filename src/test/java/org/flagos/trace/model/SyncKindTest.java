package org.flagos.trace.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Synchronization kinds: kineto's event names, and which kinds wait on a CUDA event (those carry an event id). */
class SyncKindTest {
    @Test
    void labelsAreKinetosNames() {
        assertEquals("Unknown Sync", SyncKind.UNKNOWN.label());
        assertEquals("Event Sync", SyncKind.EVENT.label());
        assertEquals("Stream Wait Event", SyncKind.STREAM_WAIT_EVENT.label());
        assertEquals("Stream Sync", SyncKind.STREAM.label());
        assertEquals("Context Sync", SyncKind.CONTEXT.label());
    }

    @Test
    void onlyTheEventKindsWaitOnAnEvent() {
        Set<SyncKind> onEvent = EnumSet.noneOf(SyncKind.class);
        for (SyncKind k : SyncKind.values()) {
            if (k.onEvent()) {
                onEvent.add(k);
            }
        }
        assertEquals(EnumSet.of(SyncKind.EVENT, SyncKind.STREAM_WAIT_EVENT), onEvent);
    }
}
