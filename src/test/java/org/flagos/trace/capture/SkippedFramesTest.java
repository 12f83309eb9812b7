package org.flagos.trace.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.stages.CaptureAccounting;
import org.flagos.trace.vendors.Vendors;
import org.junit.jupiter.api.Test;

/**
 * {@link SkippedFrames}: one note a kind of skipped frame, with counts and bytes, singular and plural; past eight
 * foreign vendors the rest are counted together; nothing skipped, no note.
 */
class SkippedFramesTest {
    private static List<String> notes(SkippedFrames skipped, int vendor) {
        CaptureAccounting accounting = new CaptureAccounting(new DecodeStats());
        List<String> before = List.copyOf(accounting.notes());
        skipped.noteInto(accounting, "c.fltrbuf", vendor);
        return accounting.notes().subList(before.size(), accounting.notes().size());
    }

    @Test
    void oneNoteAKind() {
        assertEquals(List.of(), notes(new SkippedFrames(), 1));
        SkippedFrames one = new SkippedFrames();
        one.empty();
        one.foreign(2, 100);
        assertEquals(List.of("c.fltrbuf: 1 empty frame (a 16-byte header declaring no payload: zero padding or damage) skipped;"
                + " no record was in them", "c.fltrbuf: 1 frame of " + Vendors.dumpVendorName(2) + " in a " + Vendors.dumpVendorName(1)
                + " capture skipped (100 bytes)"), notes(one, 1));
        SkippedFrames many = new SkippedFrames();
        for (int i = 0; i < 3; i++) {
            many.empty();
            many.foreign(2, 10);
        }
        many.foreign(3, 7);
        assertEquals(List.of("c.fltrbuf: 3 empty frames (a 16-byte header declaring no payload: zero padding or damage) skipped;"
                + " no record was in them", "c.fltrbuf: 3 frames of " + Vendors.dumpVendorName(2) + " in a " + Vendors.dumpVendorName(1)
                + " capture skipped (30 bytes)", "c.fltrbuf: 1 frame of " + Vendors.dumpVendorName(3) + " in a " + Vendors.dumpVendorName(1)
                + " capture skipped (7 bytes)"), notes(many, 1));
    }

    @Test
    void pastEightVendorsTheRestAreCountedTogether() {
        SkippedFrames s = new SkippedFrames();
        for (int v = 100; v < 112; v++) {
            s.foreign(v, v);
            s.foreign(v, 1);
        }
        s.foreign(100, 5); // a named one stays named
        List<String> notes = notes(s, 1);
        assertEquals(9, notes.size(), notes.toString());
        assertEquals("c.fltrbuf: 3 frames of unknown vendor 100 in a " + Vendors.dumpVendorName(1) + " capture skipped (106 bytes)", notes.get(0));
        assertEquals("c.fltrbuf: 2 frames of unknown vendor 107 in a " + Vendors.dumpVendorName(1) + " capture skipped (108 bytes)", notes.get(7));
        assertEquals("c.fltrbuf: 8 more frames of other vendors skipped (" + (108 + 109 + 110 + 111 + 4) + " bytes)", notes.get(8));
    }
}
