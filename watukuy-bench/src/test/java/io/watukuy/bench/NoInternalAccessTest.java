package io.watukuy.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The bench measures watukuy through its public API, like a user would. The two hash benchmarks
 * alone time the canonical hashing inside core, which module-info exports to this module only.
 */
class NoInternalAccessTest {
  @Test
  void onlyTheTwoHashBenchmarksReachTheEngineInternals() {
    noClasses()
        .that()
        .resideInAPackage("io.watukuy.bench")
        .and()
        .doNotHaveSimpleName(CanonicalHashBench.class.getSimpleName())
        .and()
        .doNotHaveSimpleName(EventIdBench.class.getSimpleName())
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.watukuy.internal..")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.watukuy.bench"));
  }

  @Test
  void theHashBenchmarksReachOnlyTheCanonicalHashing() {
    noClasses()
        .that()
        .resideInAPackage("io.watukuy.bench")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.watukuy.internal",
            "io.watukuy.internal.cursor",
            "io.watukuy.internal.http",
            "io.watukuy.internal.budget")
        .check(
            new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.watukuy.bench"));
  }
}
