package org.flagos.trace.stages.names;

import java.util.IdentityHashMap;
import java.util.Map;

import org.flagos.trace.stages.names.DemangleNode.Kind;
import org.flagos.trace.stages.names.DemangleNode.LiteralStyle;

/**
 * Renders a {@link DemangleNode} tree the way GNU {@code c++filt} does.
 *
 * <p>C declarators are inside-out ({@code void (*f())(int)}), so type constructors such as
 * pointers, references, qualifiers and the function name itself are not printed where they are
 * met: they are pushed on a stack of pending modifiers, and the function or array type that
 * eventually needs them prints them in the right place (inside its parentheses or after its
 * parameter list). Whatever no one claimed is printed as a suffix once the inner type is done.
 *
 * <p>Template parameters ({@code T_}) are resolved while printing, against the template whose
 * signature is being printed, which is what makes substitutions that mention them come out with
 * the argument rather than a placeholder.
 */
final class DemanglePrinter {

    private static final int MAX_DEPTH = 400;
    private static final int MAX_OUTPUT = 1 << 18;
    private static final long MAX_STEPS = 5_000_000L;

    /** A pending declarator modifier. */
    private static final class Mod {
        final DemangleNode node;
        final Scope templates;
        Mod next;
        boolean printed;

        Mod(DemangleNode node, Scope templates, Mod next) {
            this.node = node;
            this.templates = templates;
            this.next = next;
        }
    }

    /** The template instantiations whose arguments {@code T_} currently refers to. */
    private static final class Scope {
        final DemangleNode template;
        final Scope next;

        Scope(DemangleNode template, Scope next) {
            this.template = template;
            this.next = next;
        }
    }

    private final StringBuilder out = new StringBuilder();
    private char last;
    private Mod mods;
    private Scope templates;
    /** Inside a lambda's parameter list, template parameters are generic-lambda {@code auto}s. */
    private int lambdaArgs;
    private int packIndex;
    /** The template being printed; a conversion operator's type may use its parameters. */
    private DemangleNode currentTemplate;
    private boolean failed;
    private int depth;
    /** Nodes being printed, outermost first. */
    private final DemangleNode[] frames = new DemangleNode[MAX_DEPTH + 1];
    private int frameTop;
    /** Template scope in force where each reference-to-T_ node was first printed. */
    private final Map<DemangleNode, Scope> savedScopes = new IdentityHashMap<>();
    private long steps;

    private DemanglePrinter() {
    }

    /** Returns the rendering, or null if the tree cannot be printed (e.g. an unbound T_). */
    static String print(DemangleNode root) {
        DemanglePrinter p = new DemanglePrinter();
        p.print0(root);
        return p.failed ? null : p.out.toString();
    }

    // ---------------------------------------------------------------- output helpers

    private void append(String s) {
        if (!s.isEmpty()) {
            out.append(s);
            last = s.charAt(s.length() - 1);
            if (out.length() > MAX_OUTPUT) {
                failed = true;
            }
        }
    }

    private void append(char c) {
        out.append(c);
        last = c;
    }

    /**
     * The last character appended. Deliberately not updated when an empty pack's ", " is taken
     * back out, because c++filt does the same: that is why it prints {@code A<B<C>>} (no space)
     * when an empty pack followed the inner template-id.
     */
    private char lastChar() {
        return last;
    }

    private Mod push(DemangleNode node) {
        mods = new Mod(node, templates, mods);
        return mods;
    }

    // ---------------------------------------------------------------- dispatch

    private void print0(DemangleNode dc) {
        if (failed) {
            return;
        }
        if (dc == null || dc.printing > 1 || depth >= MAX_DEPTH || ++steps > MAX_STEPS) {
            failed = true;
            return;
        }
        dc.printing++;
        depth++;
        frames[frameTop++] = dc;
        try {
            printNode(dc);
        } finally {
            frameTop--;
            dc.printing--;
            depth--;
        }
    }

