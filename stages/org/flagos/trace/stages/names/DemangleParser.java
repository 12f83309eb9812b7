package org.flagos.trace.stages.names;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.flagos.trace.stages.names.DemangleNode.Builtin;
import org.flagos.trace.stages.names.DemangleNode.Kind;
import org.flagos.trace.stages.names.DemangleNode.LiteralStyle;
import org.flagos.trace.stages.names.DemangleNode.Operator;

/**
 * Recursive-descent parser for the Itanium C++ ABI mangling grammar. Produces a {@link
 * DemangleNode} tree; any malformed input aborts with {@link Failure}.
 *
 * <p>Where the grammar leaves room, choices (which productions are substitution candidates, how
 * literals and qualifiers are grouped) follow what GNU {@code c++filt} does, since its output is
 * the reference for this package.
 */
final class DemangleParser {

    /** Thrown (without a stack trace) when the input is not a well-formed mangled name. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure() {
            super(null, null, false, false);
        }
    }

    private static final Failure FAILURE = new Failure();

    /** Nesting bound for types, expressions, encodings and argument lists. */
    private static final int MAX_DEPTH = 200;

    private static final Builtin[] LOWER_BUILTINS = new Builtin[26];
    private static final Map<Character, Builtin> D_BUILTINS = new HashMap<>();
    static final Builtin NULLPTR;
    private static final Map<String, Operator> OPERATORS = new HashMap<>();

    static {
        builtin('a', "signed char", LiteralStyle.DEFAULT);
        builtin('b', "bool", LiteralStyle.BOOL);
        builtin('c', "char", LiteralStyle.DEFAULT);
        builtin('d', "double", LiteralStyle.FLOAT);
        builtin('e', "long double", LiteralStyle.FLOAT);
        builtin('f', "float", LiteralStyle.FLOAT);
        builtin('g', "__float128", LiteralStyle.FLOAT);
        builtin('h', "unsigned char", LiteralStyle.DEFAULT);
        builtin('i', "int", LiteralStyle.INT);
        builtin('j', "unsigned int", LiteralStyle.UNSIGNED);
        builtin('l', "long", LiteralStyle.LONG);
        builtin('m', "unsigned long", LiteralStyle.UNSIGNED_LONG);
        builtin('n', "__int128", LiteralStyle.DEFAULT);
        builtin('o', "unsigned __int128", LiteralStyle.DEFAULT);
        builtin('s', "short", LiteralStyle.DEFAULT);
        builtin('t', "unsigned short", LiteralStyle.DEFAULT);
        builtin('v', "void", LiteralStyle.VOID);
        builtin('w', "wchar_t", LiteralStyle.DEFAULT);
        builtin('x', "long long", LiteralStyle.LONG_LONG);
        builtin('y', "unsigned long long", LiteralStyle.UNSIGNED_LONG_LONG);
        builtin('z', "...", LiteralStyle.DEFAULT);
        D_BUILTINS.put('d', new Builtin("decimal64", LiteralStyle.DEFAULT));
        D_BUILTINS.put('e', new Builtin("decimal128", LiteralStyle.DEFAULT));
        D_BUILTINS.put('f', new Builtin("decimal32", LiteralStyle.DEFAULT));
        D_BUILTINS.put('h', new Builtin("half", LiteralStyle.FLOAT));
        D_BUILTINS.put('u', new Builtin("char8_t", LiteralStyle.DEFAULT));
        D_BUILTINS.put('s', new Builtin("char16_t", LiteralStyle.DEFAULT));
        D_BUILTINS.put('i', new Builtin("char32_t", LiteralStyle.DEFAULT));
        NULLPTR = new Builtin("decltype(nullptr)", LiteralStyle.DEFAULT);
        D_BUILTINS.put('n', NULLPTR);

        String[][] ops = {
            {"aN", "&=", "2"}, {"aS", "=", "2"}, {"aa", "&&", "2"}, {"ad", "&", "1"},
            {"an", "&", "2"}, {"at", "alignof ", "1"}, {"aw", "co_await ", "1"},
            {"az", "alignof ", "1"}, {"cc", "const_cast", "2"}, {"cl", "()", "2"},
            {"cm", ",", "2"}, {"co", "~", "1"}, {"dV", "/=", "2"}, {"dX", "[...]=", "3"},
            {"da", "delete[] ", "1"}, {"dc", "dynamic_cast", "2"}, {"de", "*", "1"},
            {"di", "=", "2"}, {"dl", "delete ", "1"}, {"ds", ".*", "2"}, {"dt", ".", "2"},
            {"dv", "/", "2"}, {"dx", "]=", "2"}, {"eO", "^=", "2"}, {"eo", "^", "2"},
            {"eq", "==", "2"}, {"fL", "...", "3"}, {"fR", "...", "3"}, {"fl", "...", "2"},
            {"fr", "...", "2"}, {"ge", ">=", "2"}, {"gs", "::", "1"}, {"gt", ">", "2"},
            {"ix", "[]", "2"}, {"lS", "<<=", "2"}, {"le", "<=", "2"},
            {"li", "operator\"\" ", "1"}, {"ls", "<<", "2"}, {"lt", "<", "2"},
            {"mI", "-=", "2"}, {"mL", "*=", "2"}, {"mi", "-", "2"}, {"ml", "*", "2"},
            {"mm", "--", "1"}, {"na", "new[]", "3"}, {"ne", "!=", "2"}, {"ng", "-", "1"},
            {"nt", "!", "1"}, {"nw", "new", "3"}, {"oR", "|=", "2"}, {"oo", "||", "2"},
            {"or", "|", "2"}, {"pL", "+=", "2"}, {"pl", "+", "2"}, {"pm", "->*", "2"},
            {"pp", "++", "1"}, {"ps", "+", "1"}, {"pt", "->", "2"}, {"qu", "?", "3"},
            {"rM", "%=", "2"}, {"rS", ">>=", "2"}, {"rc", "reinterpret_cast", "2"},
            {"rm", "%", "2"}, {"rs", ">>", "2"}, {"sP", "sizeof...", "1"},
            {"sZ", "sizeof...", "1"}, {"sc", "static_cast", "2"}, {"ss", "<=>", "2"},
            {"st", "sizeof ", "1"}, {"sz", "sizeof ", "1"}, {"tr", "throw", "0"},
            {"tw", "throw ", "1"},
        };
        for (String[] op : ops) {
            OPERATORS.put(op[0], new Operator(op[0], op[1], Integer.parseInt(op[2])));
        }
    }

