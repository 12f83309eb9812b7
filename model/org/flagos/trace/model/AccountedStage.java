package org.flagos.trace.model;

import java.util.function.Consumer;

/**
 * A vendor stage whose bounds can overflow: the pipeline hands it the capture's notes, and the
 * stage adds a line there (the trace's {@code flagtrace.notes}, the CLI's report) when it had to go
 * past one, so no overflow is silent.
 */
public interface AccountedStage {
    /** Where the stage adds its lines; called once, before the first record. */
    void notesTo(Consumer<String> notes);
}