    private void printNode(DemangleNode dc) {
        switch (dc.kind) {
            case NAME:
                append(dc.text);
                return;
            case TAGGED_NAME:
                print0(dc.left);
                append("[abi:");
                print0(dc.right);
                append(']');
                return;
            case STRUCTURED_BINDING:
                append('[');
                for (DemangleNode n = dc; n != null; n = n.right) {
                    if (n != dc) {
                        append(", ");
                    }
                    print0(n.left);
                }
                append(']');
                return;
            case QUAL_NAME:
                print0(dc.left);
                append("::");
                print0(dc.right);
                return;
            case LOCAL_NAME:
                printLocalName(dc, false);
                return;
            case TYPED_NAME:
                printTypedName(dc);
                return;
            case TEMPLATE:
                printTemplate(dc);
                return;
            case TEMPLATE_PARAM:
                printTemplateParam(dc);
                return;
            case FUNCTION_PARAM:
                if (dc.number == 0) {
                    append("this");
                } else {
                    append("{parm#");
                    append(Integer.toString(dc.number));
                    append('}');
                }
                return;
            case CTOR:
                print0(dc.left);
                return;
            case DTOR:
                append('~');
                print0(dc.left);
                return;
            case SPECIAL:
                append(dc.text);
                print0(dc.left);
                return;
            case CONSTRUCTION_VTABLE:
                append("construction vtable for ");
                print0(dc.left);
                append("-in-");
                print0(dc.right);
                return;
            case REFTEMP:
                append("reference temporary #");
                print0(dc.right);
                append(" for ");
                print0(dc.left);
                return;
            case SUB_STD:
                append(dc.text);
                return;
            case RESTRICT:
            case VOLATILE:
            case CONST:
                // A qualifier already pending (from an enclosing substitution or an array whose
                // qualifiers were pushed down to its elements) is printed only once.
                for (Mod p = mods; p != null; p = p.next) {
                    if (!p.printed) {
                        if (!p.node.kind.isCvQualifier()) {
                            break;
                        }
                        if (p.node.kind == dc.kind) {
                            print0(dc.left);
                            return;
                        }
                    }
                }
                printModifier(dc, dc.left);
                return;
            case REFERENCE:
            case RVALUE_REFERENCE:
                printReference(dc);
                return;
            case VENDOR_TYPE_QUAL:
            case POINTER:
            case COMPLEX:
            case IMAGINARY:
            case RESTRICT_THIS:
            case VOLATILE_THIS:
            case CONST_THIS:
            case REFERENCE_THIS:
            case RVALUE_REFERENCE_THIS:
            case TRANSACTION_SAFE:
            case NOEXCEPT:
            case THROW_SPEC:
                printModifier(dc, dc.left);
                return;
            case PTRMEM_TYPE:
            case VECTOR_TYPE:
                printModifier(dc, dc.right);
                return;
            case BUILTIN:
                append(dc.builtin.name);
                return;
            case VENDOR_TYPE:
                print0(dc.left);
                return;
            case FUNCTION_TYPE:
                if (dc.left != null) {
                    // The return type may be a declarator (pointer to function...) that has to
                    // wrap this function type, so hand the function type down as a modifier.
                    Mod m = push(dc);
                    print0(dc.left);
                    mods = m.next;
                    if (m.printed) {
                        return;
                    }
                    append(' ');
                }
                printFunctionType(dc, mods);
                return;
            case ARRAY_TYPE:
                printArray(dc);
                return;
            case ARGLIST:
            case TEMPLATE_ARGLIST:
                printList(dc);
                return;
            case INITIALIZER_LIST:
                if (dc.left != null) {
                    print0(dc.left);
                }
                append('{');
                print0(dc.right);
                append('}');
                return;
            case OPERATOR: {
                String name = dc.operator.name;
                append("operator");
                if (name.charAt(0) >= 'a' && name.charAt(0) <= 'z') {
                    append(' ');
                }
                append(name.endsWith(" ") ? name.substring(0, name.length() - 1) : name);
                return;
            }
            case EXTENDED_OPERATOR:
                append("operator ");
                print0(dc.left);
                return;
            case CONVERSION:
            case CAST:
                append("operator ");
                printConversion(dc);
                return;
            case NULLARY:
                printExprOp(dc.left);
                return;
            case UNARY:
                printUnary(dc);
                return;
            case BINARY:
                printBinary(dc);
                return;
            case TRINARY:
                printTrinary(dc);
                return;
            case LITERAL:
            case LITERAL_NEG:
                printLiteral(dc);
                return;
            case NUMBER:
                append(Integer.toString(dc.number));
                return;
            case DECLTYPE:
                append("decltype (");
                print0(dc.left);
                append(')');
                return;
            case PACK_EXPANSION:
                printPackExpansion(dc);
                return;
            case LAMBDA:
                append("{lambda(");
                lambdaArgs++;
                if (dc.left != null) {
                    print0(dc.left);
                }
                lambdaArgs--;
                append(")#");
                append(Integer.toString(dc.number + 1));
                append('}');
                return;
            case UNNAMED_TYPE:
                append("{unnamed type#");
                append(Integer.toString(dc.number + 1));
                append('}');
                return;
            case MODULE_ENTITY:
                print0(dc.left);
                append('@');
                printModule(dc.right);
                return;
            case CLONE:
                print0(dc.left);
                append(" [clone ");
                print0(dc.right);
                append(']');
                return;
            default:
                // BINARY_ARGS, TRINARY_ARG*, DEFAULT_ARG only make sense inside their parents.
                failed = true;
        }
    }

