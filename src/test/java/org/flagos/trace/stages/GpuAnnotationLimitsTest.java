package org.flagos.trace.stages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.flagos.trace.model.NameTable;
import org.junit.jupiter.api.Test;

/**
 * The bounds of GPU annotation spans, which no bundled capture reaches: an op holds spans on at most
 * four streams and the rest is counted, a parent's spans are its children's widened by its own, and a
 * span that would partly overlap another on its stream is refused.
 */
class GpuAnnotationLimitsTest {
    private final NameTable names = new NameTable();

    @Test
    void aFifthStreamIsCountedNotKept() {
        HostOpLedger ops = new HostOpLedger(new OpSummaryFold(names), 1 << 10, 1 << 10);
        ops.annotateStreams();
        ops.op(names.intern("op"), 1, 1, 0, 100, -1);
        for (int stream = 0; stream < 5; stream++) {
            ops.device(1, StreamSpans.streamKey(0, stream), 10 + stream, 20 + stream);
        }
        ops.device(1, StreamSpans.streamKey(0, 0), 5, 30); // a stream it holds widens
        ops.finish();
        int slot = ops.nextRow();
        assertEquals(StreamSpans.PER_HOLDER, ops.spans.count(slot));
        assertEquals(5, ops.spans.start(slot, 0));
        assertEquals(30, ops.spans.end(slot, 0));
        assertEquals(1, ops.spansPastLimit(), "the fifth stream's record");
    }

    @Test
    void aParentSpansItsChildrensWorkAndItsOwn() {
        HostOpLedger ops = new HostOpLedger(new OpSummaryFold(names), 1 << 10, 1 << 10);
        ops.annotateStreams();
        int name = names.intern("op");
        long s7 = StreamSpans.streamKey(0, 7);
        long s8 = StreamSpans.streamKey(0, 8);
        ops.device(2, s7, 100, 110); // a child's record before the child: kept for it
        ops.op(name, 1, 1, 0, 1000, -1);
        ops.op(name, 2, 1, 10, 20, -1);
        ops.op(name, 3, 1, 30, 40, -1);
        ops.device(3, s8, 200, 230);
        ops.device(1, s7, 150, 160);
        ops.finish();
        java.util.Map<Long, String> spans = new java.util.HashMap<>();
        for (int slot; (slot = ops.nextRow()) >= 0; ) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < ops.spans.count(slot); i++) {
                b.append(StreamSpans.stream(ops.spans.key(slot, i))).append(':').append(ops.spans.start(slot, i)).append('-')
                        .append(ops.spans.end(slot, i)).append(' ');
            }
            spans.put(ops.externalId[slot], b.toString().trim());
        }
        assertEquals("7:100-110", spans.get(2L));
        assertEquals("8:200-230", spans.get(3L));
        assertEquals("7:100-160 8:200-230", spans.get(1L), "its own record and both children's");
        assertEquals(0, ops.spansPastLimit());
    }

    @Test
    void aSpanThatPartlyOverlapsAnotherOnItsStreamIsRefused() {
        SpanNesting nesting = new SpanNesting();
        long s = StreamSpans.streamKey(0, 7);
        assertTrue(nesting.accept(s, 100, 200));
        assertTrue(nesting.accept(s, 100, 150), "inside, starting with it");
        assertFalse(nesting.accept(s, 140, 260), "crosses the open spans' ends");
        assertTrue(nesting.accept(s, 200, 300), "after both");
        assertTrue(nesting.accept(s, 150, 160), "written after a later span, yet inside the first and after the second");
        assertFalse(nesting.accept(s, 155, 170), "written late and crossing the end of the one before");
        assertFalse(nesting.accept(s, 150, 400), "starts inside the first span");
        assertTrue(nesting.accept(s, 90, 400), "encloses every span so far: the outermost, written last");
        assertTrue(nesting.accept(s, 300, 350), "inside it, after the last one");
        assertFalse(nesting.accept(s, 80, 380), "ends before the last span");
        assertTrue(nesting.accept(StreamSpans.streamKey(0, 8), 150, 160), "another stream is its own nest");
    }

    /**
     * Spans written out of start order (an op's row after later-starting ones: it arrived late, or its
     * parent's span was folded without it) are drawn when they nest, at their depth: a later span then
     * nests with them as with any other.
     */
    @Test
    void aSpanWrittenLateIsTakenWhenItNests() {
        SpanNesting nesting = new SpanNesting();
        long s = StreamSpans.streamKey(0, 7);
        assertTrue(nesting.accept(s, 10, 20));
        assertTrue(nesting.accept(s, 1_000, 9_000), "a parent whose span lacks its first children");
        assertTrue(nesting.accept(s, 1_000, 1_100), "its first child in its span");
        assertTrue(nesting.accept(s, 500, 600), "a child the parent's span missed: before it, after the first span");
        assertTrue(nesting.accept(s, 700, 800), "another");
        assertFalse(nesting.accept(s, 650, 1_050), "crosses the parent's start");
        assertFalse(nesting.accept(s, 15, 650), "crosses the first span's end");
        assertTrue(nesting.accept(s, 400, 9_500), "around the late ones and the parent, late itself");
        assertFalse(nesting.accept(s, 9_200, 9_600), "in order, crossing the late span open at its start");
        assertFalse(nesting.accept(s, 1_050, 9_100), "in order, crossing the parent: a refusal closes no span");
        assertTrue(nesting.accept(s, 1_050, 1_090), "in order, inside the spans the refused one would have closed");
        assertTrue(nesting.accept(s, 9_200, 9_400), "in order, inside the late span");
        assertTrue(nesting.accept(s, 9_600, 9_700), "after it");
        assertFalse(nesting.accept(s, 9_600, 9_800), "around the last one, starting with it: a viewer would nest it inside");
        assertFalse(nesting.accept(s, 9_550, 9_600), "late, ending where the last one begins: a viewer would close that one");
        assertTrue(nesting.accept(s, 9_550, 9_599), "late, just before it");
        assertTrue(nesting.accept(s, 9_610, 9_690), "in order, inside the last one");
        assertFalse(nesting.accept(s, 9_650, 9_695), "in order, crossing the one before");
    }

    /**
     * A span written late that may cross a span no longer among the recent ones ({@link SpanNesting#RECENT})
     * is refused: the check stays bounded, and what it cannot prove nested is counted by the walk.
     */
    @Test
    void aLateSpanBeforeTheRecentOnesIsRefusedUnlessItEnclosesAll() {
        SpanNesting nesting = new SpanNesting();
        long s = StreamSpans.streamKey(1, 3);
        assertTrue(nesting.accept(s, 0, 1_000_000), "an outer span, soon forgotten");
        for (int i = 0; i < SpanNesting.RECENT; i++) {
            assertTrue(nesting.accept(s, 10 + 100L * i, 60 + 100L * i));
        }
        assertFalse(nesting.accept(s, 5, 8), "nested in fact, but the outer span around it is forgotten");
        assertTrue(nesting.accept(s, 2_000_000, 3_000_000), "in order");
        assertTrue(nesting.accept(s, 1_500_000, 1_600_000), "late, after every forgotten span ended");
        assertTrue(nesting.accept(s, -1, 3_000_001), "late, around every span so far");
    }
}
