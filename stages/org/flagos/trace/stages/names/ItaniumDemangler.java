package org.flagos.trace.stages.names;

/**
 * Demangler for Itanium C++ ABI symbol names (the scheme used by GCC, Clang and NVCC) that
 * produces exactly the text GNU {@code c++filt} (binutils 2.40, default options) prints. CUPTI
 * reports CUDA kernels by their mangled names; this turns {@code _Z4reluPfi} into
 * {@code relu(float*, int)} without a native dependency.
 *
 * <p>Stateless and thread-safe: every call parses afresh.
 */
public final class ItaniumDemangler {

    private ItaniumDemangler() {
    }

    /**
     * Demangles one symbol.
     *
     * @param symbol a symbol name such as {@code _ZN3cub6detail4scanEv}; may be null
     * @return the demangled rendering as {@code c++filt} would print it (GCC clone suffixes such
     *     as {@code .cold} included, as {@code " [clone .cold]"}), or {@code symbol} itself when it
     *     is null, is not an Itanium mangled name (does not start with {@code _Z}, e.g. the cuBLAS
     *     kernel {@code sm80_xmma_gemm_...}), or cannot be parsed. Never throws. Input nested more
     *     than a couple of hundred levels deep, or whose rendering would exceed 256K characters,
     *     is treated as unparsable, which bounds the time and stack hostile input can take.
     */
    public static String demangle(String symbol) {
        if (symbol == null || !symbol.startsWith("_Z")) {
            return symbol;
        }
        try {
            String out = DemanglePrinter.print(DemangleParser.parse(symbol));
            return out != null ? out : symbol;
        } catch (RuntimeException | StackOverflowError e) {
            // DemangleParser.Failure for malformed input. Anything else would be a bug; the depth
            // limits should keep the stack from overflowing, but stay total regardless.
            return symbol;
        }
    }
}
