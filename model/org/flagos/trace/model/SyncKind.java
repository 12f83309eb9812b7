package org.flagos.trace.model;

/** What a synchronization record waited for, with the name torch gives it. */
public enum SyncKind {
    /** A synchronization the vendor did not classify. */
    UNKNOWN("Unknown Sync"),
    /** The host waited for an event ({@code cudaEventSynchronize}). */
    EVENT("Event Sync"),
    /** A stream was made to wait for an event ({@code cudaStreamWaitEvent}). */
    STREAM_WAIT_EVENT("Stream Wait Event"),
    /** The host waited for a stream ({@code cudaStreamSynchronize}). */
    STREAM("Stream Sync"),
    /** The host waited for a whole context ({@code cudaDeviceSynchronize}, {@code cuCtxSynchronize}). */
    CONTEXT("Context Sync");

    private final String label;

    SyncKind(String label) {
        this.label = label;
    }

    /** The event's name and its {@code cuda_sync_kind} arg, as torch writes them. */
    public String label() {
        return label;
    }

    /** True when the synchronization concerns an event, so the event's args apply. */
    public boolean onEvent() {
        return this == EVENT || this == STREAM_WAIT_EVENT;
    }
}
