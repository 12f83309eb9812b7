package org.flagos.trace.report;

/**
 * Names cut to a column's width for the compact table. A name that fits is kept as it is. A longer
 * C++ name (a kernel's demangled signature) loses, in this order and only as far as needed, its
 * {@code void} return type, the insides of its template arguments and parameter list ({@code <>},
 * {@code ()} stay, so it still reads as a template and a call) and its leading namespaces: what is
 * left is the function's own name, which is what tells kernels apart. Anything still too long is cut
 * at the end with "...", as torch cuts every long name.
 */
final class ShortNames {
    private ShortNames() {
    }

    static String fit(String name, int width) {
        if (name.length() <= width) {
            return name;
        }
        String s = name.startsWith("void ") ? name.substring(5) : name;
        if (s.length() > width) {
            s = emptyBrackets(s);
        }
        while (s.length() > width) {
            int colons = outerColons(s);
            if (colons < 0) {
                break;
            }
            s = s.substring(colons + 2);
        }
        return s.length() <= width ? s : s.substring(0, width - 3) + "...";
    }

    /** {@code a<b<c>>(d, e)} to {@code a<>()}: what nests inside angle brackets and parentheses goes. */
    private static String emptyBrackets(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int depth = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean open = c == '<' || c == '(';
            boolean close = c == '>' || c == ')';
            if (depth == 0 || (depth == 1 && close)) {
                out.append(c);
            }
            depth = Math.max(0, depth + (open ? 1 : close ? -1 : 0));
        }
        return out.toString();
    }

    /** The first {@code ::} outside brackets, or -1. */
    private static int outerColons(String s) {
        int depth = 0;
        for (int i = 0; i + 1 < s.length(); i++) {
            char c = s.charAt(i);
            depth += c == '<' || c == '(' ? 1 : c == '>' || c == ')' ? -1 : 0;
            if (depth == 0 && c == ':' && s.charAt(i + 1) == ':') {
                return i;
            }
        }
        return -1;
    }
}
