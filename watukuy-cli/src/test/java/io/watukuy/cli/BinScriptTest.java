package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/watukuy} reached through a symlink (say {@code ~/bin/watukuy}) finds the checkout the
 * link points to, not the folder the link lives in. Run on a copy of the script in a checkout
 * without a built jar, so the script's own message names the jar it looked for.
 */
class BinScriptTest {
  @TempDir Path dir;

  @Test
  void theScriptReachedThroughASymlinkLooksForTheJarOfTheCheckoutItPointsTo() throws Exception {
    Path checkout = dir.resolve("checkout");
    Files.createDirectories(checkout.resolve("bin"));
    Path script = checkout.resolve("bin/watukuy");
    Files.copy(Path.of("..", "bin", "watukuy"), script);
    assertThat(script.toFile().setExecutable(true)).isTrue();
    Path links = Files.createDirectories(dir.resolve("home/bin"));
    Path link = Files.createSymbolicLink(links.resolve("watukuy"), script);
    // A link to the link, relative: resolved step by step.
    Path again = Files.createSymbolicLink(dir.resolve("wk"), Path.of("home/bin/watukuy"));

    for (Path entry : new Path[] {link, again}) {
      Process p =
          new ProcessBuilder("bash", entry.toString(), "--version")
              .redirectErrorStream(true)
              .start();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(p.exitValue()).isEqualTo(2);
      assertThat(said)
          .startsWith(
              "watukuy: "
                  + checkout.toRealPath().resolve("watukuy-cli/target/watukuy.jar")
                  + " is missing");
    }
  }
}
