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
 * imports nothing of the project, nothing standing on it imports the assembly, and each source folder
 * holds one floor's packages, so the folders show the floors too.
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

    @Test
    void eachSourceFolderHoldsOneFloor() throws IOException {
        Map<String, List<String>> folders = Map.of(
                "model", Floors.MODEL,
                "ingest", List.of("ingest", "journal"),
                "stages", List.of("stages", "names"),
                "native", List.of("natives"),
                "vendors", List.of("vendors"),
                "pipeline", Floors.ASSEMBLY,
                "spark/main", List.of("spark"));
        for (var folder : folders.entrySet()) {
            Path root = Path.of(folder.getKey(), "org", "flagos", "trace");
            TreeSet<String> found = new TreeSet<>();
            try (Stream<Path> dirs = Files.list(root)) {
                dirs.filter(Files::isDirectory).forEach(d -> found.add(d.getFileName().toString()));
            }
            assertEquals(new TreeSet<>(folder.getValue()), found, "packages in " + folder.getKey() + "/");
        }
    }
}
