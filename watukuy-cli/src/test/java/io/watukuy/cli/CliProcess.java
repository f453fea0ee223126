package io.watukuy.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line in a JVM of its own, for the tests that signal, freeze, starve or kill it: this
 * test's JDK and class path, {@link Main} and its arguments.
 */
final class CliProcess {
  private CliProcess() {}

  /**
   * A process builder for {@code java JVM_OPTIONS -cp CLASSPATH io.watukuy.cli.Main ARGS}; the
   * caller sets its redirects and folder and starts it.
   */
  static ProcessBuilder of(List<String> jvmOptions, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command);
  }
}
