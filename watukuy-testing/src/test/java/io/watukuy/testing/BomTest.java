package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * watukuy-bom names every module an application may depend on, so that a module added to the build
 * cannot be forgotten there: every {@code watukuy-*} module of the root pom but the bench and the
 * BOM itself.
 */
class BomTest {
  private static final Pattern MODULE = Pattern.compile("<module>(watukuy-[a-z-]+)</module>");
  private static final Pattern ARTIFACT =
      Pattern.compile("<artifactId>(watukuy-[a-z-]+)</artifactId>");

  @Test
  void theBomNamesEveryPublishedModule() throws Exception {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<String> modules =
        all(MODULE, Files.readString(root.resolve("pom.xml"))).stream()
            .filter(m -> !m.equals("watukuy-bench") && !m.equals("watukuy-bom"))
            .toList();
    List<String> inBom = all(ARTIFACT, Files.readString(root.resolve("watukuy-bom/pom.xml")));
    assertThat(modules).contains("watukuy-core", "watukuy-store-sqlite");
    assertThat(inBom).containsAll(modules);
  }

  private static List<String> all(Pattern pattern, String text) {
    Matcher m = pattern.matcher(text);
    return m.results().map(r -> r.group(1)).toList();
  }
}
