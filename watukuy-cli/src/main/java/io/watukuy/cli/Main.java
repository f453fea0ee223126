package io.watukuy.cli;

import io.watukuy.ConfigException;
import io.watukuy.Watukuy;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * The {@code watukuy} command line: {@code run}, {@code validate}, {@code migrate}, {@code
 * inspect}, {@code pause}, {@code resume}, {@code trigger}, {@code reset-cursor}, {@code backfill},
 * {@code replay}, {@code parked}, {@code effects}. Events go to standard output (or the config's
 * {@code output}), everything else to standard error.
 *
 * <p>Exit codes: 0 when every selected key polled or was skipped, 1 for any fetch, page, store or
 * output error, 2 for a usage or config error before any key ran.
 *
 * @since 0.1
 */
public final class Main {
  /** Every selected key polled without error, or was skipped. */
  public static final int OK = 0;

  /** A fetch, page, store or output error. */
  public static final int FAILED = 1;

  /** A usage or config error, before any key ran. */
  public static final int USAGE = 2;

  private Main() {}

  /**
   * Runs the command line and exits the JVM with its exit code.
   *
   * @param args the command and its arguments
   */
  public static void main(String[] args) {
    configureLogging(Arrays.asList(args).contains("--verbose"));
    int code = run(args, System.out, System.err);
    System.out.flush();
    System.exit(code);
  }

  /**
   * Runs the command line without exiting, reading {@code ${NAME}} from the process environment.
   *
   * @param args the command and its arguments
   * @param out where events (and {@code --help}, {@code inspect}, {@code validate}) go
   * @param err where errors, skips and warnings go
   * @return the exit code: {@link #OK}, {@link #FAILED} or {@link #USAGE}
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, System.getenv()::get);
  }

  static int run(
      String[] args, PrintStream out, PrintStream err, Function<String, @Nullable String> env) {
    return run(args, out, err, env, Clock.systemUTC(), Cli.Terminal.system());
  }

  /** The same, on {@code clock}, asking {@code terminal} (null: standard input is no terminal). */
  static int run(
      String[] args,
      PrintStream out,
      PrintStream err,
      Function<String, @Nullable String> env,
      Clock clock,
      Cli.@Nullable Terminal terminal) {
    boolean verbose = Arrays.asList(args).contains("--verbose");
    // One redaction point for standard error: the command's lines, the engine's log lines and
    // the --verbose stack traces all pass through it (docs/operations.md, "Secrets").
    AtomicReference<@Nullable Cli> self = new AtomicReference<>();
    PrintStream shown =
        RedactingStream.around(
            err,
            text -> {
              Cli c = self.get();
              return c == null ? text : c.redact(text);
            });
    // slf4j-simple looks System.err up at each line: the process's own stream gets redacted too,
    // and stays so after run returns, for the lines shutdown hooks may still log.
    if (err == System.err) System.setErr(shown);
    Cli cli = new Cli(out, shown, env, verbose, clock, terminal);
    self.set(cli);
    try {
      return run(cli, args, out, shown, verbose);
    } finally {
      shown.flush();
    }
  }

  private static int run(
      Cli cli, String[] args, PrintStream out, PrintStream err, boolean verbose) {
    CommandLine cmd = cli.commandLine();
    cmd.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cmd.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    // One line, not the whole usage text: the error stays visible in cron mail and scripts.
    cmd.setParameterExceptionHandler(
        (e, given) -> {
          String command = e.getCommandLine().getCommandSpec().qualifiedName(" ");
          err.println(command + ": " + cli.redact(message(e)) + " (see " + command + " --help)");
          return USAGE;
        });
    cmd.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          if (e instanceof ConfigException) {
            err.println("watukuy: " + cli.redact(e.getMessage()));
            if (verbose) err.print(cli.redact(stackTrace(e)));
            return USAGE;
          }
          err.println("watukuy: " + cli.redact(Cli.describe(e)));
          if (verbose) err.print(cli.redact(stackTrace(e)));
          return FAILED;
        });
    return cmd.execute(args);
  }

  /**
   * What a usage error says: picocli's message, except that a word where a command with subcommands
   * expects one is named as an unknown command with the ones there are, rather than as an unmatched
   * argument at an index.
   */
  private static String message(CommandLine.ParameterException e) {
    Map<String, CommandLine> commands = e.getCommandLine().getSubcommands();
    if (e instanceof CommandLine.UnmatchedArgumentException u
        && !commands.isEmpty()
        && !u.getUnmatched().isEmpty()
        && !u.getUnmatched().get(0).startsWith("-"))
      return "unknown command '"
          + u.getUnmatched().get(0)
          + "' (one of: "
          + String.join(", ", commands.keySet())
          + ")";
    return e.getMessage();
  }

  /** The trace as printStackTrace prints it, causes and suppressed included, to redact whole. */
  private static String stackTrace(Throwable e) {
    StringWriter w = new StringWriter();
    e.printStackTrace(new PrintWriter(w));
    return w.toString();
  }

  private static void configureLogging(boolean verbose) {
    // slf4j-simple reads these once, at its first use; they override simplelogger.properties.
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    if (verbose) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
      System.setProperty("org.slf4j.simpleLogger.log." + Watukuy.ERROR_LOGGER, "debug");
      return; // the full format of simplelogger.properties: date, level, logger name
    }
    // A warning reads like the command's other lines: no date, thread or logger name.
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "false");
    System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
    System.setProperty("org.slf4j.simpleLogger.showLogName", "false");
    System.setProperty("org.slf4j.simpleLogger.showShortLogName", "false");
    System.setProperty("org.slf4j.simpleLogger.levelInBrackets", "false");
    System.setProperty("org.slf4j.simpleLogger.warnLevelString", "watukuy: warning:");
    // An operator's action on an effect (a skip completed, a release, a retry now) is an INFO line
    // of the effects runtime: a daemon says when it honoured one (docs/effects.md, "Skip").
    System.setProperty("org.slf4j.simpleLogger.log.io.watukuy.effects", "info");
    // The store and sink clients log a lost connection (the Kafka client, every reconnect attempt)
    // with its stack trace, while the cycle that met it already prints one line naming the store
    // or the sink and the operation; --verbose shows them.
    for (String client :
        new String[] {
          "com.zaxxer.hikari",
          "io.lettuce",
          "io.netty",
          "org.postgresql",
          "org.mariadb.jdbc",
          "org.apache.kafka",
          "com.rabbitmq",
          "io.nats",
          // The NATS sink's error listener relays the client's own warnings (each reconnect
          // attempt to a server that is down): the outage line already says it, once.
          "io.watukuy.sink.nats"
        }) {
      System.setProperty("org.slf4j.simpleLogger.log." + client, "off");
    }
  }

  /** The project version, from the jar's resources. */
  static String version() {
    Properties p = new Properties();
    try (InputStream in = Main.class.getResourceAsStream("/watukuy-cli.properties")) {
      if (in != null) p.load(in);
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return p.getProperty("version", "unknown");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"watukuy " + version()};
    }
  }
}
