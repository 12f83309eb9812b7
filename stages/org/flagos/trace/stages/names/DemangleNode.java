package org.flagos.trace.stages.names;

/**
 * One node of a parsed Itanium mangled name. The tree is built by {@link DemangleParser} and
 * rendered by {@link DemanglePrinter}; substitutions make it a DAG, so nodes are shared.
 */
final class DemangleNode {

    enum Kind {
        NAME,
        QUAL_NAME,
        LOCAL_NAME,
        TYPED_NAME,
        TEMPLATE,
        TEMPLATE_PARAM,
        FUNCTION_PARAM,
        CTOR,
        DTOR,
        SPECIAL,
        CONSTRUCTION_VTABLE,
        REFTEMP,
        SUB_STD,
        RESTRICT,
        VOLATILE,
        CONST,
        RESTRICT_THIS,
        VOLATILE_THIS,
        CONST_THIS,
        REFERENCE_THIS,
        RVALUE_REFERENCE_THIS,
        TRANSACTION_SAFE,
        NOEXCEPT,
        THROW_SPEC,
        VENDOR_TYPE_QUAL,
        POINTER,
        REFERENCE,
        RVALUE_REFERENCE,
        COMPLEX,
        IMAGINARY,
        BUILTIN,
        VENDOR_TYPE,
        FUNCTION_TYPE,
        ARRAY_TYPE,
        PTRMEM_TYPE,
        VECTOR_TYPE,
        ARGLIST,
        TEMPLATE_ARGLIST,
        INITIALIZER_LIST,
        OPERATOR,
        EXTENDED_OPERATOR,
        CAST,
        CONVERSION,
        NULLARY,
        UNARY,
        BINARY,
        BINARY_ARGS,
        TRINARY,
        TRINARY_ARG1,
        TRINARY_ARG2,
        LITERAL,
        LITERAL_NEG,
        DECLTYPE,
        PACK_EXPANSION,
        LAMBDA,
        UNNAMED_TYPE,
        DEFAULT_ARG,
        TAGGED_NAME,
        CLONE,
        NUMBER,
        STRUCTURED_BINDING,
        MODULE_NAME,
        MODULE_PARTITION,
        MODULE_ENTITY;

        /** Qualifiers that belong to a function type (or member function) and print after it. */
        boolean isFunctionQualifier() {
            switch (this) {
                case RESTRICT_THIS:
                case VOLATILE_THIS:
                case CONST_THIS:
                case REFERENCE_THIS:
                case RVALUE_REFERENCE_THIS:
                case TRANSACTION_SAFE:
                case NOEXCEPT:
                case THROW_SPEC:
                    return true;
                default:
                    return false;
            }
        }

        boolean isCvQualifier() {
            return this == RESTRICT || this == VOLATILE || this == CONST;
        }
    }

    /** How a literal of a builtin type is rendered. */
    enum LiteralStyle {
        DEFAULT, INT, UNSIGNED, LONG, UNSIGNED_LONG, LONG_LONG, UNSIGNED_LONG_LONG, BOOL, FLOAT, VOID
    }

    /** A builtin type: its spelling and literal style. */
    static final class Builtin {
        final String name;
        final LiteralStyle style;

        Builtin(String name, LiteralStyle style) {
            this.name = name;
            this.style = style;
        }
    }

    /** An operator from the mangling grammar's operator table. */
    static final class Operator {
        final String code;
        final String name;
        final int arity;

        Operator(String code, String name, int arity) {
            this.code = code;
            this.name = name;
            this.arity = arity;
        }
    }

    final Kind kind;
    DemangleNode left;
    DemangleNode right;
    /** Identifier, literal text, or the fixed prefix of a special name. */
    String text;
    /** Template parameter index, lambda/unnamed-type ordinal, function parameter number... */
    int number;
    Builtin builtin;
    Operator operator;
    /** Re-entrancy count while printing; guards against self-referential substitutions. */
    int printing;

    DemangleNode(Kind kind) {
        this.kind = kind;
    }

    DemangleNode(Kind kind, DemangleNode left, DemangleNode right) {
        this.kind = kind;
        this.left = left;
        this.right = right;
    }

    static DemangleNode name(String text) {
        DemangleNode n = new DemangleNode(Kind.NAME);
        n.text = text;
        return n;
    }
}
