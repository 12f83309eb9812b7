package org.flagos.trace.stages.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import org.flagos.trace.stages.names.DemangleNode.Builtin;
import org.flagos.trace.stages.names.DemangleNode.Kind;
import org.flagos.trace.stages.names.DemangleNode.LiteralStyle;
import org.flagos.trace.stages.names.DemangleTrees.Golden;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The printer alone, over trees built by hand: C's inside-out declarators, each literal style, and
 * the guards that make it give up (null) instead of printing something wrong or running away. Each
 * expected text is what GNU c++filt 2.40 printed for the symbol in the comment, the symbol whose
 * parse is the tree built here.
 */
class DemanglePrinterTest {

    private static DemangleNode node(Kind kind, DemangleNode left, DemangleNode right) {
        return new DemangleNode(kind, left, right);
    }

    private static DemangleNode builtin(String name, LiteralStyle style) {
        DemangleNode n = new DemangleNode(Kind.BUILTIN);
        n.builtin = new Builtin(name, style);
        return n;
    }

    private static DemangleNode args(DemangleNode... types) {
        if (types.length == 0) {
            return new DemangleNode(Kind.ARGLIST);
        }
        DemangleNode list = null;
        for (int i = types.length - 1; i >= 0; i--) {
            list = node(Kind.ARGLIST, types[i], list);
        }
        return list;
    }

    /** {@code name(params)}: a plain function, no return type printed. */
    private static DemangleNode function(String name, DemangleNode... params) {
        return node(Kind.TYPED_NAME, DemangleNode.name(name), node(Kind.FUNCTION_TYPE, null, args(params)));
    }

    private static final DemangleNode INT = builtin("int", LiteralStyle.INT);
    private static final DemangleNode VOID = builtin("void", LiteralStyle.VOID);

    @Test
    void declaratorsArePrintedInsideOut() {
        // _Z1fPFviE
        assertEquals("f(void (*)(int))", DemanglePrinter.print(function("f",
                node(Kind.POINTER, node(Kind.FUNCTION_TYPE, VOID, args(INT)), null))));
        // _Z1fPA3_i
        assertEquals("f(int (*) [3])", DemanglePrinter.print(function("f",
                node(Kind.POINTER, node(Kind.ARRAY_TYPE, DemangleNode.name("3"), INT), null))));
        // _Z1fPKc
        assertEquals("f(char const*)", DemanglePrinter.print(function("f",
                node(Kind.POINTER, node(Kind.CONST, builtin("char", LiteralStyle.DEFAULT), null), null))));
        // _Z1fPVKi: qualifiers print innermost first
        assertEquals("f(int const volatile*)", DemanglePrinter.print(function("f",
                node(Kind.POINTER, node(Kind.VOLATILE, node(Kind.CONST, INT, null), null), null))));
        // _Z1fRA3_PFivE, through the parser: a reference to an array of pointers to functions
        assertEquals("f(int (* (&) [3])())", DemanglePrinter.print(DemangleParser.parse("_Z1fRA3_PFivE")));
        // _Z1fM1AFivE: a pointer to member function
        assertEquals("f(int (A::*)())", DemanglePrinter.print(function("f",
                node(Kind.PTRMEM_TYPE, DemangleNode.name("A"), node(Kind.FUNCTION_TYPE, INT, args())))));
        // _Z1fv
        assertEquals("f()", DemanglePrinter.print(function("f")));
    }

    @Test
    void nestedTemplateArgumentsKeepCxxfiltsSpaceBeforeTheClosingBracket() {
        // _Z1fN1AIN1BIiEEEE: f(A<B<int> >)
        DemangleNode inner = node(Kind.TEMPLATE, DemangleNode.name("B"), node(Kind.TEMPLATE_ARGLIST, INT, null));
        DemangleNode outer = node(Kind.TEMPLATE, DemangleNode.name("A"), node(Kind.TEMPLATE_ARGLIST, inner, null));
        assertEquals("f(A<B<int> >)", DemanglePrinter.print(function("f", outer)));
    }

    /** {@code void t<literal>()}: the template function {@code _Z1tI<literal>Evv}. */
    private static String literal(Kind kind, DemangleNode type, String digits) {
        DemangleNode lit = node(kind, type, DemangleNode.name(digits));
        DemangleNode template = node(Kind.TEMPLATE, DemangleNode.name("t"), node(Kind.TEMPLATE_ARGLIST, lit, null));
        return DemanglePrinter.print(node(Kind.TYPED_NAME, template, node(Kind.FUNCTION_TYPE, VOID, args())));
    }

