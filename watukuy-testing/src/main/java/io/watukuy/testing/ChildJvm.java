package io.watukuy.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM for a process-kill test (G1, G3, G9; docs/guarantees.md): it runs a main class on
 * this JVM's class path, is waited for with bounded loops (a ready file, some progress the test can
 * count) and then dies by SIGKILL, which the test checks by its exit code. Every wait is bounded in
 * time and returns early when the child is gone, so a dead child never stalls a test.
 *
 * <p>The child's standard input stays a pipe held by this JVM: a child that watches it sees end of
 * input, and can halt, when the test JVM dies without killing it.
 *
 * @since 0.3
 */
public final class ChildJvm implements AutoCloseable {
  /** The exit code of a JVM killed by SIGKILL (128 + 9), which {@link #sigkill()} returns. */
  public static final int SIGKILL_EXIT = 137;

  /** How long {@link #sigkill()} and {@link #close()} wait for the child to be gone. */
  public static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

  /** The exit code of a child that {@link #haltWhenParentGoes()} halted. */
  public static final int PARENT_GONE_EXIT = 4;

  /** The pause between two looks at a file or a count. */
  private static final long POLL_MS = 2;

  private final Process process;

  private ChildJvm(Process process) {
    this.process = process;
  }

  /**
   * Starts {@code main} in a new JVM on this JVM's class path, with C1 only (a child lives about a
   * second, so a fast start matters more than peak speed), standard output and error both appended
   * to {@code output}.
   *
   * @param main the class whose {@code main} runs
   * @param jvmOptions more options before the class path, such as {@code -Xmx256m}; may be empty
   * @param output the file both streams are appended to; created if missing
   * @param args the arguments of {@code main}
   * @return the running child
   * @throws IOException if the JVM cannot be started
   */
  public static ChildJvm start(Class<?> main, List<String> jvmOptions, Path output, String... args)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command(main, jvmOptions, args));
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
    return new ChildJvm(pb.start());
  }

  /**
   * Starts {@code main} as {@link #start(Class, List, Path, String...)} does, with standard output
   * and standard error appended to two files.
   *
   * @param main the class whose {@code main} runs
   * @param jvmOptions more options before the class path; may be empty
   * @param stdout the file standard output is appended to
   * @param stderr the file standard error is appended to
   * @param args the arguments of {@code main}
   * @return the running child
   * @throws IOException if the JVM cannot be started
   */
  public static ChildJvm start(
      Class<?> main, List<String> jvmOptions, Path stdout, Path stderr, String... args)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command(main, jvmOptions, args));
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(stdout.toFile()));
    pb.redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
    return new ChildJvm(pb.start());
  }

  private static List<String> command(Class<?> main, List<String> jvmOptions, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return command;
  }

  /**
   * The child's process, for what this class does not cover.
   *
   * @return the process
   */
  public Process process() {
    return process;
  }

  /**
   * Whether the child still runs.
   *
   * @return true while it runs
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * The child's exit code.
   *
   * @return the code
   * @throws IllegalThreadStateException if it still runs
   */
  public int exitValue() {
    return process.exitValue();
  }

  /**
   * Waits until {@code file} exists, such as the marker a child writes once it is ready.
   *
   * @param file the file to wait for
   * @param timeout the longest wait
   * @return true once the file exists; false if the child ended first or the time ran out
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitFile(Path file, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(file)) return true;
      if (!process.isAlive()) return false;
      Thread.sleep(POLL_MS);
    }
    return Files.exists(file);
  }

  /**
   * Waits until {@code progress} reaches {@code target}: a count the test reads from what the child
   * produced (bytes logged, messages on a broker, requests received).
   *
   * @param progress reads the count; called every few milliseconds
   * @param target the count to reach
   * @param timeout the longest wait
   * @return true if the count reached {@code target}; false if the child ended first or the time
   *     ran out
   * @throws Exception what {@code progress} throws, or {@link InterruptedException}
   */
  public boolean awaitProgress(Progress progress, long target, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (progress.get() < target && System.nanoTime() < deadline && process.isAlive())
      Thread.sleep(POLL_MS);
    return progress.get() >= target;
  }

  /**
   * Waits for the child to end by itself.
   *
   * @param timeout the longest wait
   * @return true if it ended; its code is {@link #exitValue()}
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Kills the child with SIGKILL (on Linux {@link Process#destroyForcibly()} is SIGKILL), waits for
   * it to be gone and closes its input.
   *
   * @return its exit code: {@value #SIGKILL_EXIT} unless it ended by itself before the signal
   * @throws InterruptedException if interrupted while waiting
   * @throws IOException if its input cannot be closed
   * @throws IllegalStateException if it is still alive {@link #EXIT_TIMEOUT} after the signal
   */
  public int sigkill() throws InterruptedException, IOException {
    process.destroyForcibly();
    if (!process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
      throw new IllegalStateException("child still alive " + EXIT_TIMEOUT + " after SIGKILL");
    process.getOutputStream().close();
    return process.exitValue();
  }

  /**
   * Kills the child if it still runs (waiting at most {@link #EXIT_TIMEOUT}) and closes its input;
   * for a {@code finally} block or try-with-resources.
   *
   * @throws InterruptedException if interrupted while waiting
   * @throws IOException if its input cannot be closed
   */
  @Override
  public void close() throws InterruptedException, IOException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    process.getOutputStream().close();
  }

  /**
   * For the child's {@code main}: halts this JVM with {@value #PARENT_GONE_EXIT} once standard
   * input ends, which is when the parent test's JVM is gone (it holds the pipe and writes nothing),
   * so a child outlives no test run. Watches on a daemon thread and returns at once.
   */
  public static void haltWhenParentGoes() {
    Thread watcher =
        new Thread(
            () -> {
              try (InputStream in = System.in) {
                while (in.read() >= 0) {
                  // the parent writes nothing; any input is ignored
                }
              } catch (IOException ignored) {
                // treated as end of input
              }
              Runtime.getRuntime().halt(PARENT_GONE_EXIT);
            },
            "parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  /**
   * Appends one line to a child's output file, such as a banner naming the run that follows.
   *
   * @param output the file; created if missing
   * @param line the line, without its line separator
   * @throws IOException if the file cannot be written
   */
  public static void mark(Path output, String line) throws IOException {
    Files.writeString(
        output,
        line + System.lineSeparator(),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  /**
   * The last lines of a child's output file, for a failure message.
   *
   * @param file the output file
   * @param lines how many lines at most
   * @return those lines joined by newlines, or {@code (none)} if the file does not exist
   * @throws IOException if the file cannot be read
   */
  public static String tail(Path file, int lines) throws IOException {
    Objects.requireNonNull(file, "file");
    if (!Files.exists(file)) return "(none)";
    List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /** A count that grows as the child works; see {@link #awaitProgress}. */
  @FunctionalInterface
  public interface Progress {
    /**
     * Reads the count now.
     *
     * @return the count
     * @throws Exception if it cannot be read
     */
    long get() throws Exception;
  }
}
