package org.flagos.trace.cli;

/** {@code flagtrace start [-d DIR] [PID]}: the control verbs' contract ({@link ControlVerbContract}) for {@code start}. */
class StartCommandTest extends ControlVerbContract {
    @Override
    String verb() {
        return "start";
    }
}