    @ParameterizedTest(name = "{0} {1} -> {4}")
    @CsvSource(delimiter = '|', value = {
        // builtin    | style              | negative | digits | c++filt of _Z1tI<code>Evv
        "int                | INT                | false | 4        | void t<4>()",            // Li4E
        "int                | INT                | true  | 4        | void t<-4>()",           // Lin4E
        "unsigned int       | UNSIGNED           | false | 4        | void t<4u>()",           // Lj4E
        "long               | LONG               | false | 4        | void t<4l>()",           // Ll4E
        "unsigned long      | UNSIGNED_LONG      | false | 4        | void t<4ul>()",          // Lm4E
        "long long          | LONG_LONG          | false | 4        | void t<4ll>()",          // Lx4E
        "unsigned long long | UNSIGNED_LONG_LONG | false | 4        | void t<4ull>()",         // Ly4E
        "bool               | BOOL               | false | 0        | void t<false>()",        // Lb0E
        "bool               | BOOL               | false | 1        | void t<true>()",         // Lb1E
        "bool               | BOOL               | false | 2        | void t<(bool)2>()",      // Lb2E
        "char               | DEFAULT            | false | 120      | void t<(char)120>()",    // Lc120E
        "short              | DEFAULT            | true  | 7        | void t<(short)-7>()",    // Lsn7E
        "float              | FLOAT              | false | 3f800000 | void t<(float)[3f800000]>()", // Lf3f800000E
    })
    void eachLiteralStyleIsWrittenAsCxxfiltWritesIt(String type, LiteralStyle style, boolean negative, String digits,
                                                    String expected) {
        assertEquals(expected, literal(negative ? Kind.LITERAL_NEG : Kind.LITERAL, builtin(type, style), digits));
    }

    @Test
    void aLiteralOfANamedTypeIsACast() {
        // _Z1tIL4Mode2EEvv
        assertEquals("void t<(Mode)2>()", literal(Kind.LITERAL, DemangleNode.name("Mode"), "2"));
    }

    @Test
    void aTemplateParameterIsPrintedAsItsArgument() {
        // _Z4tmplIfLi4ELb1EEvPT_PKS0_ -> void tmpl<float, 4, true>(float*, float const*)
        DemangleNode param = new DemangleNode(Kind.TEMPLATE_PARAM);
        DemangleNode targs = node(Kind.TEMPLATE_ARGLIST, builtin("float", LiteralStyle.FLOAT), null);
        DemangleNode template = node(Kind.TEMPLATE, DemangleNode.name("tmpl"), targs);
        DemangleNode pointer = node(Kind.POINTER, param, null);
        DemangleNode sig = node(Kind.FUNCTION_TYPE, VOID, args(pointer, node(Kind.POINTER, node(Kind.CONST, param, null), null)));
        assertEquals("void tmpl<float>(float*, float const*)", DemanglePrinter.print(node(Kind.TYPED_NAME, template, sig)));
    }

    @Test
    void whatCannotBePrintedRightIsNotPrinted() {
        // a template parameter outside any template: no argument to print
        assertNull(DemanglePrinter.print(function("f", new DemangleNode(Kind.TEMPLATE_PARAM))));
        // a substitution that refers to itself (a cycle) ends, unprinted
        DemangleNode cycle = new DemangleNode(Kind.POINTER);
        cycle.left = cycle;
        assertNull(DemanglePrinter.print(function("f", cycle)));
        // a missing child
        assertNull(DemanglePrinter.print(function("f", node(Kind.POINTER, null, null))));
        // a rendering past 256K characters
        assertEquals(200_000, DemanglePrinter.print(DemangleNode.name("a".repeat(200_000))).length());
        assertTrue(DemanglePrinter.print(DemangleNode.name("a".repeat(300_000))) == null, "300,000 characters printed");
        assertTrue(DemanglePrinter.print(function("f", DemangleNode.name("b".repeat(200_000)),
                DemangleNode.name("c".repeat(70_000)))) == null, "270,000 characters printed");
        // nesting past the printer's depth, which a hand-built tree can reach past the parser's bound
        DemangleNode deep = INT;
        for (int i = 0; i < 500; i++) {
            deep = node(Kind.POINTER, deep, null);
        }
        assertTrue(DemanglePrinter.print(function("f", deep)) == null, "500 nested pointers printed");
        DemangleNode shallow = INT;
        for (int i = 0; i < 150; i++) {
            shallow = node(Kind.POINTER, shallow, null);
        }
        assertEquals("f(int" + "*".repeat(150) + ")", DemanglePrinter.print(function("f", shallow)));
    }

    @Test
    void printingLeavesTheTreeAsItFoundIt() {
        for (Golden g : DemangleTrees.golden()) {
            if (!g.mangled().startsWith("_Z") || g.expected().equals(g.mangled())) {
                continue;
            }
            DemangleNode tree = DemangleParser.parse(g.mangled());
            String first = DemanglePrinter.print(tree);
            assertEquals(g.expected(), first, g.mangled());
            assertEquals(first, DemanglePrinter.print(tree), g.mangled() + ": printed twice");
            for (DemangleNode n : reachable(tree)) {
                assertEquals(0, n.printing, g.mangled() + ": a " + n.kind + " node left marked as being printed");
            }
        }
    }

    private static Set<DemangleNode> reachable(DemangleNode root) {
        Set<DemangleNode> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<DemangleNode> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            DemangleNode n = todo.pop();
            if (n != null && seen.add(n)) {
                todo.push(n.left == null ? root : n.left);
                todo.push(n.right == null ? root : n.right);
            }
        }
        return seen;
    }
}
