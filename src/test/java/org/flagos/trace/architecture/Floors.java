package org.flagos.trace.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;

/**
 * The three floors of the house, by package: the vendor-neutral model at the bottom; the readers,
 * stages, name tools, native bindings and vendors on it; the assembly (ring wiring, capture, session,
 * journal replay, CLI, report) on top. Imports only run down.
 */
final class Floors {
    static final List<String> MODEL = List.of("model");
    static final List<String> STANDING = List.of("ingest", "journal", "stages", "names", "natives", "vendors");
    static final List<String> ASSEMBLY = List.of("capture", "session", "cli", "report", "merge", "sql", "tracefile");

    private Floors() {
    }

    /** The rule over the packages below {@code root} (org.flagos.trace, or a sample tree in tests). */
    static LayeredArchitecture rule(String root) {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("model").definedBy(packages(root, MODEL))
                .layer("standing").definedBy(packages(root, STANDING))
                .layer("assembly").definedBy(packages(root, ASSEMBLY))
                .whereLayer("assembly").mayNotBeAccessedByAnyLayer()
                .whereLayer("standing").mayOnlyBeAccessedByLayers("assembly")
                .ensureAllClassesAreContainedInArchitectureIgnoring(root + ".architecture..");
    }

    static String[] packages(String root, List<String> names) {
        return names.stream().map(n -> root + "." + n + "..").toArray(String[]::new);
    }
}
