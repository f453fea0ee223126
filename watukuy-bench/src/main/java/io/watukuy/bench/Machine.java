package io.watukuy.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a result depends on besides the code: cores, JVM, OS and the load of a shared machine,
 * written into every result file so that runs can be compared.
 */
public final class Machine {
  private Machine() {}

  /**
   * The load averages over 1, 5 and 15 minutes, as {@code /proc/loadavg} prints them, or the JVM's
   * one-minute figure where there is no {@code /proc}.
   */
  public static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return one < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", one);
    }
  }

  /** Adds {@code cores}, {@code jvm}, {@code os} to a result object. */
  static void describe(ObjectNode out) {
    out.put("cores", Runtime.getRuntime().availableProcessors());
    out.put(
        "jvm",
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    out.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
  }
}
