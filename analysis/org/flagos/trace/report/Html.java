package org.flagos.trace.report;

/** Text for an HTML page that is also well-formed XML: everything escaped, nothing unclosed. */
final class Html {
    private final StringBuilder out = new StringBuilder(1 << 16);

    /** Appends markup written by this package (never text from the trace). */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    /** Appends text from anywhere (names from the trace), escaped for element content and attributes. */
    Html text(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&': out.append("&amp;"); break;
                case '<': out.append("&lt;"); break;
                case '>': out.append("&gt;"); break;
                case '"': out.append("&quot;"); break;
                case '\'': out.append("&#39;"); break;
                default:
                    if (c < 0x20 && c != '\n' && c != '\t') {
                        out.append(' '); // control characters are not allowed in XML 1.0
                    } else if (Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1)))
                            && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)))) {
                        out.append('\uFFFD'); // a lone surrogate cannot be encoded
                    } else {
                        out.append(c);
                    }
            }
        }
        return this;
    }

    Html num(double v) {
        out.append(KeyAveragesTable.fixed(v, 1));
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
