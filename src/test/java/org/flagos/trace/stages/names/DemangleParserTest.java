package org.flagos.trace.stages.names;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.flagos.trace.stages.names.DemangleNode.Kind;
import org.flagos.trace.stages.names.DemangleTrees.Golden;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parser alone: the tree it builds for names whose c++filt text is known (the golden rows), that
 * a substitution is the very node it refers to (the tree is a DAG), that it accepts exactly the
 * golden symbols c++filt demangles and refuses the ones c++filt leaves alone, and its bounds.
 */
class DemangleParserTest {

    @Test
    void aFunctionIsItsNameTypedByItsParameterList() {
        // relu(float*, int): no return type on a plain function
        assertEquals("(TYPED_NAME (NAME 'relu') (FUNCTION_TYPE _ (ARGLIST (POINTER (BUILTIN float) _)"
                + " (ARGLIST (BUILTIN int) _))))", DemangleTrees.sexp(DemangleParser.parse("_Z4reluPfi")));
        // a bare name is a complete symbol, as c++filt agrees ("relu")
        assertEquals("(NAME 'relu')", DemangleTrees.sexp(DemangleParser.parse("_Z4relu")));
        // void f(): the v of an empty parameter list leaves the list empty
        assertEquals("(TYPED_NAME (NAME 'f') (FUNCTION_TYPE _ (ARGLIST)))", DemangleTrees.sexp(DemangleParser.parse("_Z1fv")));
    }

    @Test
    void templateFunctionsCarryTheirArgumentsAndReturnType() {
        // golden: void tmpl<float, 4, true>(float*, float const*)
        assertEquals("(TYPED_NAME (TEMPLATE (NAME 'tmpl') (TEMPLATE_ARGLIST (BUILTIN float)"
                + " (TEMPLATE_ARGLIST (LITERAL (BUILTIN int) (NAME '4')) (TEMPLATE_ARGLIST (LITERAL (BUILTIN bool) (NAME '1')) _))))"
                + " (FUNCTION_TYPE (BUILTIN void) (ARGLIST (POINTER (TEMPLATE_PARAM) _) (ARGLIST (POINTER (CONST (TEMPLATE_PARAM) _) _) _))))",
                DemangleTrees.sexp(DemangleParser.parse("_Z4tmplIfLi4ELb1EEvPT_PKS0_")));
        // golden: void tmpl<double, -3, false>(...): a negative literal is its own kind over the digits
        assertEquals("(LITERAL_NEG (BUILTIN int) (NAME '3'))",
                DemangleTrees.sexp(DemangleParser.parse("_Z4tmplIdLin3ELb0EEvPT_PKS0_").left.right.right.left));
        // golden: void enumk<(Mode)2>(int): a literal of a named type
        assertEquals("(LITERAL (NAME 'Mode') (NAME '2'))",
                DemangleTrees.sexp(DemangleParser.parse("_Z5enumkIL4Mode2EEvi").left.right.left));
    }

    @Test
    void nestedNamesQualifiersAndConstructors() {
        assertEquals("(TYPED_NAME (QUAL_NAME (QUAL_NAME (NAME 'cub') (NAME 'detail')) (NAME 'scan')) (FUNCTION_TYPE _ (ARGLIST)))",
                DemangleTrees.sexp(DemangleParser.parse("_ZN3cub6detail4scanEv")));
        // foo::bar() const: the const of a member function wraps the name, as a function qualifier
        DemangleNode member = DemangleParser.parse("_ZNK3foo3barEv");
        assertEquals(Kind.CONST_THIS, member.left.kind);
        assertTrue(member.left.kind.isFunctionQualifier());
        // A::A(): a constructor takes the name of the class it is in
        assertEquals("(TYPED_NAME (QUAL_NAME (NAME 'A') (CTOR (NAME 'A') _)) (FUNCTION_TYPE _ (ARGLIST)))",
                DemangleTrees.sexp(DemangleParser.parse("_ZN1AC1Ev")));
        // f(void (*)(int)): a pointer to a function type
        assertEquals("(TYPED_NAME (NAME 'f') (FUNCTION_TYPE _ (ARGLIST (POINTER (FUNCTION_TYPE (BUILTIN void)"
                + " (ARGLIST (BUILTIN int) _)) _) _)))", DemangleTrees.sexp(DemangleParser.parse("_Z1fPFviE")));
    }

