package org.flagos.trace.stages;

import java.util.Objects;

/**
 * The ring's generic stages before the trace walk, as the walk reads them: once, at the end of the
 * capture, for their counts (the accounting's), the window's bounds and the join's horizon. Vendor
 * stages are not among them: the walk never reads those.
 *
 * @param names  the name stage
 * @param join   the external-correlation join
 * @param window the capture window
 * @param ranges the annotation-range join, after the window
 */
public record StagesBeforeWalk(NameStage names, ExternalCorrelationJoin join, CaptureWindowFilter window,
                               AnnotationRangeJoin ranges) {
    public StagesBeforeWalk {
        Objects.requireNonNull(names, "names");
        Objects.requireNonNull(join, "join");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(ranges, "ranges");
    }

    /** These stages with a new annotation-range join that remembers calls for the join's horizon. */
    public static StagesBeforeWalk of(NameStage names, ExternalCorrelationJoin join, CaptureWindowFilter window) {
        return new StagesBeforeWalk(names, join, window, new AnnotationRangeJoin(join.horizon()));
    }
}
