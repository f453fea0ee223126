package io.watukuy.spring.boot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Nothing in this module uses the engine's internals: only the packages core exports. */
class NoInternalAccessTest {
  @Test
  void thisModuleUsesOnlyThePublicApiOfCore() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.watukuy.internal..")
        // This module's classes only: looking for the package in Spring's many jars takes long.
        .check(new ClassFileImporter().importPath(Path.of("target/classes")));
  }
}
