package io.watukuy.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Core depends on Jackson and the SLF4J API only (docs/architecture.md, "Modules"): no database
 * driver, web framework or HTTP client library; the HTTP helper uses the JDK's java.net.http.
 */
class ArchitectureTest {
  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.watukuy");

  @Test
  void coreUsesNoDatabaseDriverWebFrameworkOrHttpClientLibrary() {
    noClasses()
        .that()
        .resideInAPackage("io.watukuy..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "javax.sql..",
            "org.sqlite..",
            "org.postgresql..",
            "io.lettuce..",
            "redis.clients..",
            "okhttp3..",
            "org.apache.http..",
            "org.apache.hc..",
            "org.springframework..",
            "jakarta.servlet..",
            "javax.servlet..",
            "io.netty..",
            "com.sun.net.httpserver..")
        .check(CORE);
  }

  @Test
  void coreDependsOnlyOnTheJdkJacksonSlf4jAndJspecify() {
    noClasses()
        .that()
        .resideInAPackage("io.watukuy..")
        .should()
        .dependOnClassesThat()
        .resideOutsideOfPackages(
            "io.watukuy..",
            "java..",
            "javax.net..",
            "javax.crypto..", // the JDK's AES-GCM (SealingKeys)
            "com.fasterxml.jackson..",
            "org.slf4j..",
            "org.jspecify..")
        .check(CORE);
  }

  @Test
  void onlySystemTimeSourceReadsTheRealClockOrSleeps() {
    noClasses()
        .that()
        .resideInAPackage("io.watukuy..")
        .and()
        .doNotHaveFullyQualifiedName("io.watukuy.internal.SystemTimeSource")
        .should()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .callMethod(java.time.Instant.class, "now")
        .orShould()
        .callMethod(Thread.class, "sleep", long.class)
        .orShould()
        .callMethod(Math.class, "random")
        .orShould()
        .callMethod(java.util.concurrent.ThreadLocalRandom.class, "current")
        .orShould()
        .callMethod(java.time.Clock.class, "systemUTC")
        .because("time and randomness are injected (G8): TimeSource and RandomGenerator")
        .check(CORE);
  }

  @Test
  void cursorDriversDoNotUseTheHttpInternals() {
    noClasses()
        .that()
        .resideInAPackage("io.watukuy.internal.cursor..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.watukuy.internal.http..")
        .check(CORE);
  }
}
