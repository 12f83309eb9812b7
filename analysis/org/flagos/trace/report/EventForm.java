package org.flagos.trace.report;

import java.util.Arrays;

/**
 * One form of event that {@link SummaryScan} has checked whole: its bytes, where its numbers are and which field each
 * is the value of, and the values the summary read from it. An event whose bytes equal these but for its numbers
 * (each one checked by the scan's own grammar and rules) is the same JSON with other numbers: its fields are the form's,
 * but for the numbers that differ, read again where they stand.
 */
final class EventForm {
    final byte[] bytes;
    /** Where each number of the form starts and ends in {@link #bytes}, and the field it is the value of (the scan's codes). */
    final int[] numberFrom;
    final int[] numberTo;
    final int[] numberField;
    /** The hash of the bytes outside the numbers ({@link #shapeHash}). */
    final int shape;
    /** The form of the event after the last one of this form: the guess for the next event. */
    EventForm next;
    /** Whether the values below are set (by the scan that made the form, from the event it was made of). */
    boolean filled;

    // what the summary read of the form's event: texts, the pid and tid, and each number field's value
    String ph;
    String cat;
    String name;
    String dtype;
    String pid;
    String tid;
    int pidKind;
    int tidKind;
    long pidNumber;
    long tsNs;
    long durNs;
    long externalId;
    long device;
    long deviceType;
    long totalAllocated;
    long inElems;
    long outElems;

    /** A form of the event {@code b[from, to)}, whose numbers (offsets in {@code b}) are {@code count} of these. */
    EventForm(byte[] b, int from, int to, int[] numberFrom, int[] numberTo, int[] numberField, int count, int shape) {
        this.bytes = Arrays.copyOfRange(b, from, to);
        this.numberFrom = new int[count];
        this.numberTo = new int[count];
        this.numberField = Arrays.copyOf(numberField, count);
        for (int k = 0; k < count; k++) {
            this.numberFrom[k] = numberFrom[k] - from;
            this.numberTo[k] = numberTo[k] - from;
        }
        this.shape = shape;
    }

    /** The length of the form's event in bytes. */
    int length() {
        return bytes.length;
    }

    /**
     * The hash of the event {@code b[from, to)} without its numbers ({@code count} of them, offsets in {@code b}): equal
     * for events of one form, whatever their numbers.
     */
    static int shapeHash(byte[] b, int from, int to, int[] numberFrom, int[] numberTo, int[] numberField, int count) {
        int h = count;
        int at = from;
        for (int k = 0; k <= count; k++) {
            int end = k < count ? numberFrom[k] : to;
            for (int j = at; j < end; j++) {
                h = 31 * h + b[j];
            }
            if (k < count) {
                h = 31 * h + numberField[k];
                at = numberTo[k];
            }
        }
        return h;
    }

    /** Whether the event {@code b[from, to)} with these numbers is of this form: its bytes outside them and their fields the same. */
    boolean sameShape(byte[] b, int from, int to, int[] numberFrom, int[] numberTo, int[] numberField, int count) {
        if (count != this.numberFrom.length) {
            return false;
        }
        int at = from;
        int mine = 0;
        for (int k = 0; k <= count; k++) {
            int end = k < count ? numberFrom[k] : to;
            int myEnd = k < count ? this.numberFrom[k] : bytes.length;
            if (!Arrays.equals(b, at, end, bytes, mine, myEnd)) {
                return false;
            }
            if (k < count) {
                if (numberField[k] != this.numberField[k]) {
                    return false;
                }
                at = numberTo[k];
                mine = this.numberTo[k];
            }
        }
        return true;
    }
}
