package org.flagos.trace.cli;

/** {@code flagtrace stop [-d DIR] [PID]}: the control verbs' contract ({@link ControlVerbContract}) for {@code stop}. */
class StopCommandTest extends ControlVerbContract {
    @Override
    String verb() {
        return "stop";
    }
}
