package org.flagos.trace.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Vendor types (a vendor's decoders, tracers, layouts) live only in {@code vendors/} and
 * {@code native/}. Everything else reaches a vendor through the vendor-neutral contracts and the one
 * table {@code org.flagos.trace.vendors.Vendors}.
 */
class VendorBoundaryTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.flagos.trace");

    @Test
    void nothingOutsideVendorsAndNativeUsesAVendorType() {
        noClasses().that().resideOutsideOfPackages("org.flagos.trace.vendors..", "org.flagos.trace.natives..")
                .should().dependOnClassesThat().resideInAPackage("org.flagos.trace.vendors.(*)..")
                .because("vendor types stay below the DeviceTracer / ActivityBufferDecoder boundary")
                .check(CLASSES);
    }

    @Test
    void theStagesAndTheTraceWriterAreVendorNeutral() {
        noClasses().that().resideInAnyPackage("org.flagos.trace.stages..", "org.flagos.trace.encoders..", "org.flagos.trace.model..")
                .should().dependOnClassesThat().resideInAnyPackage("org.flagos.trace.vendors..", "org.flagos.trace.natives..",
                        "org.flagos.trace.capture..", "org.flagos.trace.cli..")
                .check(CLASSES);
    }

    @Test
    void vendorsKnowNeitherTheSessionNorTheCli() {
        noClasses().that().resideInAPackage("org.flagos.trace.vendors..")
                .should().dependOnClassesThat().resideInAnyPackage("org.flagos.trace.session..", "org.flagos.trace.cli..",
                        "org.flagos.trace.capture..")
                .because("a vendor plugs into the model (pipeline) only; the session and the CLI sit on top")
                .check(CLASSES);
    }

    @Test
    void onlyTheVendorTableNamesAVendorLibrary() {
        // Accelerator detection probes the CUDA bindings by name: that probe belongs to the vendor table.
        noClasses().that().resideOutsideOfPackages("org.flagos.trace.vendors..", "org.flagos.trace.natives..")
                .should().dependOnClassesThat().resideInAPackage("org.bytedeco..")
                .check(CLASSES);
    }

    @Test
    void theRuleIsNotVacuous() {
        // The vendor types exist and live under vendors (or native bindings): if they moved, the rules
        // above would pass trivially.
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes()
                .that().haveSimpleNameStartingWith("Cupti")
                .should().resideInAnyPackage("org.flagos.trace.vendors..", "org.flagos.trace.natives..")
                .allowEmptyShould(false)
                .check(CLASSES);
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes()
                .that().implement(org.flagos.trace.model.DeviceTracer.class)
                .and().doNotHaveSimpleName("UnavailableTracer")
                .should().resideInAPackage("org.flagos.trace.vendors..")
                .allowEmptyShould(false)
                .check(CLASSES);
    }
}
