package org.flagos.trace.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The floors of {@link Floors}, checked on the compiled classes and on the source folders: the model
 * imports nothing of the project, no import runs back up a floor, each source folder holds one floor's
 * packages and each file's package is its folder, so the folders show the floors too.
 */
class LayeringTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.flagos.trace");

    @Test
    void noImportRunsBackUp() {
        Floors.rule("org.flagos.trace").check(MAIN);
    }

    @Test
    void theModelImportsNothingOfTheProject() {
        noClasses().that().resideInAPackage("org.flagos.trace.model..")
                .should().dependOnClassesThat(resideInAPackage("org.flagos.trace..").and(resideOutsideOfPackage("org.flagos.trace.model..")))
                .because("the vendor-neutral model is the ground floor")
                .check(MAIN);
    }

    @Test
    void nothingInTheMainJarNeedsSpark() {
        // Spark is the optional spark jar's (spark/main, docs/analysis.md): the CLI and the embedding never load it.
        noClasses().that().resideInAPackage("org.flagos.trace..")
                .should().dependOnClassesThat(resideInAPackage("org.apache.spark..").or(resideInAPackage("scala..")))
                .because("Spark is only in the optional spark jar")
                .check(MAIN);
    }

    @Test
    void theRuleFailsAnImportThatRunsBackUp() {
        // A sample tree with one arrow up (sample.model -> sample.capture) and one sideways-down
        // (sample.capture -> sample.stages -> sample.model): exactly the upward one is reported.
        JavaClasses sample = new ClassFileImporter().importPackages("org.flagos.trace.architecture.sample");
        EvaluationResult result = Floors.rule("org.flagos.trace.architecture.sample").evaluate(sample);
        assertTrue(result.hasViolation(), "the sample's upward import is not reported");
        List<String> lines = result.getFailureReport().getDetails();
        assertTrue(lines.stream().allMatch(l -> l.contains("sample.model.UpwardRecord")), String.join("\n", lines));
    }

    /** The source folders and the packages each holds: one floor's, so the folders show the floors. */
    static final Map<String, List<String>> FOLDERS = Map.of(
            "model", Floors.MODEL,
            "ingest", List.of("ingest", "journal"),
            "stages", List.of("stages"),
            "native", List.of("natives"),
            "vendors", List.of("vendors"),
            "encoders", Floors.ENCODERS,
            "pipeline", Floors.PIPELINE,
            "analysis", Floors.ANALYSIS,
            "cli", Floors.CLI,
            "spark/main", List.of("spark"));

    @Test
    void eachSourceFolderHoldsOneFloor() throws IOException {
        for (var folder : FOLDERS.entrySet()) {
            Path root = Path.of(folder.getKey(), "org", "flagos", "trace");
            TreeSet<String> found = new TreeSet<>();
            try (Stream<Path> dirs = Files.list(root)) {
                dirs.filter(Files::isDirectory).forEach(d -> found.add(d.getFileName().toString()));
            }
            assertEquals(new TreeSet<>(folder.getValue()), found, "packages in " + folder.getKey() + "/");
        }
    }

    @Test
    void everyFilesPackageIsItsFolder() throws IOException {
        // Below each source root (main and test), a file's package is its path: org/flagos/trace/x/Y.java is in org.flagos.trace.x.
        List<String> roots = new java.util.ArrayList<>(FOLDERS.keySet());
        roots.addAll(List.of("src/test/java", "benchmarks/java", "spark/test"));
        List<String> wrong = new java.util.ArrayList<>();
        int files = 0;
        for (String r : roots) {
            Path root = Path.of(r);
            if (!Files.isDirectory(root)) {
                continue;
            }
            List<Path> sources;
            try (Stream<Path> all = Files.walk(root)) {
                sources = all.filter(f -> f.toString().endsWith(".java")).toList();
            }
            for (Path f : sources) {
                files++;
                String expected = root.relativize(f.getParent()).toString().replace(java.io.File.separatorChar, '.');
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;").matcher(Files.readString(f));
                String declared = m.find() ? m.group(1) : "";
                if (!declared.equals(expected)) {
                    wrong.add(f + ": package " + declared + ", folder " + expected);
                }
            }
        }
        assertTrue(files > 500, "too few sources found (" + files + "): is the working directory the project root?");
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void everyMainPackageSaysItsJob() throws IOException {
        List<String> missing = new java.util.ArrayList<>();
        for (String r : FOLDERS.keySet()) {
            if (r.startsWith("spark")) {
                continue;
            }
            try (Stream<Path> all = Files.walk(Path.of(r, "org"))) {
                all.filter(f -> f.toString().endsWith(".java")).map(Path::getParent).distinct()
                        .filter(d -> !Files.exists(d.resolve("package-info.java")))
                        .forEach(d -> missing.add(d.toString()));
            }
        }
        assertTrue(missing.isEmpty(), "no package-info.java in " + missing);
    }
}
