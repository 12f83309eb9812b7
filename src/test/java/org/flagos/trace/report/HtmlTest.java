package org.flagos.trace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import javax.xml.parsers.DocumentBuilderFactory;
import org.flagos.trace.testing.TraceJson;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * {@link Html}: a name put in as text comes back from an XML parser as itself, in an element and in an attribute: every
 * name of torch's own H200 trace (templates full of {@code <}, {@code >} and {@code &}) and random strings of any
 * UTF-16 units, where what XML 1.0 cannot hold is replaced (control characters by a space, lone surrogates by
 * U+FFFD); numbers to one decimal.
 */
class HtmlTest {
    /** What an XML parser gives back for {@code s} written through {@link Html#text}: element text and attribute value. */
    private static String[] roundTrip(String s) throws Exception {
        String page = new Html().raw("<p title=\"").text(s).raw("\">").text(s).raw("</p>").toString();
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(page.getBytes(StandardCharsets.UTF_8)));
        Element p = d.getDocumentElement();
        return new String[] {p.getTextContent(), p.getAttribute("title")};
    }

    /** {@code s} as XML 1.0 can hold it. */
    private static String representable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
            boolean second = Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
            if (c < 0x20 && c != '\n' && c != '\t') {
                b.append(' ');
            } else if (Character.isSurrogate(c) && !pair && !second) {
                b.append('\uFFFD');
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    @Test
    void everyNameOfTorchsTraceComesBackAsItself() throws Exception {
        JsonNode events = TraceJson.MAPPER.readTree(TorchKeyAveragesTest.resource("torch_trace.json").toFile()).get("traceEvents");
        int names = 0;
        for (JsonNode e : events) {
            String name = e.path("name").asText("");
            String[] back = roundTrip(name);
            assertEquals(name, back[0]);
            assertEquals(name, back[1]);
            names += name.contains("<") || name.contains("&") ? 1 : 0;
        }
        assertEquals(true, names > 10, "names with markup characters: " + names);
    }

    @Test
    void randomStringsComeBackAsXmlCanHoldThem() throws Exception {
        Random r = new Random(30);
        String alphabet = "<>&\"'\n\t\u0000\u0001\u001f a\u00e9\u4e2d";
        for (int n = 0; n < 2000; n++) {
            StringBuilder s = new StringBuilder();
            int length = r.nextInt(20);
            for (int i = 0; i < length; i++) {
                switch (r.nextInt(4)) {
                    case 0 -> s.append((char) (0xD800 + r.nextInt(0x800))); // a surrogate, paired by chance or not
                    case 1 -> s.appendCodePoint(0x10000 + r.nextInt(0x1000)); // a proper pair
                    default -> s.append(alphabet.charAt(r.nextInt(alphabet.length())));
                }
            }
            String text = s.toString();
            String want = representable(text);
            String[] back = roundTrip(text);
            assertEquals(want, back[0], "element: " + escape(text));
            assertEquals(want.replace('\n', ' ').replace('\t', ' '), back[1], "attribute: " + escape(text) + " (a parser reads a tab or"
                    + " newline in an attribute as a space)");
        }
    }

    @Test
    void exactEscapes() {
        assertEquals("&lt;a href=&quot;x&quot;&gt;&amp;&#39; \n\t \uFFFD\uD83D\uDE00", new Html().text("<a href=\"x\">&'\u0000\n\t\u0007"
                + "\uDC00\uD83D\uDE00").toString());
        assertEquals("<b>12.3</b>", new Html().raw("<b>").num(12.345).raw("</b>").toString());
    }

    private static String escape(String s) {
        StringBuilder b = new StringBuilder();
        s.chars().forEach(c -> b.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return b.toString();
    }
}
