package io.watukuy.opentelemetry;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Nothing in this module uses the engine's internals: only the packages core exports. */
class NoInternalAccessTest {
  @Test
  void thisModuleUsesOnlyThePublicApiOfCore() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.watukuy.internal..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.watukuy.opentelemetry"));
  }
}