    private void printList(DemangleNode list) {
        int[] commas = new int[8];
        int count = 0;
        for (DemangleNode cell = list; cell != null && !failed; cell = cell.right) {
            if (cell.kind != list.kind) {
                print0(cell);
                break;
            }
            if (cell.left != null) {
                print0(cell.left);
            }
            if (cell.right != null) {
                append(", ");
                if (count == commas.length) {
                    commas = java.util.Arrays.copyOf(commas, count * 2);
                }
                commas[count++] = out.length();
            }
        }
        // A separator followed by nothing (an empty pack expansion) is taken back out.
        while (count > 0) {
            int mark = commas[--count];
            if (out.length() == mark) {
                out.setLength(mark - 2);
            }
        }
    }

    /** A module name is only printable as the attachment of an entity ({@code name@mod.part}). */
    private void printModule(DemangleNode module) {
        java.util.ArrayDeque<DemangleNode> chain = new java.util.ArrayDeque<>();
        for (DemangleNode m = module; m != null; m = m.left) {
            chain.push(m);
        }
        boolean first = true;
        for (DemangleNode m : chain) {
            if (m.kind == Kind.MODULE_PARTITION) {
                append(':');
            } else if (!first) {
                append('.');
            }
            print0(m.right);
            first = false;
        }
    }

    // ---------------------------------------------------------------- names and templates

    /**
     * {@code function::entity}. The enclosing function is printed with no pending modifiers (they
     * belong to the local entity); when the local name is a function's name, qualifiers on the
     * entity were already taken over by the function type.
     */
    private void printLocalName(DemangleNode dc, boolean stripQualifiers) {
        Mod hold = mods;
        mods = null;
        print0(dc.left);
        mods = hold;
        append("::");
        DemangleNode entity = dc.right;
        if (entity.kind == Kind.DEFAULT_ARG) {
            append("{default arg#");
            append(Integer.toString(entity.number + 1));
            append("}::");
            entity = entity.left;
        }
        if (stripQualifiers) {
            while (entity.kind.isFunctionQualifier()) {
                entity = entity.left;
            }
        }
        print0(entity);
    }

