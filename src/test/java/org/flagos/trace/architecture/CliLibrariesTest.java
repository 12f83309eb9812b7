package org.flagos.trace.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The CLI's libraries (picocli, progressbar and the JLine terminal it draws on) are optional
 * dependencies in pom.xml: a program embedding flagtrace does not get them, so no library class may
 * reach them, nor the CLI that does. Only {@code org.flagos.trace.cli} uses them.
 */
class CliLibrariesTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.flagos.trace");

    @Test
    void onlyTheCliUsesPicocliProgressbarOrJline() {
        noClasses().that().resideOutsideOfPackage("org.flagos.trace.cli..")
                .should().dependOnClassesThat().resideInAnyPackage("picocli..", "me.tongfei..", "org.jline..")
                .because("they are optional in pom.xml: an embedding program's class path does not have them")
                .check(CLASSES);
    }

    @Test
    void theLibraryDoesNotReachTheCli() {
        noClasses().that().resideOutsideOfPackage("org.flagos.trace.cli..")
                .should().dependOnClassesThat().resideInAPackage("org.flagos.trace.cli..")
                .because("the CLI's classes load picocli, which an embedding program does not have")
                .check(CLASSES);
    }
}
