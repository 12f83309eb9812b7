package org.flagos.trace.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The report's page rules, checked: well-formed XML, nothing that reaches outside the page; and finding its elements. */
public final class HtmlPages {
    private static final Pattern EXTERNAL = Pattern.compile(
            "(?i)https?:|//[a-z0-9]|\\ssrc\\s*=|\\shref\\s*=|<script|<link|<iframe|<object|<embed|url\\(|@import");

    private HtmlPages() {
    }

    /** The page parsed as XML (it fails on a page that is not well-formed). */
    public static Document parse(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }

    /** The element {@code tag} with id {@code id}, or null. */
    public static Element byId(Document doc, String tag, String id) {
        NodeList nodes = doc.getElementsByTagName(tag);
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (id.equals(e.getAttribute("id"))) {
                return e;
            }
        }
        return null;
    }

    /** The elements {@code tag} under {@code parent} whose class is {@code cls}, in document order. */
    public static List<Element> byClass(Element parent, String tag, String cls) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getElementsByTagName(tag);
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (cls.equals(e.getAttribute("class"))) {
                out.add(e);
            }
        }
        return out;
    }

    /** No URL, src, href, script, link, frame, object, embed, url( or @import anywhere in the page. */
    public static void assertSelfContained(String html) {
        assertFalse(EXTERNAL.matcher(html).find(), () -> "reaches outside the page: " + EXTERNAL.matcher(html).results()
                .map(m -> html.substring(Math.max(0, m.start() - 40), Math.min(html.length(), m.end() + 40))).findFirst().orElse(""));
    }
}
