package io.watukuy.cli;

import io.watukuy.ConfigException;
import io.watukuy.RequestSigner;
import io.watukuy.auth.RefreshTokenSigner;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoredCredential;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code watukuy auth set CONFIG NAME [--file PATH]} (docs/config.md, "auth"): replaces the stored
 * refresh token of a {@code grant: refreshToken} auth. The token is read from standard input or a
 * file, never from the command line (where {@code ps} and shell history would show it), sealed with
 * the config's {@code secretKey} and written with a compare-and-set, so a daemon refreshing at that
 * moment either finished before (its row is replaced) or re-reads the new one.
 */
final class AuthCommands {
  private AuthCommands() {}

  /** How many times a write that lost its compare-and-set to a daemon's refresh is tried again. */
  static final int MAX_ATTEMPTS = 20;

  @Command(
      name = "auth",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      description = {
        "Manages the credentials kept in the store (refresh tokens of grant: refreshToken).",
        "Run watukuy auth set --help."
      },
      synopsisSubcommandLabel = "COMMAND")
  static final class Auth implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().getErr().println("watukuy auth: a command is required: set");
      return Main.USAGE;
    }
  }

  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      description = {
        "Stores a new refresh token for auth NAME of CONFIG, read from standard input or --file.",
        "The token is sealed with the config's secretKey and replaces the stored one; running daemons"
            + " use it from their next refresh. It is never taken from the command line and never"
            + " printed."
      })
  static final class Set implements Callable<Integer> {
    private final Cli cli;

    @Parameters(index = "0", paramLabel = "CONFIG", description = "The YAML config file.")
    Path config;

    @Parameters(
        index = "1",
        paramLabel = "NAME",
        description = "The auth's name under auths: (its grant must be refreshToken).")
    String name;

    @Option(
        names = "--file",
        paramLabel = "PATH",
        description = "Read the refresh token from this file instead of standard input.")
    @Nullable Path file;

    @CommandLine.Mixin Cli.Verbose v;

    Set(Cli cli) {
      this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
      CliConfig cfg = cli.loadWithoutSinks(config);
      RequestSigner signer = cfg.auths().get(name);
      if (signer == null)
        throw new ConfigException(
            cfg.file()
                + ": auth "
                + name
                + " is not declared under auths"
                + (cfg.auths().isEmpty()
                    ? ""
                    : " (declared: "
                        + String.join(", ", new TreeSet<>(cfg.auths().keySet()))
                        + ")"));
      if (!(signer instanceof RefreshTokenSigner))
        throw new ConfigException(
            cfg.file()
                + ": auth "
                + name
                + " is not an oauth2 auth with grant: refreshToken; only those keep a credential in"
                + " the store");
      if (cfg.secretKey() == null) // AuthConfig refuses that already; kept for the reader
      throw new ConfigException(cfg.file() + ": secretKey: missing");
      String token = read();
      String sealed;
      try {
        sealed = RefreshTokenSigner.sealRefreshToken(cfg.secretKey(), name, token);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            (file != null ? file.toString() : "standard input")
                + ": the refresh token "
                + (e.getMessage().contains("line break")
                    ? "has a line break inside it"
                    : "is empty"));
      }
      Stores.checkFolder(cfg.store());
      try (StateStore store = Cli.open(cfg.store())) {
        if (!(store instanceof CredentialStore credentials))
          throw new ConfigException(
              "store " + cfg.store().display() + " keeps no credentials table");
        long version = write(credentials, sealed);
        cli.err.println(
            "watukuy: auth "
                + name
                + ": refresh token stored in "
                + cfg.store().display()
                + " (version "
                + version
                + ", sealed under key "
                + cfg.secretKey().newestKeyId()
                + ")");
      }
      return Main.OK;
    }

    private String read() throws IOException {
      byte[] bytes;
      if (file != null) {
        Path p = file;
        if (!Files.isRegularFile(p)) throw new ConfigException(p + ": no such file");
        bytes = Files.readAllBytes(p);
      } else {
        InputStream in = System.in;
        bytes = in.readAllBytes();
      }
      // One token, as `echo TOKEN |` or a file with a final newline gives it.
      return new String(bytes, StandardCharsets.UTF_8).strip();
    }

    private long write(CredentialStore credentials, String sealed) {
      for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        Instant now = Session.time.now(); // the CLI's clock, as every command's engine
        Optional<StoredCredential> row = credentials.loadCredential(name);
        StoredCredential next =
            row.isEmpty()
                ? new StoredCredential(name, 1, sealed, null, null, now)
                : row.get().next(sealed, null, null, now);
        if (credentials.compareAndSetCredential(row.isEmpty() ? 0 : row.get().version(), next))
          return next.version();
      }
      throw new io.watukuy.StoreException(
          "auth "
              + name
              + ": the stored row changed "
              + MAX_ATTEMPTS
              + " times while it was written; try again",
          null);
    }
  }
}
