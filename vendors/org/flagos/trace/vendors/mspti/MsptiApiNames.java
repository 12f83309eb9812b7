package org.flagos.trace.vendors.mspti;

import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.EventKind;

/**
 * MSPTI has no callback-id namespace: every API record carries its own name, which the decoder sets.
 * Only a record whose name pointer is null falls back to the generic label. Its API records are
 * {@code privateuse1_runtime}, as torch files Ascend's runtime calls.
 */
public final class MsptiApiNames implements ApiNames {
    /** The one instance. */
    public static final MsptiApiNames INSTANCE = new MsptiApiNames();

    @Override
    public String name(EventKind kind, int cbid) {
        return null;
    }

    @Override
    public String genericLabel(EventKind kind) {
        return "mspti API (unnamed)";
    }

    @Override
    public String category(EventKind kind) {
        return "privateuse1_runtime";
    }

    private MsptiApiNames() {
    }
}