    private void printTypedName(DemangleNode dc) {
        // The name and the member-function qualifiers become modifiers so the function type
        // prints them around its parameter list: "ret name(params) const".
        Mod hold = mods;
        Mod[] pushed = new Mod[4];
        int count = 0;
        DemangleNode typed = dc.left;
        while (typed != null) {
            if (count == pushed.length) {
                failed = true;
                return;
            }
            pushed[count++] = push(typed);
            if (!typed.kind.isFunctionQualifier()) {
                break;
            }
            typed = typed.left;
        }
        if (typed == null) {
            failed = true;
            return;
        }
        if (typed.kind == Kind.LOCAL_NAME) {
            // Qualifiers of a local member function sit on the entity; they still print after
            // the parameter list, so slide them in just below the local name on the stack.
            Mod localMod = pushed[count - 1];
            typed = typed.right;
            if (typed.kind == Kind.DEFAULT_ARG) {
                typed = typed.left;
            }
            while (typed != null && typed.kind.isFunctionQualifier()) {
                if (count == pushed.length) {
                    failed = true;
                    return;
                }
                Mod q = new Mod(typed, templates, localMod.next);
                localMod.next = q;
                pushed[count++] = q;
                typed = typed.left;
            }
            if (typed == null) {
                failed = true;
                return;
            }
        }
        Scope holdScope = templates;
        if (typed.kind == Kind.TEMPLATE) {
            templates = new Scope(typed, templates);
        }
        print0(dc.right);
        templates = holdScope;
        for (int i = count - 1; i >= 0; i--) {
            if (!pushed[i].printed) {
                append(' ');
                printMod(pushed[i].node);
            }
        }
        mods = hold;
    }

    private void printTemplate(DemangleNode dc) {
        DemangleNode holdCurrent = currentTemplate;
        currentTemplate = dc;
        // Modifiers outside a template-id never apply inside its argument list.
        Mod hold = mods;
        mods = null;
        print0(dc.left);
        if (lastChar() == '<') {
            append(' ');
        }
        append('<');
        print0(dc.right);
        if (lastChar() == '>') {
            append(' ');
        }
        append('>');
        mods = hold;
        currentTemplate = holdCurrent;
    }

    private DemangleNode lookupTemplateArg(DemangleNode param) {
        if (templates == null) {
            failed = true;
            return null;
        }
        return indexArg(templates.template.right, param.number);
    }

    private DemangleNode indexArg(DemangleNode args, int i) {
        DemangleNode a = args;
        steps += Math.max(i, 0);
        for (; a != null; a = a.right) {
            if (a.kind != Kind.TEMPLATE_ARGLIST) {
                return null;
            }
            if (i <= 0) {
                break;
            }
            --i;
        }
        if (i != 0 || a == null) {
            return null;
        }
        return a.left;
    }

    private void printTemplateParam(DemangleNode dc) {
        if (lambdaArgs > 0) {
            append("auto:");
            append(Integer.toString(dc.number + 1));
            return;
        }
        DemangleNode a = lookupTemplateArg(dc);
        if (a != null && a.kind == Kind.TEMPLATE_ARGLIST) {
            a = indexArg(a, packIndex);
        }
        if (a == null) {
            failed = true;
            return;
        }
        // The argument was written in the scope enclosing the template it belongs to.
        Scope hold = templates;
        templates = hold.next;
        print0(a);
        templates = hold;
    }

    private void printConversion(DemangleNode dc) {
        Scope hold = templates;
        if (currentTemplate != null) {
            templates = new Scope(currentTemplate, templates);
        }
        DemangleNode target = dc.left;
        if (target.kind != Kind.TEMPLATE) {
            print0(target);
            templates = hold;
        } else {
            print0(target.left);
            templates = hold;
            if (lastChar() == '<') {
                append(' ');
            }
            append('<');
            print0(target.right);
            if (lastChar() == '>') {
                append(' ');
            }
            append('>');
        }
    }

    // ---------------------------------------------------------------- declarators

    private void printModifier(DemangleNode dc, DemangleNode inner) {
        Mod m = push(dc);
        print0(inner);
        if (!m.printed) {
            printMod(dc);
        }
        mods = m.next;
    }

