package org.flagos.trace.model;

/**
 * A vendor's callback-id namespace: maps a runtime or driver cbid to the API name torch prints.
 * Implementations live with their vendor; the name stage sees only this interface.
 */
public interface ApiNames {
    /** The API name for {@code cbid} of {@code kind} (RUNTIME or DRIVER), or null when unknown. */
    String name(EventKind kind, int cbid);

    /** The label an unknown id keeps (its numeric cbid still travels as an arg). */
    String genericLabel(EventKind kind);

    /**
     * The trace category of this vendor's API records of {@code kind}: torch's names where torch
     * has them ({@code cuda_runtime} for CUDA; {@code privateuse1_runtime} for the accelerators
     * torch reaches through PrivateUse1). CUDA's by default.
     */
    default String category(EventKind kind) {
        return kind.category();
    }
}
