package io.watukuy.sink.jdbc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Nothing outside watukuy-core uses the engine's internals: only the packages core exports
 * (io.watukuy, io.watukuy.spi, io.watukuy.store.memory).
 */
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
                .importPackages("io.watukuy.sink.jdbc"));
  }
}