    private void printReference(DemangleNode dc) {
        // Reference collapsing through a template parameter: T& with T = U&& is U&, etc.
        DemangleNode sub = dc.left;
        DemangleNode inner = null;
        Scope restore = null;
        boolean restoreNeeded = false;
        if (lambdaArgs == 0 && sub.kind == Kind.TEMPLATE_PARAM) {
            // A T_ reached again through a substitution means what it meant where it was first
            // printed, unless we are still inside that first printing.
            if (!savedScopes.containsKey(sub)) {
                savedScopes.put(sub, templates);
            } else if (!onStackAbove(sub, dc)) {
                restore = templates;
                restoreNeeded = true;
                templates = savedScopes.get(sub);
            }
            DemangleNode a = lookupTemplateArg(sub);
            if (a != null && a.kind == Kind.TEMPLATE_ARGLIST) {
                a = indexArg(a, packIndex);
            }
            if (a == null) {
                failed = true;
                return;
            }
            sub = a;
        }
        if (sub.kind == Kind.REFERENCE || sub.kind == dc.kind) {
            dc = sub;
        } else if (sub.kind == Kind.RVALUE_REFERENCE) {
            inner = sub.left;
        }
        printModifier(dc, inner != null ? inner : dc.left);
        if (restoreNeeded) {
            templates = restore;
        }
    }

    /** Whether {@code sub}, or {@code self} in an enclosing frame, is being printed. */
    private boolean onStackAbove(DemangleNode sub, DemangleNode self) {
        for (int i = frameTop - 1; i >= 0; i--) {
            DemangleNode f = frames[i];
            if (f == sub || (f == self && i != frameTop - 1)) {
                return true;
            }
        }
        return false;
    }

    private void printMod(DemangleNode mod) {
        switch (mod.kind) {
            case RESTRICT:
            case RESTRICT_THIS:
                append(" restrict");
                return;
            case VOLATILE:
            case VOLATILE_THIS:
                append(" volatile");
                return;
            case CONST:
            case CONST_THIS:
                append(" const");
                return;
            case TRANSACTION_SAFE:
                append(" transaction_safe");
                return;
            case NOEXCEPT:
            case THROW_SPEC:
                append(mod.kind == Kind.NOEXCEPT ? " noexcept" : " throw");
                if (mod.right != null) {
                    append('(');
                    print0(mod.right);
                    append(')');
                }
                return;
            case VENDOR_TYPE_QUAL:
                append(' ');
                print0(mod.right);
                return;
            case POINTER:
                append('*');
                return;
            case REFERENCE_THIS:
                append(" &");
                return;
            case REFERENCE:
                append('&');
                return;
            case RVALUE_REFERENCE_THIS:
                append(" &&");
                return;
            case RVALUE_REFERENCE:
                append("&&");
                return;
            case COMPLEX:
                append(" _Complex");
                return;
            case IMAGINARY:
                append(" _Imaginary");
                return;
            case PTRMEM_TYPE:
                if (lastChar() != '(') {
                    append(' ');
                }
                print0(mod.left);
                append("::*");
                return;
            case TYPED_NAME:
                print0(mod.left);
                return;
            case VECTOR_TYPE:
                append(" __vector(");
                print0(mod.left);
                append(')');
                return;
            default:
                print0(mod);
        }
    }

    private void printModList(Mod m, boolean suffix) {
        for (; m != null && !failed; m = m.next) {
            if (m.printed || (!suffix && m.node.kind.isFunctionQualifier())) {
                continue;
            }
            m.printed = true;
            Scope hold = templates;
            templates = m.templates;
            switch (m.node.kind) {
                case FUNCTION_TYPE:
                    printFunctionType(m.node, m.next);
                    templates = hold;
                    return;
                case ARRAY_TYPE:
                    printArrayType(m.node, m.next);
                    templates = hold;
                    return;
                case LOCAL_NAME:
                    printLocalName(m.node, true);
                    templates = hold;
                    return;
                default:
                    printMod(m.node);
                    templates = hold;
            }
        }
    }

    private void printFunctionType(DemangleNode dc, Mod list) {
        boolean needParen = false;
        boolean needSpace = false;
        for (Mod p = list; p != null; p = p.next) {
            if (p.printed) {
                break;
            }
            switch (p.node.kind) {
                case POINTER:
                case REFERENCE:
                case RVALUE_REFERENCE:
                    needParen = true;
                    break;
                case RESTRICT:
                case VOLATILE:
                case CONST:
                case VENDOR_TYPE_QUAL:
                case COMPLEX:
                case IMAGINARY:
                case PTRMEM_TYPE:
                    needSpace = true;
                    needParen = true;
                    break;
                default:
                    break;
            }
            if (needParen) {
                break;
            }
        }
        if (needParen) {
            if (!needSpace && lastChar() != '(' && lastChar() != '*') {
                needSpace = true;
            }
            if (needSpace && lastChar() != ' ') {
                append(' ');
            }
            append('(');
        }
        Mod hold = mods;
        mods = null;
        printModList(list, false);
        if (needParen) {
            append(')');
        }
        append('(');
        if (dc.right != null) {
            print0(dc.right);
        }
        append(')');
        printModList(list, true);
        mods = hold;
    }

