package org.flagos.trace.capture;

import java.util.function.Consumer;
import org.flagos.trace.ingest.HostMark;
import org.flagos.trace.ingest.HostMarkCursor;

/**
 * An {@link ArrivingReplay}'s marks, read by its replay as a marks file's are. A mark arriving after records that went
 * on without it spoils the replay.
 */
final class ArrivingMarks implements HostMarkCursor {
    private final ArrivingQueue<HostMark> marks;
    private final Consumer<String> spoil;

    /** @param spoil told each reason the replay's result may differ from the whole capture's */
    ArrivingMarks(Arrivals arrivals, Consumer<String> spoil) {
        this.marks = new ArrivingQueue<>(arrivals);
        this.spoil = spoil;
    }

    /** A mark, as the marks file holds it. */
    void add(HostMark mark) {
        marks.add(mark);
    }

    /** Marks that arrived and were not taken (under the lock). */
    long notTaken() {
        return marks.notTaken();
    }

    @Override
    public HostMark next() {
        return next(Long.MAX_VALUE);
    }

    @Override
    public HostMark next(long byNs) {
        HostMark mark = marks.next(byNs, NOT_YET);
        if (mark != null && mark != NOT_YET && mark.tsNs() <= marks.notYetNs()) {
            spoil.accept("a mark at " + mark.tsNs() + " arrived after records ending at " + marks.notYetNs() + " went on without it");
        }
        return mark;
    }

    @Override
    public void close() {
    }
}
