package io.watukuy.examples.modulepath;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link ModulePathApp} in a JVM of its own with {@code --module-path} (never the class path),
 * so the module descriptors of core and the SQLite store are what resolves it: a missing {@code
 * requires}, a package not exported or a resource behind a closed package fails here.
 */
class ModulePathTest {
  @Test
  void anApplicationModuleMirrorsItsCatalogueAndSeesOnlyTheExportedPackages(@TempDir Path dir)
      throws Exception {
    String modulePath =
        Path.of("target", "classes").toAbsolutePath()
            + File.pathSeparator
            + Files.readString(Path.of("target", "module-path.txt")).strip();
    Path out = dir.resolve("out.txt");
    Process java =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path",
                modulePath,
                "--module",
                "io.watukuy.examples.modulepath/" + ModulePathApp.class.getName(),
                dir.resolve("state.db").toString())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertThat(java.waitFor(60, TimeUnit.SECONDS)).as("finished within 60 s").isTrue();
    List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
    assertThat(java.exitValue()).as(String.join("\n", lines)).isZero();
    List<String> output = lines.stream().filter(l -> !l.startsWith("[")).toList();
    int first = output.indexOf("--");
    int second = output.lastIndexOf("--");
    // events of different items are handled concurrently: each pass's order is free
    assertThat(output.subList(0, first))
        .containsExactlyInAnyOrder("created SKU-1", "created SKU-2");
    assertThat(output.subList(first + 1, second))
        .containsExactlyInAnyOrder("updated SKU-2", "deleted SKU-1");
    assertThat(output.subList(second + 1, output.size()))
        .containsExactly(
            "io.watukuy exported: true",
            "io.watukuy.spi exported: true",
            "io.watukuy.store.memory exported: true",
            "io.watukuy.internal exported: false");
  }
}
