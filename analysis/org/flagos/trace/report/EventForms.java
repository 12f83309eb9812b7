package org.flagos.trace.report;

/**
 * The forms of event one {@link SummaryScan} has met ({@link EventForm}), and which one to try for the next event: the
 * one that followed the last event's form the last time. Traces repeat a few sequences of forms (a launch, its kernel,
 * its flow's two ends; a training step's ops), so the guess is most often right; a wrong guess costs one comparison
 * that stops at the first differing byte. Bounded: at most {@link #MAX_FORMS} forms of at most {@link #MAX_BYTES} bytes
 * and {@link #MAX_NUMBERS} numbers each (past the bound the forms are dropped and learnt again). A trace whose events
 * seldom repeat a form (under one in {@link #MIN_HITS_OF} of a window of {@link #WINDOW}) is scanned without forms for a
 * while ({@link #REST} windows), so that it pays no more than the guesses' cost. Not shared between threads.
 */
final class EventForms {
    static final int MAX_FORMS = 256;
    static final int MAX_BYTES = 2048;
    static final int MAX_NUMBERS = 48;
    static final int WINDOW = 1024;
    static final int MIN_HITS_OF = 8;
    static final int REST = 16;
    private static final int TABLE_BITS = 10;

    /** Forms by the hash of their shape, open addressing. */
    private EventForm[] table = new EventForm[1 << TABLE_BITS];
    private int size;
    /** The form of the last event, null where it had none. */
    private EventForm last;
    private int events;
    private int hits;
    private int resting;

    /** The form to try for the next event; null: none (none known, or resting). */
    EventForm guess() {
        return resting > 0 || last == null ? null : last.next;
    }

    /** The event just scanned was of the guessed form {@code f}. */
    void hit(EventForm f) {
        hits++;
        follow(f);
    }

    /** The event just scanned was not of a known form's guess; {@code f} is its form (null: none kept). */
    void missed(EventForm f) {
        follow(f);
    }

    private void follow(EventForm f) {
        if (last != null && f != null) {
            last.next = f;
        }
        last = f;
        if (++events == WINDOW) {
            if (resting > 0) {
                resting--;
            } else if (hits * MIN_HITS_OF < WINDOW) {
                resting = REST;
                last = null;
            }
            events = 0;
            hits = 0;
        }
    }

    /** Whether forms are learnt now (not while resting). */
    boolean learning() {
        return resting == 0;
    }

    /**
     * The known form of the event {@code b[from, to)} with these numbers, or a new one (not {@link EventForm#filled} yet),
     * or null where the event is past the bounds.
     */
    EventForm find(byte[] b, int from, int to, int[] numberFrom, int[] numberTo, int[] numberField, int count) {
        if (to - from > MAX_BYTES || count > MAX_NUMBERS) {
            return null;
        }
        int shape = EventForm.shapeHash(b, from, to, numberFrom, numberTo, numberField, count);
        int mask = table.length - 1;
        int slot = shape * 0x9E3779B1 >>> (32 - TABLE_BITS);
        for (EventForm f = table[slot]; f != null; f = table[slot = (slot + 1) & mask]) {
            if (f.shape == shape && f.sameShape(b, from, to, numberFrom, numberTo, numberField, count)) {
                return f;
            }
        }
        if (size == MAX_FORMS) { // a trace of many forms: start again, so that the forms kept are its latest
            table = new EventForm[1 << TABLE_BITS];
            size = 0;
            last = null;
            slot = shape * 0x9E3779B1 >>> (32 - TABLE_BITS);
        }
        EventForm f = new EventForm(b, from, to, numberFrom, numberTo, numberField, count, shape);
        table[slot] = f;
        size++;
        return f;
    }
}
