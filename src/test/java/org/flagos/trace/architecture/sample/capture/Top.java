package org.flagos.trace.architecture.sample.capture;

/** The sample's assembly: it may use every floor below it. */
public final class Top {
    public Object stage() {
        return new org.flagos.trace.architecture.sample.stages.Stage();
    }
}