    private static void builtin(char code, String name, LiteralStyle style) {
        LOWER_BUILTINS[code - 'a'] = new Builtin(name, style);
    }

    private final String in;
    private int pos;
    private final List<DemangleNode> subs = new ArrayList<>();
    /** Most recent source name outside template arguments: the name a ctor/dtor takes. */
    private DemangleNode lastName;
    private boolean inConversion;
    private boolean inExpression;
    private int depth;
    private long steps;

    private DemangleParser(String in) {
        this.in = in;
    }

    /** Parses a complete symbol starting with {@code _Z}; throws {@link Failure} if malformed. */
    static DemangleNode parse(String mangled) {
        DemangleParser p = new DemangleParser(mangled);
        DemangleNode root = p.mangledName(true);
        if (p.peek() != '\0') {
            throw FAILURE;
        }
        return root;
    }

    // ---------------------------------------------------------------- low level

    private static DemangleNode fail() {
        throw FAILURE;
    }

    private char peek() {
        return pos < in.length() ? in.charAt(pos) : '\0';
    }

    private char peekNext() {
        return pos + 1 < in.length() ? in.charAt(pos + 1) : '\0';
    }

    private char next() {
        char c = peek();
        if (c != '\0') {
            pos++;
        }
        return c;
    }

    private boolean check(char c) {
        if (pos < in.length() && in.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!check(c)) {
            fail();
        }
    }

    private void enter() {
        // The step budget bounds the re-parsing that conversion-operator backtracking can cause.
        if (++depth > MAX_DEPTH || ++steps > 64L * in.length() + 1024) {
            fail();
        }
    }

