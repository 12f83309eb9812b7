package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Names cut to a column's width for the compact table. A name that fits is kept as it is. A longer
 * C++ name (a kernel's demangled signature) loses, in this order and only as far as needed, its
 * {@code void} return type and anonymous namespaces, the insides of its template arguments and parameter list ({@code <>},
 * {@code ()} stay, so it still reads as a template and a call) and its leading namespaces: what is
 * left is the function's own name, which is what tells kernels apart. Anything still too long is cut
 * at the end with "...", as torch cuts every long name. Names that would still print alike are
 * told apart by {@link #fitAll}.
 */
final class ShortNames {
    private ShortNames() {
    }

    /**
     * {@link #fit} of every name, told apart where two different names would print alike (two
     * instantiations of one template, two kernels differing near their end): each of those shows its
     * beginning, then "...", then the stretch where it first differs from the others.
     */
    static List<String> fitAll(List<String> names, int width) {
        List<String> out = new ArrayList<>(names.size());
        Map<String, List<Integer>> alike = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            out.add(fit(names.get(i), width));
            alike.computeIfAbsent(out.get(i), k -> new ArrayList<>()).add(i);
        }
        for (List<Integer> group : alike.values()) {
            for (int i : group) {
                String s = plain(names.get(i));
                int differsAt = -1;
                for (int j : group) {
                    if (!names.get(j).equals(names.get(i))) {
                        differsAt = Math.max(differsAt, commonPrefix(s, plain(names.get(j))));
                    }
                }
                if (differsAt >= 0) {
                    out.set(i, around(out.get(i), s, differsAt, width));
                }
            }
        }
        return out;
    }

    /**
     * The start of the short name, then {@code name} from a little before {@code at}, where it differs
     * from the names it would print alike, within {@code width}.
     */
    private static String around(String shortName, String name, int at, int width) {
        if (name.length() <= width) {
            return name;
        }
        String head = shortName.substring(0, Math.min(width / 3, shortName.length()));
        String r = head + "..." + name.substring(Math.max(0, at - 8));
        return r.length() <= width ? r : r.substring(0, width - 3) + "...";
    }

    private static int commonPrefix(String a, String b) {
        int n = 0;
        while (n < a.length() && n < b.length() && a.charAt(n) == b.charAt(n)) {
            n++;
        }
        return n;
    }

    /** Without a {@code void} return type and {@code (anonymous namespace)::} qualifiers, which tell nothing apart. */
    private static String plain(String name) {
        String s = name.startsWith("void ") ? name.substring(5) : name;
        return s.replace("(anonymous namespace)::", "");
    }

    static String fit(String name, int width) {
        if (name.length() <= width) {
            return name;
        }
        String s = plain(name);
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
