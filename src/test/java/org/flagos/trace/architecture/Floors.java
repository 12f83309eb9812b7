package org.flagos.trace.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;

/**
 * The floors of the house, by package, bottom up: the vendor-neutral model; the readers, the
 * stages (with the demangler), the native bindings and the vendors on it; the output encoders on the
 * stages' sink contract; the pipeline (capture assembly, session); the analysis of trace files
 * (report, merge, sql, the trace reader); the CLI on top. Imports only run down.
 */
final class Floors {
    static final List<String> MODEL = List.of("model");
    static final List<String> STANDING = List.of("ingest", "journal", "stages", "natives", "vendors");
    static final List<String> ENCODERS = List.of("encoders");
    static final List<String> PIPELINE = List.of("capture", "session");
    static final List<String> ANALYSIS = List.of("merge", "report", "sql", "tracefile");
    static final List<String> CLI = List.of("cli", "agent");

    private Floors() {
    }

    /** The rule over the packages below {@code root} (org.flagos.trace, or a sample tree in tests). */
    static LayeredArchitecture rule(String root) {
        return layeredArchitecture().consideringOnlyDependenciesInLayers().withOptionalLayers(true)
                .layer("model").definedBy(packages(root, MODEL))
                .layer("standing").definedBy(packages(root, STANDING))
                .layer("encoders").definedBy(packages(root, ENCODERS))
                .layer("pipeline").definedBy(packages(root, PIPELINE))
                .layer("analysis").definedBy(packages(root, ANALYSIS))
                .layer("cli").definedBy(packages(root, CLI))
                .whereLayer("cli").mayNotBeAccessedByAnyLayer()
                .whereLayer("analysis").mayOnlyBeAccessedByLayers("cli")
                .whereLayer("pipeline").mayOnlyBeAccessedByLayers("analysis", "cli")
                .whereLayer("encoders").mayOnlyBeAccessedByLayers("pipeline", "analysis", "cli")
                .whereLayer("standing").mayOnlyBeAccessedByLayers("encoders", "pipeline", "analysis", "cli")
                .ensureAllClassesAreContainedInArchitectureIgnoring(root + ".architecture..");
    }

    static String[] packages(String root, List<String> names) {
        return names.stream().map(n -> root + "." + n + "..").toArray(String[]::new);
    }
}
