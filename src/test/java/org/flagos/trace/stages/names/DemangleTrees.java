package org.flagos.trace.stages.names;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test helpers for the demangler's parts: the c++filt golden rows, and a tree written as one line. */
final class DemangleTrees {
    /** One line of {@code demangle/golden.tsv}: a symbol and what GNU c++filt 2.40 printed for it. */
    record Golden(String mangled, String expected) {
    }

    static List<Golden> golden() {
        List<Golden> rows = new ArrayList<>();
        try (InputStream in = DemangleTrees.class.getResourceAsStream("/demangle/golden.tsv")) {
            assertNotNull(in, "demangle/golden.tsv on the test classpath");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isEmpty()) {
                    int tab = line.indexOf('\t');
                    assertTrue(tab > 0, line);
                    rows.add(new Golden(line.substring(0, tab), line.substring(tab + 1)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /** The tree as {@code (KIND 'text' builtin left right)}, an absent child as {@code _}. */
    static String sexp(DemangleNode n) {
        if (n == null) {
            return "_";
        }
        StringBuilder s = new StringBuilder("(").append(n.kind);
        if (n.text != null) {
            s.append(" '").append(n.text).append('\'');
        }
        if (n.builtin != null) {
            s.append(' ').append(n.builtin.name.replace(' ', '_'));
        }
        if (n.operator != null) {
            s.append(" op:").append(n.operator.code);
        }
        if (n.left != null || n.right != null) {
            s.append(' ').append(sexp(n.left)).append(' ').append(sexp(n.right));
        }
        return s.append(')').toString();
    }

    private DemangleTrees() {
    }
}
