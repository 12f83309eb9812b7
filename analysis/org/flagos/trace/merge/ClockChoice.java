package org.flagos.trace.merge;

/** Which pairing of the clock anchors puts a trace on the reference's clock. */
public enum ClockChoice {
    /** The monotonic clock where a trace was captured on the reference's host and boot, the real-time clock elsewhere. */
    AUTO,
    /** The monotonic clock only: every trace must come from the reference's host and boot. */
    MONOTONIC,
    /** The real-time clock only, even on one host (a check of the monotonic pairing). */
    REALTIME
}
