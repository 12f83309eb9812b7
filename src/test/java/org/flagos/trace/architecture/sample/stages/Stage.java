package org.flagos.trace.architecture.sample.stages;

/** A stage standing on the sample model, as a real stage does. */
public final class Stage {
    public Object record() {
        return new org.flagos.trace.architecture.sample.model.UpwardRecord();
    }
}
