package org.flagos.trace.architecture.sample.model;

/** A model type that wrongly reaches the assembly: {@code LayeringTest} must report it. */
public final class UpwardRecord {
    public Object top() {
        return new org.flagos.trace.architecture.sample.capture.Top();
    }
}
