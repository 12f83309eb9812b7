package org.flagos.trace.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents lead somewhere (issue: the README had no links, docs/ no index, and
 * docs/architecture.md was never pointed to): every relative link in README.md and docs/ names a
 * file of the repository, and every #anchor into a markdown file a heading of it; docs/README.md
 * lists every document; the README shows the embedding pom ReadmeEmbeddingTest builds with.
 */
class DocsLinksTest {
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    private static List<Path> documents() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> walk = Files.walk(Path.of("docs"))) {
            walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** The lines of {@code doc} outside fenced code blocks. */
    private static List<String> prose(Path doc) throws IOException {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(doc)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                out.add(line);
            }
        }
        return out;
    }

    /** GitHub's anchors for the headings of {@code doc}: lower case, punctuation dropped, spaces to '-', repeats numbered. */
    static Set<String> anchors(Path doc) throws IOException {
        Set<String> out = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(doc)) {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = h.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                out.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return out;
    }

    @Test
    void everyRelativeLinkNamesAFileAndEveryAnchorAHeading() throws IOException {
        int checked = 0;
        List<String> broken = new ArrayList<>();
        for (Path doc : documents()) {
            for (String line : prose(doc)) {
                Matcher m = LINK.matcher(line);
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                        continue; // https:, mailto: and the like
                    }
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path resolved = file.isEmpty() ? doc : doc.resolveSibling(file).normalize();
                    checked++;
                    if (!Files.exists(resolved)) {
                        broken.add(doc + ": " + target + " (no " + resolved + ")");
                    } else if (hash >= 0 && resolved.toString().endsWith(".md")
                            && !anchors(resolved).contains(target.substring(hash + 1))) {
                        broken.add(doc + ": " + target + " (no such heading in " + resolved + ": " + anchors(resolved) + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
        assertTrue(checked > 40, "links were read: " + checked);
    }

    @Test
    void anchorsAreGithubs() throws IOException {
        Path doc = Files.createDirectories(Path.of("target")).resolve("docs-links-anchors.md");
        Files.writeString(doc, "# Perfetto trace (`-o TRACE.pftrace`)\n## The table's layout\n## Notes\n## Notes\n```\n# not a heading\n```\n");
        try {
            assertEquals(Set.of("perfetto-trace--o-tracepftrace", "the-tables-layout", "notes", "notes-1"), anchors(doc));
        } finally {
            Files.delete(doc);
        }
    }

    @Test
    void theReadmeLeadsToTheIndexAndTheArchitectureAndTheIndexListsEveryDocument() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        assertTrue(readme.contains("](docs/README.md)") && readme.contains("](docs/architecture.md)"));
        // Each document is listed by the README.md of its own folder (docs/vendors/README.md lists the vendor pages),
        // and that one by docs/README.md.
        try (Stream<Path> walk = Files.walk(Path.of("docs"))) {
            for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                if (p.getFileName().toString().equals("README.md") && p.getParent().equals(Path.of("docs"))
                        || p.startsWith(Path.of("docs/images"))) {
                    continue;
                }
                boolean folderIndex = p.getFileName().toString().equals("README.md");
                Path index = folderIndex ? Path.of("docs/README.md") : p.resolveSibling("README.md");
                String name = index.getParent().relativize(p).toString();
                assertTrue(Files.exists(index) && Files.readString(index).contains("](" + name + ")"), index + " lists " + name);
            }
        }
    }

    @Test
    void theReadmeShowsTheEmbeddingPomItsTestBuildsWith() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        String marker = "<!-- embedding: pom.xml -->\n```xml\n";
        int start = readme.indexOf(marker);
        assertTrue(start >= 0, "README has the pom after " + marker.strip());
        start += marker.length();
        String shown = readme.substring(start, readme.indexOf("```", start));
        assertEquals(Files.readString(Path.of("src/test/embedding/pom.xml")), shown);
        assertTrue(shown.contains("<artifactId>maven-compiler-plugin</artifactId>"), "Maven 3.8 needs it pinned");
        assertTrue(readme.contains("java -cp \"target/classes:$(cat cp.txt)\" Example"), "how to run the example");
    }
}
