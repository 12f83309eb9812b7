package org.flagos.trace.stages;

import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;

/** An API-name table that names nothing, for tests of stages after the name stage. */
final class TraceWalkTestNames {
    static final ApiNames NONE = new ApiNames() {
        @Override
        public String name(EventKind kind, int cbid) {
            return null;
        }

        @Override
        public String genericLabel(EventKind kind) {
            return kind.category();
        }
    };

    private TraceWalkTestNames() {
    }
}
