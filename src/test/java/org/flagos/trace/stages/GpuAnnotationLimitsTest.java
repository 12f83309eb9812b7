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
        assertFalse(nesting.accept(s, 150, 160), "written after a later span: cannot be shown nested");
        assertFalse(nesting.accept(s, 150, 400), "starts inside the first span");
        assertTrue(nesting.accept(s, 90, 400), "encloses every span so far: the outermost, written last");
        assertTrue(nesting.accept(s, 300, 350), "inside it, after the last one");
        assertFalse(nesting.accept(s, 80, 380), "ends before the last span");
        assertTrue(nesting.accept(StreamSpans.streamKey(0, 8), 150, 160), "another stream is its own nest");
    }
}
