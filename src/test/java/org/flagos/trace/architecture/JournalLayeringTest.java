package org.flagos.trace.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The journal persists the vendor-neutral capture: it knows the model and the ingest types, never a
 * vendor, the stages, the session or the CLI; and Chronicle stays behind it (and the replay that
 * reads it), so the rest of flagtrace does not depend on the queue library.
 */
class JournalLayeringTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.flagos.trace");

    @Test
    void theJournalIsVendorNeutralPersistence() {
        noClasses().that().resideInAPackage("org.flagos.trace.journal..")
                .should().dependOnClassesThat().resideInAnyPackage("org.flagos.trace.vendors..", "org.flagos.trace.natives..",
                        "org.flagos.trace.stages..", "org.flagos.trace.encoders..", "org.flagos.trace.capture..", "org.flagos.trace.session..",
                        "org.flagos.trace.cli..")
                .check(CLASSES);
    }

    @Test
    void onlyTheJournalUsesChronicle() {
        noClasses().that().resideOutsideOfPackage("org.flagos.trace.journal..")
                .should().dependOnClassesThat().resideInAPackage("net.openhft..")
                .check(CLASSES);
        classes().that().resideInAPackage("org.flagos.trace.journal..").and().haveSimpleName("JournalWriter")
                .should().dependOnClassesThat().resideInAPackage("net.openhft.chronicle.queue..")
                .allowEmptyShould(false)
                .check(CLASSES);
    }
}
