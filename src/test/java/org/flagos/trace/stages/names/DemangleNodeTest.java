package org.flagos.trace.stages.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.flagos.trace.stages.names.DemangleNode.Kind;
import org.junit.jupiter.api.Test;

/**
 * The node's own logic: which kinds are a function's qualifiers (printed after its parameter list)
 * and which are a type's cv-qualifiers (printed after the type), as the parser makes them for a
 * member function and for a pointer, and as c++filt 2.40 prints them.
 */
class DemangleNodeTest {

    @Test
    void functionQualifiersAndCvQualifiersAreTheKindsTheGrammarNames() {
        Set<Kind> function = EnumSet.noneOf(Kind.class);
        Set<Kind> cv = EnumSet.noneOf(Kind.class);
        for (Kind k : Kind.values()) {
            if (k.isFunctionQualifier()) {
                function.add(k);
            }
            if (k.isCvQualifier()) {
                cv.add(k);
            }
        }
        assertEquals(EnumSet.of(Kind.RESTRICT_THIS, Kind.VOLATILE_THIS, Kind.CONST_THIS, Kind.REFERENCE_THIS,
                Kind.RVALUE_REFERENCE_THIS, Kind.TRANSACTION_SAFE, Kind.NOEXCEPT, Kind.THROW_SPEC), function);
        assertEquals(EnumSet.of(Kind.RESTRICT, Kind.VOLATILE, Kind.CONST), cv);
    }

    @Test
    void theParserMakesAMemberFunctionsConstAFunctionQualifierAndAPointeesConstACvQualifier() {
        // foo::bar() const volatile &
        DemangleNode member = DemangleParser.parse("_ZNVKR3foo3barEv").left;
        for (DemangleNode q = member; q.kind != Kind.QUAL_NAME; q = q.left) {
            assertTrue(q.kind.isFunctionQualifier(), q.kind.toString());
            assertFalse(q.kind.isCvQualifier(), q.kind.toString());
        }
        assertEquals("foo::bar() const volatile &", ItaniumDemangler.demangle("_ZNVKR3foo3barEv"));
        assertEquals("foo::bar() const &&", ItaniumDemangler.demangle("_ZNKO3foo3barEv"));
        // f(int const volatile restrict*)
        DemangleNode pointee = DemangleParser.parse("_Z1fPrVKi").right.right.left.left;
        for (DemangleNode q = pointee; q.kind != Kind.BUILTIN; q = q.left) {
            assertTrue(q.kind.isCvQualifier(), q.kind.toString());
            assertFalse(q.kind.isFunctionQualifier(), q.kind.toString());
        }
        assertEquals("f(int const volatile restrict*)", ItaniumDemangler.demangle("_Z1fPrVKi"));
    }

    @Test
    void aNameNodeIsALeafWithItsText() {
        DemangleNode n = DemangleNode.name("relu");
        assertEquals(Kind.NAME, n.kind);
        assertEquals("relu", n.text);
        assertNull(n.left);
        assertNull(n.right);
        assertEquals(0, n.printing);
        assertEquals("relu", DemanglePrinter.print(n));
    }
}