    private void leave() {
        depth--;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLower(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean isUpper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    private void addSub(DemangleNode n) {
        // Every candidate consumes input, so more entries than characters means a bug or abuse.
        if (subs.size() >= in.length()) {
            fail();
        }
        subs.add(n);
    }

    private static DemangleNode node(Kind kind, DemangleNode left, DemangleNode right) {
        return new DemangleNode(kind, left, right);
    }

    /** {@code [n] <digits>}; no digits reads as 0, like the reference demangler. */
    private int number() {
        boolean negative = false;
        if (peek() == 'n') {
            negative = true;
            pos++;
        }
        int value = 0;
        char c = peek();
        while (isDigit(c)) {
            if (value > (Integer.MAX_VALUE - (c - '0')) / 10) {
                fail();
            }
            value = value * 10 + (c - '0');
            pos++;
            c = peek();
        }
        return negative ? -value : value;
    }

    /** {@code _} is 0, {@code <n>_} is n+1. */
    private int compactNumber() {
        int num;
        if (peek() == '_') {
            num = 0;
        } else if (peek() == 'n') {
            throw FAILURE;
        } else {
            num = number() + 1;
        }
        if (num < 0 || !check('_')) {
            fail();
        }
        return num;
    }

    private DemangleNode numberNode() {
        DemangleNode n = new DemangleNode(Kind.NUMBER);
        n.number = number();
        return n;
    }

    // ---------------------------------------------------------------- encodings

    private DemangleNode mangledName(boolean topLevel) {
        if (!check('_') && topLevel) {
            fail();
        }
        expect('Z');
        DemangleNode p = encoding(topLevel);
        if (topLevel) {
            while (peek() == '.'
                    && (isLower(peekNext()) || peekNext() == '_' || isDigit(peekNext()))) {
                p = cloneSuffix(p);
            }
        }
        return p;
    }

    private DemangleNode cloneSuffix(DemangleNode encoding) {
        int start = pos;
        int end = pos;
        if (end + 1 < in.length() && in.charAt(end) == '.') {
            char c = in.charAt(end + 1);
            if (isLower(c) || isDigit(c) || c == '_') {
                end += 2;
                while (end < in.length()
                        && (isLower(in.charAt(end)) || isDigit(in.charAt(end))
                        || in.charAt(end) == '_')) {
                    end++;
                }
            }
        }
        while (end + 1 < in.length() && in.charAt(end) == '.' && isDigit(in.charAt(end + 1))) {
            end += 2;
            while (end < in.length() && isDigit(in.charAt(end))) {
                end++;
            }
        }
        pos = end;
        return node(Kind.CLONE, encoding, DemangleNode.name(in.substring(start, end)));
    }

    private DemangleNode encoding(boolean topLevel) {
        enter();
        try {
            char c = peek();
            if (c == 'G' || c == 'T') {
                return specialName();
            }
            DemangleNode dc = name();
            c = peek();
            if (c != '\0' && c != 'E') {
                DemangleNode ftype = bareFunctionType(hasReturnType(dc));
                // A local entity's function type would otherwise show the enclosing return type.
                if (!topLevel && dc.kind == Kind.LOCAL_NAME && ftype.kind == Kind.FUNCTION_TYPE) {
                    ftype.left = null;
                }
                dc = node(Kind.TYPED_NAME, dc, ftype);
            }
            return dc;
        } finally {
            leave();
        }
    }

    /** Template functions other than ctors, dtors and conversions encode their return type. */
    private static boolean hasReturnType(DemangleNode dc) {
        while (true) {
            if (dc.kind == Kind.LOCAL_NAME) {
                dc = dc.right;
            } else if (dc.kind.isFunctionQualifier()) {
                dc = dc.left;
            } else {
                return dc.kind == Kind.TEMPLATE && !isCtorDtorOrConversion(dc.left);
            }
        }
    }

    private static boolean isCtorDtorOrConversion(DemangleNode dc) {
        while (dc.kind == Kind.QUAL_NAME || dc.kind == Kind.LOCAL_NAME) {
            dc = dc.right;
        }
        return dc.kind == Kind.CTOR || dc.kind == Kind.DTOR || dc.kind == Kind.CONVERSION;
    }

    private DemangleNode special(String prefix, DemangleNode child) {
        DemangleNode n = node(Kind.SPECIAL, child, null);
        n.text = prefix;
        return n;
    }

    private DemangleNode specialName() {
        if (check('T')) {
            switch (next()) {
                case 'V':
                    return special("vtable for ", type());
                case 'T':
                    return special("VTT for ", type());
                case 'I':
                    return special("typeinfo for ", type());
                case 'S':
                    return special("typeinfo name for ", type());
                case 'F':
                    return special("typeinfo fn for ", type());
                case 'J':
                    return special("java Class for ", type());
                case 'h':
                    callOffset('h');
                    return special("non-virtual thunk to ", encoding(false));
                case 'v':
                    callOffset('v');
                    return special("virtual thunk to ", encoding(false));
                case 'c':
                    callOffset('\0');
                    callOffset('\0');
                    return special("covariant return thunk to ", encoding(false));
                case 'C': {
                    DemangleNode derived = type();
                    if (number() < 0) {
                        fail();
                    }
                    expect('_');
                    DemangleNode base = type();
                    return node(Kind.CONSTRUCTION_VTABLE, base, derived);
                }
                case 'H':
                    return special("TLS init function for ", name());
                case 'W':
                    return special("TLS wrapper function for ", name());
                case 'A':
                    return special("template parameter object for ", templateArg());
                default:
                    return fail();
            }
        }
        if (check('G')) {
            switch (next()) {
                case 'V':
                    return special("guard variable for ", name());
                case 'R': {
                    DemangleNode n = name();
                    return node(Kind.REFTEMP, n, numberNode());
                }
                case 'A':
                    return special("hidden alias for ", encoding(false));
                case 'T':
                    if (next() == 'n') {
                        return special("non-transaction clone for ", encoding(false));
                    }
                    return special("transaction clone for ", encoding(false));
                default:
                    return fail();
            }
        }
        return fail();
    }

    private void callOffset(char c) {
        if (c == '\0') {
            c = next();
        }
        if (c == 'h') {
            number();
        } else if (c == 'v') {
            number();
            expect('_');
            number();
        } else {
            fail();
        }
        expect('_');
    }

    // ---------------------------------------------------------------- names

    private DemangleNode name() {
        switch (peek()) {
            case 'N':
                return nestedName();
            case 'Z':
                return localName();
            case 'U':
                return unqualifiedName(null, null);
            default: {
                DemangleNode dc = null;
                DemangleNode module = null;
                boolean fromSubstitution = false;
                if (peek() == 'S') {
                    if (peekNext() == 't') {
                        pos += 2;
                        dc = DemangleNode.name("std");
                    }
                    if (peek() == 'S') {
                        module = substitution();
                        if (!isModule(module)) {
                            if (dc != null) {
                                fail();
                            }
                            fromSubstitution = true;
                            dc = module;
                            module = null;
                        }
                    }
                }
                if (!fromSubstitution) {
                    dc = unqualifiedName(dc, module);
                }
                if (peek() == 'I') {
                    // <unscoped-template-name> is a candidate unless it came from one.
                    if (!fromSubstitution) {
                        addSub(dc);
                    }
                    dc = node(Kind.TEMPLATE, dc, templateArgs());
                }
                return dc;
            }
        }
    }

    private static boolean isModule(DemangleNode n) {
        return n.kind == Kind.MODULE_NAME || n.kind == Kind.MODULE_PARTITION;
    }

    private DemangleNode nestedName() {
        expect('N');
        List<DemangleNode> quals = cvQualifiers(true);
        DemangleNode refQual = refQualifier(null);
        DemangleNode ret = wrap(quals, prefix());
        if (refQual != null) {
            refQual.left = ret;
            ret = refQual;
        }
        expect('E');
        return ret;
    }

    private DemangleNode prefix() {
        DemangleNode ret = null;
        while (true) {
            char c = peek();
            if (c == 'D' && (peekNext() == 'T' || peekNext() == 't')) {
                if (ret != null) {
                    fail();
                }
                ret = type();
            } else if (c == 'I') {
                if (ret == null) {
                    fail();
                }
                ret = node(Kind.TEMPLATE, ret, templateArgs());
            } else if (c == 'T') {
                if (ret != null) {
                    fail();
                }
                ret = templateParam();
            } else if (c == 'M') {
                // Lambda initializer scope: carries no printable information.
                pos++;
                continue;
            } else if (c == 'S') {
                DemangleNode sub = substitution();
                if (isModule(sub)) {
                    ret = unqualifiedName(ret, sub);
                } else {
                    if (ret != null) {
                        fail();
                    }
                    ret = sub;
                    continue;
                }
            } else {
                ret = unqualifiedName(ret, null);
            }
            if (peek() == 'E') {
                return ret;
            }
            addSub(ret);
        }
    }

    private DemangleNode unqualifiedName(DemangleNode scope, DemangleNode module) {
        // C++20 module attachment: W <name> (W P <name> for a partition), printed name@module.
        while (check('W')) {
            Kind kind = check('P') ? Kind.MODULE_PARTITION : Kind.MODULE_NAME;
            module = node(kind, module, sourceName());
            addSub(module);
        }
        char c = peek();
        DemangleNode ret;
        if (isDigit(c)) {
            ret = sourceName();
        } else if (isLower(c)) {
            boolean wasExpression = inExpression;
            if (c == 'o' && peekNext() == 'n') {
                pos += 2;
                inExpression = false;
            }
            ret = operatorName();
            inExpression = wasExpression;
            if (ret.kind == Kind.OPERATOR && ret.operator.code.equals("li")) {
                ret = node(Kind.UNARY, ret, sourceName());
            }
        } else if (c == 'D' && peekNext() == 'C') {
            pos += 2;
            DemangleNode first = null;
            DemangleNode prev = null;
            do {
                DemangleNode binding = node(Kind.STRUCTURED_BINDING, sourceName(), null);
                if (prev == null) {
                    first = binding;
                } else {
                    prev.right = binding;
                }
                prev = binding;
            } while (peek() != 'E');
            pos++;
            ret = first;
        } else if (c == 'C' || c == 'D') {
            ret = ctorDtorName();
        } else if (c == 'L') {
            pos++;
            ret = sourceName();
            discriminator();
        } else if (c == 'U') {
            char n = peekNext();
            if (n == 'l') {
                ret = lambda();
            } else if (n == 't') {
                ret = unnamedType();
            } else {
                return fail();
            }
        } else {
            return fail();
        }
        if (module != null) {
            ret = node(Kind.MODULE_ENTITY, ret, module);
        }
        if (peek() == 'B') {
            ret = abiTags(ret);
        }
        if (scope != null) {
            ret = node(Kind.QUAL_NAME, scope, ret);
        }
        return ret;
    }

    private DemangleNode sourceName() {
        int len = number();
        if (len <= 0 || len > in.length() - pos) {
            fail();
        }
        String id = in.substring(pos, pos + len);
        pos += len;
        // g++ spells anonymous namespaces _GLOBAL__N_<n> (or with '.'/'$' on some targets).
        if (len >= 10 && id.startsWith("_GLOBAL_")) {
            char sep = id.charAt(8);
            if ((sep == '.' || sep == '_' || sep == '$') && id.charAt(9) == 'N') {
                id = "(anonymous namespace)";
            }
        }
        DemangleNode n = DemangleNode.name(id);
        lastName = n;
        return n;
    }

    private DemangleNode abiTags(DemangleNode dc) {
        DemangleNode hold = lastName;
        while (check('B')) {
            dc = node(Kind.TAGGED_NAME, dc, sourceName());
        }
        lastName = hold;
        return dc;
    }

    private void discriminator() {
        if (!check('_')) {
            return;
        }
        boolean wide = check('_');
        int d = number();
        if (d < 0) {
            fail();
        }
        if (wide && d >= 10 && !check('_')) {
            fail();
        }
    }

    private DemangleNode ctorDtorName() {
        if (peek() == 'C') {
            boolean inheriting = false;
            if (peekNext() == 'I') {
                inheriting = true;
                pos++;
            }
            char k = peekNext();
            if (k < '1' || k > '5') {
                fail();
            }
            pos += 2;
            if (inheriting) {
                // The base class is only there to select the ctor; a malformed one is skipped
                // (from wherever parsing stopped), as the reference demangler does.
                int holdDepth = depth;
                boolean holdConversion = inConversion;
                boolean holdExpression = inExpression;
                try {
                    type();
                } catch (Failure e) {
                    depth = holdDepth;
                    inConversion = holdConversion;
                    inExpression = holdExpression;
                }
            }
            if (lastName == null) {
                fail();
            }
            return node(Kind.CTOR, lastName, null);
        }
        char k = peekNext();
        if (k != '0' && k != '1' && k != '2' && k != '4' && k != '5') {
            fail();
        }
        pos += 2;
        if (lastName == null) {
            fail();
        }
        return node(Kind.DTOR, lastName, null);
    }

    private DemangleNode lambda() {
        pos += 2; // "Ul"
        DemangleNode params = parmList();
        expect('E');
        DemangleNode n = node(Kind.LAMBDA, params, null);
        n.number = compactNumber();
        return n;
    }

    private DemangleNode unnamedType() {
        pos += 2; // "Ut"
        DemangleNode n = new DemangleNode(Kind.UNNAMED_TYPE);
        n.number = compactNumber();
        addSub(n);
        return n;
    }

    private DemangleNode localName() {
        expect('Z');
        DemangleNode function = encoding(false);
        expect('E');
        DemangleNode entity;
        if (check('s')) {
            discriminator();
            entity = DemangleNode.name("string literal");
        } else {
            int defaultArg = -1;
            if (check('d')) {
                defaultArg = compactNumber();
            }
            entity = name();
            if (entity.kind != Kind.LAMBDA && entity.kind != Kind.UNNAMED_TYPE) {
                discriminator();
            }
            if (defaultArg >= 0) {
                entity = node(Kind.DEFAULT_ARG, entity, null);
                entity.number = defaultArg;
            }
        }
        if (function.kind == Kind.TYPED_NAME && function.right.kind == Kind.FUNCTION_TYPE) {
            function.right.left = null;
        }
        return node(Kind.LOCAL_NAME, function, entity);
    }

    private DemangleNode operatorName() {
        char c1 = next();
        char c2 = next();
        if (c1 == 'v' && isDigit(c2)) {
            DemangleNode n = node(Kind.EXTENDED_OPERATOR, sourceName(), null);
            n.number = c2 - '0';
            return n;
        }
        if (c1 == 'c' && c2 == 'v') {
            boolean was = inConversion;
            inConversion = !inExpression;
            DemangleNode t = type();
            DemangleNode n = node(inConversion ? Kind.CONVERSION : Kind.CAST, t, null);
            inConversion = was;
            return n;
        }
        Operator op = OPERATORS.get(new String(new char[] {c1, c2}));
        if (op == null) {
            fail();
        }
        DemangleNode n = new DemangleNode(Kind.OPERATOR);
        n.operator = op;
        return n;
    }

    private DemangleNode substitution() {
        expect('S');
        char c = next();
        if (c == '_' || isDigit(c) || isUpper(c)) {
            long id = 0;
            if (c != '_') {
                do {
                    if (isDigit(c)) {
                        id = id * 36 + (c - '0');
                    } else if (isUpper(c)) {
                        id = id * 36 + (c - 'A' + 10);
                    } else {
                        fail();
                    }
                    if (id > Integer.MAX_VALUE) {
                        fail();
                    }
                    c = next();
                } while (c != '_');
                id++;
            }
            if (id >= subs.size()) {
                fail();
            }
            return subs.get((int) id);
        }
        String expansion;
        String ctorName;
        switch (c) {
            case 't':
                expansion = "std";
                ctorName = null;
                break;
            case 'a':
                expansion = "std::allocator";
                ctorName = "allocator";
                break;
            case 'b':
                expansion = "std::basic_string";
                ctorName = "basic_string";
                break;
            case 's':
                expansion = "std::basic_string<char, std::char_traits<char>, std::allocator<char> >";
                ctorName = "basic_string";
                break;
            case 'i':
                expansion = "std::basic_istream<char, std::char_traits<char> >";
                ctorName = "basic_istream";
                break;
            case 'o':
                expansion = "std::basic_ostream<char, std::char_traits<char> >";
                ctorName = "basic_ostream";
                break;
            case 'd':
                expansion = "std::basic_iostream<char, std::char_traits<char> >";
                ctorName = "basic_iostream";
                break;
            default:
                return fail();
        }
        if (ctorName != null) {
            DemangleNode last = new DemangleNode(Kind.SUB_STD);
            last.text = ctorName;
            lastName = last;
        }
        DemangleNode dc = new DemangleNode(Kind.SUB_STD);
        dc.text = expansion;
        if (peek() == 'B') {
            dc = abiTags(dc);
            addSub(dc);
        }
        return dc;
    }

    // ---------------------------------------------------------------- templates

    private DemangleNode templateParam() {
        expect('T');
        DemangleNode n = new DemangleNode(Kind.TEMPLATE_PARAM);
        n.number = compactNumber();
        return n;
    }

    private DemangleNode templateArgs() {
        char c = peek();
        if (c != 'I' && c != 'J') {
            fail();
        }
        pos++;
        return templateArgsBody();
    }

    private DemangleNode templateArgsBody() {
        enter();
        try {
            // A template argument's names must not become the target of a later ctor/dtor.
            DemangleNode hold = lastName;
            if (check('E')) {
                return node(Kind.TEMPLATE_ARGLIST, null, null);
            }
            DemangleNode first = null;
            DemangleNode tail = null;
            while (true) {
                DemangleNode cell = node(Kind.TEMPLATE_ARGLIST, templateArg(), null);
                if (tail == null) {
                    first = cell;
                } else {
                    tail.right = cell;
                }
                tail = cell;
                if (check('E')) {
                    break;
                }
            }
            lastName = hold;
            return first;
        } finally {
            leave();
        }
    }

    private DemangleNode templateArg() {
        switch (peek()) {
            case 'X': {
                pos++;
                boolean was = inExpression;
                inExpression = true;
                DemangleNode r = expressionBody();
                inExpression = was;
                expect('E');
                return r;
            }
            case 'L':
                return exprPrimary();
            case 'I':
            case 'J':
                return templateArgs();
            default:
                return type();
        }
    }

    // ---------------------------------------------------------------- types

    private boolean nextIsTypeQualifier() {
        char c = peek();
        if (c == 'r' || c == 'V' || c == 'K') {
            return true;
        }
        if (c == 'D') {
            char n = peekNext();
            return n == 'x' || n == 'o' || n == 'O' || n == 'w';
        }
        return false;
    }

    /** Qualifier nodes in mangled order (outermost first), their {@code left} still unset. */
    private List<DemangleNode> cvQualifiers(boolean memberFunction) {
        List<DemangleNode> quals = new ArrayList<>(2);
        while (nextIsTypeQualifier()) {
            char q = next();
            Kind kind;
            DemangleNode right = null;
            if (q == 'r') {
                kind = memberFunction ? Kind.RESTRICT_THIS : Kind.RESTRICT;
            } else if (q == 'V') {
                kind = memberFunction ? Kind.VOLATILE_THIS : Kind.VOLATILE;
            } else if (q == 'K') {
                kind = memberFunction ? Kind.CONST_THIS : Kind.CONST;
            } else {
                char d = next();
                if (d == 'x') {
                    kind = Kind.TRANSACTION_SAFE;
                } else if (d == 'o') {
                    kind = Kind.NOEXCEPT;
                } else if (d == 'O') {
                    kind = Kind.NOEXCEPT;
                    right = expression();
                    expect('E');
                } else {
                    kind = Kind.THROW_SPEC;
                    right = parmList();
                    expect('E');
                }
            }
            quals.add(node(kind, null, right));
        }
        if (!memberFunction && peek() == 'F') {
            // Qualifiers in front of a function type qualify its implicit object parameter.
            for (int i = 0; i < quals.size(); i++) {
                DemangleNode q = quals.get(i);
                Kind k = q.kind == Kind.RESTRICT ? Kind.RESTRICT_THIS
                        : q.kind == Kind.VOLATILE ? Kind.VOLATILE_THIS
                        : q.kind == Kind.CONST ? Kind.CONST_THIS : q.kind;
                if (k != q.kind) {
                    DemangleNode replaced = node(k, null, q.right);
                    quals.set(i, replaced);
                }
            }
        }
        return quals;
    }

    private static DemangleNode wrap(List<DemangleNode> quals, DemangleNode inner) {
        if (quals.isEmpty()) {
            return inner;
        }
        for (int i = 0; i < quals.size() - 1; i++) {
            quals.get(i).left = quals.get(i + 1);
        }
        quals.get(quals.size() - 1).left = inner;
        return quals.get(0);
    }

    private DemangleNode refQualifier(DemangleNode sub) {
        if (check('R')) {
            return node(Kind.REFERENCE_THIS, sub, null);
        }
        if (check('O')) {
            return node(Kind.RVALUE_REFERENCE_THIS, sub, null);
        }
        return sub;
    }

    DemangleNode type() {
        enter();
        try {
            return typeBody();
        } finally {
            leave();
        }
    }

    private DemangleNode typeBody() {
        if (nextIsTypeQualifier()) {
            List<DemangleNode> quals = cvQualifiers(false);
            DemangleNode inner = peek() == 'F' ? functionType() : type();
            DemangleNode innermost = quals.get(quals.size() - 1);
            DemangleNode ret = wrap(quals, inner);
            if (inner.kind == Kind.REFERENCE_THIS || inner.kind == Kind.RVALUE_REFERENCE_THIS) {
                // Keep the ref-qualifier outermost so it prints after "const".
                DemangleNode fn = inner.left;
                inner.left = ret;
                ret = inner;
                innermost.left = fn;
            }
            addSub(ret);
            return ret;
        }
        boolean candidate = true;
        DemangleNode ret;
        char c = peek();
        switch (c) {
            case 'a': case 'b': case 'c': case 'd': case 'e': case 'f': case 'g': case 'h':
            case 'i': case 'j': case 'l': case 'm': case 'n': case 'o': case 's': case 't':
            case 'v': case 'w': case 'x': case 'y': case 'z':
                pos++;
                ret = builtinNode(LOWER_BUILTINS[c - 'a']);
                candidate = false;
                break;
            case 'u':
                pos++;
                ret = node(Kind.VENDOR_TYPE, sourceName(), null);
                break;
            case 'F':
                ret = functionType();
                break;

            case 'A':
                ret = arrayType();
                break;
            case 'M': {
                pos++;
                DemangleNode cls = type();
                ret = node(Kind.PTRMEM_TYPE, cls, type());
                break;
            }
            case 'T':
                ret = templateParam();
                if (peek() == 'I') {
                    if (!inConversion) {
                        addSub(ret);
                        ret = node(Kind.TEMPLATE, ret, templateArgs());
                    } else {
                        // In a conversion operator's type the args may belong to the operator.
                        int savedPos = pos;
                        int savedSubs = subs.size();
                        DemangleNode savedLast = lastName;
                        DemangleNode args = templateArgs();
                        if (peek() == 'I') {
                            addSub(ret);
                            ret = node(Kind.TEMPLATE, ret, args);
                        } else {
                            pos = savedPos;
                            subs.subList(savedSubs, subs.size()).clear();
                            lastName = savedLast;
                        }
                    }
                }
                break;
            case 'S': {
                char n = peekNext();
                if (isDigit(n) || n == '_' || isUpper(n)) {
                    ret = substitution();
                    if (peek() == 'I') {
                        ret = node(Kind.TEMPLATE, ret, templateArgs());
                    } else {
                        candidate = false;
                    }
                } else {
                    ret = name();
                    // A bare std abbreviation is not a new candidate (with ABI tags it was
                    // already recorded by substitution()).
                    DemangleNode base = ret;
                    while (base.kind == Kind.TAGGED_NAME) {
                        base = base.left;
                    }
                    if (base.kind == Kind.SUB_STD) {
                        candidate = false;
                    }
                }
                break;
            }
            case 'O':
                pos++;
                ret = node(Kind.RVALUE_REFERENCE, type(), null);
                break;
            case 'P':
                pos++;
                ret = node(Kind.POINTER, type(), null);
                break;
            case 'R':
                pos++;
                ret = node(Kind.REFERENCE, type(), null);
                break;
            case 'C':
                pos++;
                ret = node(Kind.COMPLEX, type(), null);
                break;
            case 'G':
                pos++;
                ret = node(Kind.IMAGINARY, type(), null);
                break;
            case 'U': {
                pos++;
                DemangleNode qual = sourceName();
                if (peek() == 'I') {
                    qual = node(Kind.TEMPLATE, qual, templateArgs());
                }
                ret = node(Kind.VENDOR_TYPE_QUAL, type(), qual);
                break;
            }
            case 'D':
                candidate = false;
                pos++;
                char d = next();
                switch (d) {
                    case 'T':
                    case 't':
                        ret = node(Kind.DECLTYPE, expression(), null);
                        expect('E');
                        candidate = true;
                        break;
                    case 'p':
                        ret = node(Kind.PACK_EXPANSION, type(), null);
                        candidate = true;
                        break;
                    case 'a':
                        ret = DemangleNode.name("auto");
                        break;
                    case 'c':
                        ret = DemangleNode.name("decltype(auto)");
                        break;
                    case 'F': {
                        int bits = number();
                        String suffix = "";
                        if (peek() == 'x') {
                            suffix = "x";
                        } else if (peek() != '_') {
                            fail();
                        }
                        pos++;
                        ret = builtinNode(new Builtin("_Float" + bits + suffix, LiteralStyle.DEFAULT));
                        break;
                    }
                    case 'v': {
                        DemangleNode dim;
                        if (check('_')) {
                            dim = expression();
                        } else {
                            dim = numberNode();
                        }
                        expect('_');
                        ret = node(Kind.VECTOR_TYPE, dim, type());
                        candidate = true;
                        break;
                    }
                    default: {
                        Builtin b = D_BUILTINS.get(d);
                        if (b == null) {
                            fail();
                        }
                        ret = builtinNode(b);
                        break;
                    }
                }
                break;
            default:
                // <class-enum-type>: digits, N, Z, and also L (internal linkage), W (module)
                // and operator names, which the reference demangler accepts here too.
                ret = name();
                break;
        }
        if (candidate) {
            addSub(ret);
        }
        return ret;
    }

    private static DemangleNode builtinNode(Builtin b) {
        DemangleNode n = new DemangleNode(Kind.BUILTIN);
        n.builtin = b;
        return n;
    }

    private DemangleNode functionType() {
        enter();
        try {
            expect('F');
            check('Y'); // extern "C": not shown
            DemangleNode ret = bareFunctionType(true);
            ret = refQualifier(ret);
            expect('E');
            return ret;
        } finally {
            leave();
        }
    }

    private DemangleNode bareFunctionType(boolean hasReturnType) {
        if (check('J')) {
            hasReturnType = true;
        }
        DemangleNode returnType = hasReturnType ? type() : null;
        return node(Kind.FUNCTION_TYPE, returnType, parmList());
    }

    private DemangleNode parmList() {
        DemangleNode first = null;
        DemangleNode tail = null;
        while (true) {
            char c = peek();
            if (c == '\0' || c == 'E' || c == '.') {
                break;
            }
            if ((c == 'R' || c == 'O') && peekNext() == 'E') {
                break; // a ref-qualifier on the function type itself
            }
            DemangleNode cell = node(Kind.ARGLIST, type(), null);
            if (tail == null) {
                first = cell;
            } else {
                tail.right = cell;
            }
            tail = cell;
        }
        if (first == null) {
            fail();
        }
        if (first.right == null && first.left.kind == Kind.BUILTIN
                && first.left.builtin.style == LiteralStyle.VOID) {
            first.left = null; // (void) prints as ()
        }
        return first;
    }

    private DemangleNode arrayType() {
        expect('A');
        DemangleNode dim;
        char c = peek();
        if (c == '_') {
            dim = null;
        } else if (isDigit(c)) {
            int start = pos;
            while (isDigit(peek())) {
                pos++;
            }
            dim = DemangleNode.name(in.substring(start, pos));
        } else {
            dim = expression();
        }
        expect('_');
        return node(Kind.ARRAY_TYPE, dim, type());
    }

    // ---------------------------------------------------------------- expressions

    private DemangleNode expression() {
        boolean was = inExpression;
        inExpression = true;
        DemangleNode r = expressionBody();
        inExpression = was;
        return r;
    }

    private DemangleNode expressionBody() {
        enter();
        try {
            return expressionInner();
        } finally {
            leave();
        }
    }

    private DemangleNode expressionInner() {
        char c = peek();
        char n = peekNext();
        if (c == 'L') {
            return exprPrimary();
        }
        if (c == 'T') {
            return templateParam();
        }
        if (c == 's' && n == 'r') {
            pos += 2;
            if (isDigit(peek())) {
                DemangleNode levels = unresolvedQualifierLevels();
                if (levels != null) {
                    return levels;
                }
            }
            DemangleNode t = type();
            DemangleNode name = node(Kind.QUAL_NAME, t, unqualifiedName(null, null));
            if (peek() == 'I') {
                name = node(Kind.TEMPLATE, name, templateArgs());
            }
            return name;
        }
        if (c == 's' && n == 'p') {
            pos += 2;
            return node(Kind.PACK_EXPANSION, expressionBody(), null);
        }
        if (c == 'f' && n == 'p') {
            pos += 2;
            int index;
            if (check('T')) {
                index = 0;
            } else {
                index = compactNumber();
                if (index == Integer.MAX_VALUE) {
                    fail();
                }
                index++;
            }
            DemangleNode p = new DemangleNode(Kind.FUNCTION_PARAM);
            p.number = index;
            return p;
        }
        if (isDigit(c) || (c == 'o' && n == 'n')) {
            if (c == 'o') {
                pos += 2;
            }
            DemangleNode name = unqualifiedName(null, null);
            if (peek() == 'I') {
                return node(Kind.TEMPLATE, name, templateArgs());
            }
            return name;
        }
        if ((c == 'i' || c == 't') && n == 'l') {
            pos += 2;
            DemangleNode t = c == 't' ? type() : null;
            if (peek() == '\0' || peekNext() == '\0') {
                fail();
            }
            return node(Kind.INITIALIZER_LIST, t, exprList('E'));
        }
        DemangleNode op = operatorName();
        String code = null;
        int arity;
        switch (op.kind) {
            case OPERATOR:
                code = op.operator.code;
                if (code.equals("st")) {
                    return node(Kind.UNARY, op, type());
                }
                arity = op.operator.arity;
                break;
            case EXTENDED_OPERATOR:
                arity = op.number;
                break;
            case CAST:
                arity = 1;
                break;
            default:
                return fail();
        }
        switch (arity) {
            case 0:
                return node(Kind.NULLARY, op, null);
            case 1: {
                boolean postfix = false;
                if (code != null && (code.charAt(0) == 'p' || code.charAt(0) == 'm')
                        && code.charAt(1) == code.charAt(0)) {
                    postfix = !check('_'); // pp_/mm_ are the prefix forms
                }
                DemangleNode operand;
                if (op.kind == Kind.CAST && check('_')) {
                    operand = exprList('E');
                } else if ("sP".equals(code)) {
                    operand = templateArgsBody();
                } else {
                    operand = expressionBody();
                }
                return node(Kind.UNARY, op,
                        postfix ? node(Kind.BINARY_ARGS, operand, operand) : operand);
            }
            case 2: {
                if (code == null) {
                    fail();
                }
                DemangleNode left;
                if (isNewStyleCast(code)) {
                    left = type();
                } else if (code.charAt(0) == 'f') {
                    left = operatorName();
                } else if (code.equals("di")) {
                    left = unqualifiedName(null, null);
                } else {
                    left = expressionBody();
                }
                DemangleNode right;
                if (code.equals("cl")) {
                    right = exprList('E');
                } else if (code.equals("dt") || code.equals("pt")) {
                    char p = peek();
                    char q = peekNext();
                    if ((p == 'g' && q == 's') || (p == 's' && q == 'r')) {
                        right = expressionBody();
                    } else {
                        right = unqualifiedName(null, null);
                        if (peek() == 'I') {
                            right = node(Kind.TEMPLATE, right, templateArgs());
                        }
                    }
                } else {
                    right = expressionBody();
                }
                return node(Kind.BINARY, op, node(Kind.BINARY_ARGS, left, right));
            }
            case 3: {
                if (code == null) {
                    fail();
                }
                DemangleNode first;
                DemangleNode second;
                DemangleNode third;
                if (code.equals("qu") || code.equals("dX")) {
                    first = expressionBody();
                    second = expressionBody();
                    third = expressionBody();
                } else if (code.charAt(0) == 'f') {
                    first = operatorName();
                    second = expressionBody();
                    third = expressionBody();
                } else if (code.charAt(0) == 'n') {
                    first = exprList('_');
                    second = type();
                    if (check('E')) {
                        third = null;
                    } else if (peek() == 'p' && peekNext() == 'i') {
                        pos += 2;
                        third = exprList('E');
                    } else if (peek() == 'i' && peekNext() == 'l') {
                        third = expressionBody();
                    } else {
                        return fail();
                    }
                } else {
                    return fail();
                }
                return node(Kind.TRINARY, op,
                        node(Kind.TRINARY_ARG1, first, node(Kind.TRINARY_ARG2, second, third)));
            }
            default:
                return fail();
        }
    }

    /**
     * {@code sr <simple-id>+ E <base-unresolved-name>}, e.g. {@code std::is_signed<T>::value}.
     * It cannot be told from {@code sr <type> <name>} before its {@code E}, so it is tried first
     * and abandoned (with everything it recorded) if it does not parse; null then.
     */
    private DemangleNode unresolvedQualifierLevels() {
        int holdPos = pos;
        int holdSubs = subs.size();
        int holdDepth = depth;
        DemangleNode holdLast = lastName;
        boolean holdConversion = inConversion;
        boolean holdExpression = inExpression;
        try {
            DemangleNode qualifier = qualifierLevels();
            expect('E');
            DemangleNode name = unqualifiedName(null, null);
            if (qualifier != null) {
                name = node(Kind.QUAL_NAME, qualifier, name);
            }
            if (peek() == 'I') {
                name = node(Kind.TEMPLATE, name, templateArgs());
            }
            return name;
        } catch (Failure e) {
            pos = holdPos;
            subs.subList(holdSubs, subs.size()).clear();
            depth = holdDepth;
            lastName = holdLast;
            inConversion = holdConversion;
            inExpression = holdExpression;
            return null;
        }
    }

    /**
     * The qualifier levels, read like a nested-name prefix but recording no substitutions. On a
     * component it cannot use it returns null and leaves the position there; the reference
     * demangler then still accepts the expression, printing only the final name.
     */
    private DemangleNode qualifierLevels() {
        DemangleNode ret = null;
        while (true) {
            char c = peek();
            if (c == 'D' && (peekNext() == 'T' || peekNext() == 't')) {
                if (ret != null) {
                    return null;
                }
                ret = type();
            } else if (c == 'I') {
                if (ret == null) {
                    return null;
                }
                ret = node(Kind.TEMPLATE, ret, templateArgs());
            } else if (c == 'T') {
                if (ret != null) {
                    return null;
                }
                ret = templateParam();
            } else if (c == 'M') {
                pos++;
                continue;
            } else {
                DemangleNode module = null;
                if (c == 'S') {
                    module = substitution();
                    if (!isModule(module)) {
                        if (ret != null) {
                            return null;
                        }
                        ret = module;
                        continue;
                    }
                }
                int holdDepth = depth;
                try {
                    ret = unqualifiedName(ret, module);
                } catch (Failure e) {
                    depth = holdDepth;
                    return null;
                }
            }
            if (peek() == 'E') {
                return ret;
            }
        }
    }

    static boolean isNewStyleCast(String code) {
        return code.equals("dc") || code.equals("sc") || code.equals("cc") || code.equals("rc");
    }

    private DemangleNode exprList(char terminator) {
        if (check(terminator)) {
            return node(Kind.ARGLIST, null, null);
        }
        DemangleNode first = null;
        DemangleNode tail = null;
        while (true) {
            DemangleNode cell = node(Kind.ARGLIST, expressionBody(), null);
            if (tail == null) {
                first = cell;
            } else {
                tail.right = cell;
            }
            tail = cell;
            if (check(terminator)) {
                return first;
            }
        }
    }

    private DemangleNode exprPrimary() {
        expect('L');
        DemangleNode ret;
        if (peek() == '_' || peek() == 'Z') {
            ret = mangledName(false);
        } else {
            DemangleNode t = type();
            if (t.kind == Kind.BUILTIN && t.builtin == NULLPTR && check('E')) {
                return t;
            }
            Kind kind = Kind.LITERAL;
            if (check('n')) {
                kind = Kind.LITERAL_NEG;
            }
            int start = pos;
            while (peek() != 'E') {
                if (peek() == '\0') {
                    fail();
                }
                pos++;
            }
            if (pos == start) {
                fail();
            }
            ret = node(kind, t, DemangleNode.name(in.substring(start, pos)));
        }
        expect('E');
        return ret;
    }
}
