package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.Poller;
import io.watukuy.RequestOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code request.maxBodySize} and {@code maxItemSize} in YAML (docs/config.md). */
class SizeSettingsTest {
  @TempDir Path dir;

  private static final String YAML =
      """
      store: memory
      pollers:
        - name: orders
          request:
            url: http://127.0.0.1:9/orders
            maxBodySize: 8MB
          response:
            items: /data
          identity: /id
          maxItemSize: 512 KB
          cursor:
            strategy: snapshotDiff
      """;

  @Test
  void sizesReadWithTheirUnitsInPowersOf1024() {
    assertThat(Sizes.parse("32MB")).isEqualTo(32L * 1024 * 1024);
    assertThat(Sizes.parse("512 KB")).isEqualTo(512L * 1024);
    assertThat(Sizes.parse("1GiB")).isEqualTo(1L << 30);
    assertThat(Sizes.parse("4096")).isEqualTo(4096);
    assertThat(Sizes.parse("2mb")).isEqualTo(2L * 1024 * 1024);
    assertThatThrownBy(() -> Sizes.parse("12XB"))
        .hasMessage("'12XB' is not a size (a whole number with B, KB, MB or GB, e.g. 32MB)");
  }

  @Test
  void theSettingsReachThePoller() {
    CliConfig config = read(YAML);
    Poller<?> p = YamlPollers.build(config).get(0);
    assertThat(p.maxBodySize()).isEqualTo(8L * 1024 * 1024);
    assertThat(p.maxItemSize()).isEqualTo(512L * 1024);
  }

  @Test
  void withoutThemThePollerHasTheDefaults() {
    CliConfig config =
        read(YAML.replace("      maxBodySize: 8MB\n", "").replace("    maxItemSize: 512 KB\n", ""));
    Poller<?> p = YamlPollers.build(config).get(0);
    assertThat(p.maxBodySize()).isEqualTo(RequestOptions.DEFAULT_MAX_BODY_SIZE);
    assertThat(p.maxItemSize()).isEqualTo(Poller.DEFAULT_MAX_ITEM_SIZE);
  }

  @Test
  void aBadSizeNamesFileLinePollerAndKey() throws IOException {
    assertThat(validate(YAML.replace("maxBodySize: 8MB", "maxBodySize: 8XB")))
        .isEqualTo(
            "watukuy: watukuy.yaml:6: poller orders: request.maxBodySize: '8XB' is not a size"
                + " (a whole number with B, KB, MB or GB, e.g. 32MB)\n");
    assertThat(validate(YAML.replace("maxItemSize: 512 KB", "maxItemSize: 100")))
        .isEqualTo(
            "watukuy: watukuy.yaml:10: poller orders: maxItemSize: '100' is less than 1KB\n");
  }

  private CliConfig read(String yaml) {
    try {
      Path file = dir.resolve("watukuy.yaml");
      Files.writeString(file, yaml);
      return ConfigReader.read(file, Map.<String, String>of()::get);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private String validate(String yaml) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"validate", file.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    assertThat(code).isEqualTo(2);
    return err.toString(StandardCharsets.UTF_8).replace(file.toString(), "watukuy.yaml");
  }
}