    private void printArray(DemangleNode dc) {
        // Qualifiers applied to an array type really qualify its elements: move any pending
        // cv-qualifiers below the array so they print with the element type.
        Mod hold = mods;
        Mod arrayMod = new Mod(dc, templates, hold);
        mods = arrayMod;
        Mod[] moved = new Mod[3];
        int count = 0;
        for (Mod p = hold; p != null && p.node.kind.isCvQualifier(); p = p.next) {
            if (!p.printed) {
                if (count == moved.length) {
                    failed = true;
                    return;
                }
                Mod copy = new Mod(p.node, p.templates, mods);
                mods = copy;
                moved[count++] = copy;
                p.printed = true;
            }
        }
        print0(dc.right);
        mods = hold;
        if (arrayMod.printed) {
            return;
        }
        while (count > 0) {
            printMod(moved[--count].node);
        }
        printArrayType(dc, mods);
    }

    private void printArrayType(DemangleNode dc, Mod list) {
        boolean needSpace = true;
        if (list != null) {
            boolean needParen = false;
            for (Mod p = list; p != null; p = p.next) {
                if (!p.printed) {
                    if (p.node.kind == Kind.ARRAY_TYPE) {
                        needSpace = false;
                    } else {
                        needParen = true;
                        needSpace = true;
                    }
                    break;
                }
            }
            if (needParen) {
                append(" (");
            }
            printModList(list, false);
            if (needParen) {
                append(')');
            }
        }
        if (needSpace) {
            append(' ');
        }
        append('[');
        if (dc.left != null) {
            print0(dc.left);
        }
        append(']');
    }

    // ---------------------------------------------------------------- expressions

    private void printSubexpr(DemangleNode dc) {
        boolean simple = dc.kind == Kind.NAME || dc.kind == Kind.QUAL_NAME
                || dc.kind == Kind.INITIALIZER_LIST || dc.kind == Kind.FUNCTION_PARAM;
        if (!simple) {
            append('(');
        }
        print0(dc);
        if (!simple) {
            append(')');
        }
    }

    private void printExprOp(DemangleNode op) {
        if (op.kind == Kind.OPERATOR) {
            append(op.operator.name);
        } else {
            print0(op);
        }
    }

    private static String code(DemangleNode op) {
        return op.kind == Kind.OPERATOR ? op.operator.code : "";
    }

    private void printUnary(DemangleNode dc) {
        DemangleNode op = dc.left;
        DemangleNode operand = dc.right;
        String code = code(op);
        if (op.kind == Kind.OPERATOR) {
            if (code.equals("ad") && operand.kind == Kind.TYPED_NAME
                    && operand.left.kind == Kind.QUAL_NAME
                    && operand.right.kind == Kind.FUNCTION_TYPE) {
                operand = operand.left; // &A::f, not &A::f(int)
            }
            if (operand.kind == Kind.BINARY_ARGS) {
                printSubexpr(operand.left); // postfix ++/--
                printExprOp(op);
                return;
            }
        }
        if (code.equals("sZ")) {
            append(Integer.toString(packLength(findPack(operand))));
            return;
        }
        if (code.equals("sP")) {
            append(Integer.toString(argsLength(operand)));
            return;
        }
        if (op.kind != Kind.CAST) {
            printExprOp(op);
        } else {
            append('(');
            print0(op.left);
            append(')');
        }
        if (code.equals("gs")) {
            print0(operand);
        } else if (code.equals("st")) {
            append('(');
            print0(operand);
            append(')');
        } else {
            printSubexpr(operand);
        }
    }

