package io.watukuy.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.RequestSigner;
import io.watukuy.SealingKeys;
import io.watukuy.auth.RefreshTokenSigner;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StoredCredential;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The credentials part of {@code inspect} (docs/operations.md, "Credentials"): each row of the
 * store's credentials table with its version, the id of the key it is sealed under, when it was
 * written and who claims the right to refresh it; then each {@code grant: refreshToken} auth of the
 * config that has no row yet. Never the sealed value: it is read only to take the key id out of its
 * {@code v1:KEYID:} prefix (the format of {@link io.watukuy.SealingKeys}), and nothing is unsealed,
 * so {@code inspect} needs no {@code secretKey}.
 */
final class CredentialLines {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CredentialLines() {}

  /**
   * One credential, stored or only configured.
   *
   * @param name the credential's name
   * @param stored the row, or null when the config declares it and the store has none
   * @param keyId the key id of the sealed value, or null when not stored or not in the sealed
   *     format
   * @param problem why the credential cannot be used as it is, or null
   */
  record Row(
      String name,
      @Nullable StoredCredential stored,
      @Nullable String keyId,
      @Nullable String problem) {}

  /**
   * The stored credentials in name order, then the config's {@code grant: refreshToken} auths that
   * have no row, in name order.
   *
   * @param config the config file as the user gave it, or null for {@code inspect --store}
   * @param auths the config's {@code auths:} by name; empty for {@code --store}
   * @throws io.watukuy.StoreException when the store cannot be read
   */
  static List<Row> rows(
      CredentialStore store, @Nullable Path config, Map<String, RequestSigner> auths) {
    List<Row> rows = new ArrayList<>();
    for (String name : store.listCredentials()) {
      // A row deleted between the list and the read is simply no longer there.
      Optional<StoredCredential> c = store.loadCredential(name);
      c.ifPresent(row -> rows.add(new Row(name, row, SealingKeys.keyId(row.sealed()), null)));
    }
    List<String> names = rows.stream().map(Row::name).toList();
    new TreeMap<>(auths)
        .forEach(
            (name, signer) -> {
              if (signer instanceof RefreshTokenSigner && !names.contains(name))
                rows.add(
                    new Row(
                        name,
                        null,
                        null,
                        "not stored yet: run watukuy auth set "
                            + (config == null ? "CONFIG" : config.toString())
                            + " "
                            + name));
            });
    return rows;
  }

  /** The table under the keys' table, or nothing when there are no credentials. */
  static void print(PrintStream out, List<Row> rows, Instant now, UnaryOperator<String> redact) {
    if (rows.isEmpty()) return;
    out.printf(
        "%n%-20s %-8s %-12s %-14s %s%n", "CREDENTIAL", "VERSION", "KEY ID", "UPDATED", "CLAIM");
    for (Row r : rows) {
      StoredCredential c = r.stored();
      if (c == null) {
        out.printf("%-20s %-8s %-12s %-14s %s%n", r.name(), "-", "-", "-", r.problem());
        continue;
      }
      out.println(
          redact.apply(
              String.format(
                  "%-20s %-8d %-12s %-14s %s",
                  r.name(),
                  c.version(),
                  r.keyId() == null ? "?" : r.keyId(),
                  StatusLines.ago(c.updatedAt(), now),
                  c.claimOwner() == null
                      ? "-"
                      : c.claimOwner()
                          + " until "
                          + c.claimUntil()
                          + (c.claimUntil() != null && !c.claimUntil().isAfter(now)
                              ? " (lapsed)"
                              : ""))));
    }
  }

  /**
   * {@code json} (an inspection's JSON) with a {@code credentials} array: per credential {@code
   * name}, {@code stored}, and either {@code version}, {@code keyId}, {@code updatedAt} (ISO 8601)
   * and {@code claim} ({@code {owner, until}} or null), or {@code problem}.
   */
  static String withCredentials(String json, List<Row> rows) {
    try {
      ObjectNode root = (ObjectNode) JSON.readTree(json);
      ArrayNode out = root.putArray("credentials");
      for (Row r : rows) {
        ObjectNode o = out.addObject().put("name", r.name());
        StoredCredential c = r.stored();
        o.put("stored", c != null);
        if (c == null) {
          o.put("problem", r.problem());
          continue;
        }
        o.put("version", c.version());
        o.put("keyId", r.keyId());
        o.put("updatedAt", c.updatedAt().toString());
        if (c.claimOwner() == null || c.claimUntil() == null) o.putNull("claim");
        else
          o.putObject("claim").put("owner", c.claimOwner()).put("until", c.claimUntil().toString());
      }
      return JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