    @Test
    void aSubstitutionIsTheNodeItRefersTo() {
        // f(Foo*, Foo*): S_ is Foo, S0_ is Foo*
        DemangleNode args = DemangleParser.parse("_Z1fP3FooS0_").right.right;
        assertSame(args.left, args.right.left, "S0_ is the first parameter's node itself");
        DemangleNode pointee = DemangleParser.parse("_Z1fP3FooS_").right.right;
        assertSame(pointee.left.left, pointee.right.left, "S_ is the pointee Foo itself");
        // two spellings of one type without a substitution are two nodes
        DemangleNode twice = DemangleParser.parse("_Z1fP3FooP3Foo").right.right;
        assertNotSame(twice.left, twice.right.left);
        assertEquals(DemangleTrees.sexp(twice.left), DemangleTrees.sexp(twice.right.left));
        // a substitution past the candidates seen so far is malformed
        assertThrows(DemangleParser.Failure.class, () -> DemangleParser.parse("_Z1fP3FooS1_"));
        // std::swap(int&, int&): St is the std:: prefix and the function's name is no candidate, so S_ is int&
        DemangleNode swap = DemangleParser.parse("_ZSt4swapRiS_");
        assertEquals("(QUAL_NAME (NAME 'std') (NAME 'swap'))", DemangleTrees.sexp(swap.left));
        assertSame(swap.right.right.left, swap.right.right.right.left);
        assertEquals(Kind.REFERENCE, swap.right.right.left.kind);
    }

    @Test
    void acceptsExactlyTheGoldenSymbolsThatCxxfiltDemangles() {
        List<Golden> rows = DemangleTrees.golden();
        int parsed = 0;
        int refused = 0;
        for (Golden g : rows) {
            if (!g.mangled().startsWith("_Z")) {
                continue;
            }
            if (g.expected().equals(g.mangled())) {
                // c++filt left it alone: the parser refuses it (or the printer finds it unprintable)
                String out = null;
                try {
                    out = DemanglePrinter.print(DemangleParser.parse(g.mangled()));
                } catch (DemangleParser.Failure expected) {
                    refused++;
                    continue;
                }
                assertEquals(null, out, g.mangled() + " parsed and printed, but c++filt leaves it alone");
                refused++;
            } else {
                assertDoesNotThrow(() -> DemangleParser.parse(g.mangled()), g.mangled());
                parsed++;
            }
        }
        assertTrue(parsed >= 150, parsed + " golden symbols parsed");
        assertTrue(refused >= 5, refused + " golden symbols refused");
    }

    @ParameterizedTest
    @ValueSource(strings = {"_Z", "_Z1", "_Zfoo", "_Z4reluPfi_", "_Z4reluPfiE", "_Z1fv1", "_Z4reluP", "_Z99relu",
        "_Z1fIiEvS0_"})
    void malformedSymbolsAreRefused(String symbol) {
        assertThrows(DemangleParser.Failure.class, () -> DemangleParser.parse(symbol));
    }

    @Test
    void nestingIsBounded() {
        // c++filt itself prints 250 nested pointers; this parser stops below 200 levels by design
        DemangleNode deep = DemangleParser.parse("_Z1f" + "P".repeat(190) + "i");
        int depth = 0;
        for (DemangleNode n = deep.right.right.left; n.kind == Kind.POINTER; n = n.left) {
            depth++;
        }
        assertEquals(190, depth);
        assertThrows(DemangleParser.Failure.class, () -> DemangleParser.parse("_Z1f" + "P".repeat(250) + "i"));
        assertThrows(DemangleParser.Failure.class, () -> DemangleParser.parse("_Z1f" + "P".repeat(100_000) + "i"));
        // a number past an int is refused, not wrapped
        assertThrows(DemangleParser.Failure.class, () -> DemangleParser.parse("_Z99999999999relu"));
    }

    @Test
    void aFailureCarriesNoStackTrace() {
        DemangleParser.Failure f = assertThrows(DemangleParser.Failure.class, () -> DemangleParser.parse("_Z4reluPfi_"));
        assertEquals(0, f.getStackTrace().length, "thrown for every malformed name: cheap");
    }
}