    private void printBinary(DemangleNode dc) {
        DemangleNode op = dc.left;
        DemangleNode args = dc.right;
        if (args.kind != Kind.BINARY_ARGS) {
            failed = true;
            return;
        }
        String code = code(op);
        if (op.kind == Kind.OPERATOR && DemangleParser.isNewStyleCast(code)) {
            printExprOp(op);
            append('<');
            print0(args.left);
            append(">(");
            print0(args.right);
            append(')');
            return;
        }
        if (maybePrintFold(dc) || maybePrintDesignatedInit(dc)) {
            return;
        }
        // Parenthesize '>' so it cannot be read as the end of a template argument list.
        boolean greater = op.kind == Kind.OPERATOR && op.operator.name.equals(">");
        if (greater) {
            append('(');
        }
        if (code.equals("cl") && args.left.kind == Kind.TYPED_NAME) {
            DemangleNode func = args.left;
            if (func.right.kind != Kind.FUNCTION_TYPE) {
                failed = true;
            }
            printSubexpr(func.left);
        } else {
            printSubexpr(args.left);
        }
        if (code.equals("ix")) {
            append('[');
            print0(args.right);
            append(']');
        } else {
            if (!code.equals("cl")) {
                printExprOp(op);
            }
            printSubexpr(args.right);
        }
        if (greater) {
            append(')');
        }
    }

    private void printTrinary(DemangleNode dc) {
        DemangleNode arg1 = dc.right;
        if (arg1.kind != Kind.TRINARY_ARG1 || arg1.right.kind != Kind.TRINARY_ARG2) {
            failed = true;
            return;
        }
        if (maybePrintFold(dc) || maybePrintDesignatedInit(dc)) {
            return;
        }
        DemangleNode op = dc.left;
        DemangleNode first = arg1.left;
        DemangleNode second = arg1.right.left;
        DemangleNode third = arg1.right.right;
        if (code(op).equals("qu")) {
            printSubexpr(first);
            printExprOp(op);
            printSubexpr(second);
            append(" : ");
            printSubexpr(third);
        } else {
            append("new ");
            if (first.left != null) {
                printSubexpr(first);
                append(' ');
            }
            print0(second);
            if (third != null) {
                printSubexpr(third);
            }
        }
    }

    private boolean maybePrintFold(DemangleNode dc) {
        String code = code(dc.left);
        if (code.isEmpty() || code.charAt(0) != 'f') {
            return false;
        }
        DemangleNode ops = dc.right;
        DemangleNode operator = ops.left;
        DemangleNode op1 = ops.right;
        DemangleNode op2 = null;
        if (op1.kind == Kind.TRINARY_ARG2) {
            op2 = op1.right;
            op1 = op1.left;
        }
        int save = packIndex;
        packIndex = -1;
        switch (code.charAt(1)) {
            case 'l':
                append("(...");
                printExprOp(operator);
                printSubexpr(op1);
                append(')');
                break;
            case 'r':
                append('(');
                printSubexpr(op1);
                printExprOp(operator);
                append("...)");
                break;
            default:
                append('(');
                printSubexpr(op1);
                printExprOp(operator);
                append("...");
                printExprOp(operator);
                printSubexpr(op2);
                append(')');
                break;
        }
        packIndex = save;
        return true;
    }

    private static boolean isDesignatedInit(DemangleNode dc) {
        if (dc.kind != Kind.BINARY && dc.kind != Kind.TRINARY) {
            return false;
        }
        String code = code(dc.left);
        return code.equals("di") || code.equals("dx") || code.equals("dX");
    }

    private boolean maybePrintDesignatedInit(DemangleNode dc) {
        if (!isDesignatedInit(dc)) {
            return false;
        }
        char kind = code(dc.left).charAt(1);
        DemangleNode operands = dc.right;
        DemangleNode op1 = operands.left;
        DemangleNode op2 = operands.right;
        append(kind == 'i' ? '.' : '[');
        print0(op1);
        if (kind == 'X') {
            append(" ... ");
            print0(op2.left);
            op2 = op2.right;
        }
        if (kind != 'i') {
            append(']');
        }
        if (isDesignatedInit(op2)) {
            print0(op2);
        } else {
            append('=');
            printSubexpr(op2);
        }
        return true;
    }

