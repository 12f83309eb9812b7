package org.flagos.trace.vendors.cupti;

/**
 * The device of each CUDA context, learned from the device records that carry both (kernels,
 * copies, sets), for the records that name only their context (synchronizations). Context ids are
 * small and dense (1, 2, ... per process), so a small table indexed by id holds them; a context
 * not seen yet, or one past the table, is device 0.
 */
final class CuptiContextDevices {
    private static final int CONTEXTS = 256;
    /** Device + 1 per context id; 0 while unknown. */
    private final int[] deviceOf = new int[CONTEXTS];

    void note(int context, int device) {
        if (context >= 0 && context < CONTEXTS) {
            deviceOf[context] = device + 1;
        }
    }

    int device(int context) {
        return context >= 0 && context < CONTEXTS && deviceOf[context] > 0 ? deviceOf[context] - 1 : 0;
    }
}
