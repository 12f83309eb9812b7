package org.flagos.trace.capture;

import java.util.LinkedHashMap;
import java.util.Map;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.vendors.Vendors;

/**
 * Frames of a capture that carry nothing to decode, counted instead of noted one by one: empty
 * frames (a 16-byte header declaring no payload: zero padding, or damage such as a file of zeros)
 * and frames of another vendor than the capture's. Each kind becomes one note at the end of the
 * replay, so a capture of a million such frames costs a few counters, not a million notes.
 */
final class SkippedFrames {
    /** Vendors named one by one in the note; frames of more vendors are counted together. */
    private static final int NAMED_VENDORS = 8;

    private long empty;
    private final Map<Integer, long[]> foreign = new LinkedHashMap<>();
    private long otherFrames;
    private long otherBytes;

    /** Counts an empty frame. */
    void empty() {
        empty++;
    }

    /** Counts a frame of {@code vendor}, {@code bytes} long, skipped in a capture of another vendor. */
    void foreign(int vendor, long bytes) {
        long[] counts = foreign.get(vendor);
        if (counts == null && foreign.size() >= NAMED_VENDORS) {
            otherFrames++;
            otherBytes += bytes;
            return;
        }
        if (counts == null) {
            counts = new long[2];
            foreign.put(vendor, counts);
        }
        counts[0]++;
        counts[1] += bytes;
    }

    /** One note per kind of frame skipped, if any was. */
    void noteInto(CaptureAccounting accounting, String source, int vendor) {
        if (empty > 0) {
            accounting.note(source + ": " + empty + " empty frame" + (empty == 1 ? "" : "s") + " (a 16-byte header declaring"
                    + " no payload: zero padding or damage) skipped; no record was in them");
        }
        for (Map.Entry<Integer, long[]> e : foreign.entrySet()) {
            accounting.note(source + ": " + e.getValue()[0] + " frame" + (e.getValue()[0] == 1 ? "" : "s") + " of "
                    + Vendors.dumpVendorName(e.getKey()) + " in a " + Vendors.dumpVendorName(vendor) + " capture skipped ("
                    + e.getValue()[1] + " bytes)");
        }
        if (otherFrames > 0) {
            accounting.note(source + ": " + otherFrames + " more frames of other vendors skipped (" + otherBytes + " bytes)");
        }
    }
}