    private void printLiteral(DemangleNode dc) {
        LiteralStyle style = LiteralStyle.DEFAULT;
        boolean negative = dc.kind == Kind.LITERAL_NEG;
        if (dc.left.kind == Kind.BUILTIN) {
            style = dc.left.builtin.style;
            switch (style) {
                case INT:
                case UNSIGNED:
                case LONG:
                case UNSIGNED_LONG:
                case LONG_LONG:
                case UNSIGNED_LONG_LONG:
                    if (negative) {
                        append('-');
                    }
                    print0(dc.right);
                    append(style == LiteralStyle.UNSIGNED ? "u"
                            : style == LiteralStyle.LONG ? "l"
                            : style == LiteralStyle.UNSIGNED_LONG ? "ul"
                            : style == LiteralStyle.LONG_LONG ? "ll"
                            : style == LiteralStyle.UNSIGNED_LONG_LONG ? "ull" : "");
                    return;
                case BOOL:
                    if (!negative && dc.right.text.equals("0")) {
                        append("false");
                        return;
                    }
                    if (!negative && dc.right.text.equals("1")) {
                        append("true");
                        return;
                    }
                    break;
                default:
                    break;
            }
        }
        append('(');
        print0(dc.left);
        append(')');
        if (negative) {
            append('-');
        }
        if (style == LiteralStyle.FLOAT) {
            append('[');
        }
        print0(dc.right);
        if (style == LiteralStyle.FLOAT) {
            append(']');
        }
    }

    // ---------------------------------------------------------------- packs

    private void printPackExpansion(DemangleNode dc) {
        DemangleNode pack = findPack(dc.left);
        if (pack == null) {
            // Only function parameter packs involved: print the pattern as written.
            printSubexpr(dc.left);
            append("...");
            return;
        }
        int len = packLength(pack);
        for (int i = 0; i < len && !failed; i++) {
            packIndex = i;
            print0(dc.left);
            if (i < len - 1) {
                append(", ");
            }
        }
    }

    /** The first template argument pack that a pack expansion's pattern refers to. */
    private DemangleNode findPack(DemangleNode dc) {
        if (depth >= MAX_DEPTH) {
            failed = true;
            return null;
        }
        depth++;
        try {
            while (dc != null && !failed) {
                if (++steps > MAX_STEPS) {
                    failed = true;
                    return null;
                }
                switch (dc.kind) {
                    case TEMPLATE_PARAM: {
                        DemangleNode a = lookupTemplateArg(dc);
                        return a != null && a.kind == Kind.TEMPLATE_ARGLIST ? a : null;
                    }
                    case PACK_EXPANSION:
                    case LAMBDA:
                    case NAME:
                    case TAGGED_NAME:
                    case OPERATOR:
                    case BUILTIN:
                    case SUB_STD:
                    case FUNCTION_PARAM:
                    case UNNAMED_TYPE:
                    case DEFAULT_ARG:
                    case NUMBER:
                        return null;
                    case EXTENDED_OPERATOR:
                    case CTOR:
                    case DTOR:
                        dc = dc.left;
                        break;
                    default: {
                        DemangleNode a = findPack(dc.left);
                        if (a != null) {
                            return a;
                        }
                        dc = dc.right;
                        break;
                    }
                }
            }
            return null;
        } finally {
            depth--;
        }
    }

    private static int packLength(DemangleNode pack) {
        int count = 0;
        for (DemangleNode a = pack; a != null && a.left != null && a.kind == Kind.TEMPLATE_ARGLIST;
                a = a.right) {
            count++;
        }
        return count;
    }

    private int argsLength(DemangleNode dc) {
        int count = 0;
        for (DemangleNode a = dc; a != null && a.kind == Kind.TEMPLATE_ARGLIST; a = a.right) {
            DemangleNode element = a.left;
            if (element == null) {
                break;
            }
            if (element.kind == Kind.PACK_EXPANSION) {
                count += packLength(findPack(element.left));
            } else {
                count++;
            }
        }
        return count;
    }
}
