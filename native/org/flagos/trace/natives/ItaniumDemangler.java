package org.flagos.trace.natives;

/**
 * Demangler for Itanium C++ ABI symbol names (the scheme used by GCC, Clang and NVCC), producing
 * exactly the text GNU {@code c++filt} prints. CUPTI reports CUDA kernels by their mangled names;
 * this turns {@code _Z4reluPfi} into {@code relu(float*, int)} without a native dependency.
 *
 * <p>Thread-safe and allocation-only: every call parses afresh and shares no state.
 */
public final class ItaniumDemangler {

    private ItaniumDemangler() {
    }

    /**
     * Demangles one symbol.
     *
     * @param symbol a symbol name such as {@code _ZN3cub6detail4scanEv}; may be null
     * @return the demangled rendering as {@code c++filt} would print it, or {@code symbol} itself
     *     when it is null, is not an Itanium mangled name (does not start with {@code _Z}, e.g.
     *     the cuBLAS kernel {@code sm80_xmma_gemm_...}), or is malformed. Never throws; input
     *     nested or repetitive enough to be hostile is bounded and returned unchanged.
     */
    public static String demangle(String symbol) {
        if (symbol == null || !symbol.startsWith("_Z")) {
            return symbol;
        }
        try {
            String out = DemanglePrinter.print(DemangleParser.parse(symbol));
            return out != null ? out : symbol;
        } catch (DemangleParser.Failure e) {
            return symbol;
        } catch (RuntimeException | StackOverflowError e) {
            // Depth limits should make this unreachable; stay total regardless.
            return symbol;
        }
    }
}
