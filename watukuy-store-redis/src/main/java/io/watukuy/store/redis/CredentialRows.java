package io.watukuy.store.redis;

import io.watukuy.StoreException;
import io.watukuy.spi.StoredCredential;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The credentials table of a {@link RedisStore} (docs/stores.md, "CredentialStore"): one hash,
 * {@code <prefix>credentials}, whose field is the credential's name and whose value is the row.
 * Names are hash fields, never part of a key name, so no name (with {@code :}, braces, {@code *} or
 * spaces) can change the key layout or match a pattern. The key has no hash tag, like {@code
 * <prefix>keys}: every script touches only it.
 *
 * <p>A row is {@code <version>/} followed by the {@link Fields} form of sealed, claim owner, claim
 * end and update time (epoch milliseconds). The compare-and-set script compares the version's
 * digits as text (no number conversion, so every {@code long} is exact) and writes the whole value
 * with one {@code HSET}, so a reader sees one version whole.
 */
final class CredentialRows {

  static final String SUFFIX = "credentials";

  static final Scripts.Script LOAD =
      Scripts.Script.of("loadCredential", "return {redis.call('HGET', KEYS[1], ARGV[1]) or ''}\n");

  static final Scripts.Script CAS =
      Scripts.Script.of(
          "compareAndSetCredential",
          """
          local cur = redis.call('HGET', KEYS[1], ARGV[1])
          if ARGV[2] == '0' then
            if cur then return {'STALE'} end
          else
            if not cur then return {'STALE'} end
            if string.match(cur, '^(%d+)/') ~= ARGV[2] then return {'STALE'} end
          end
          redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
          return {'OK'}
          """);

  static final Scripts.Script DELETE =
      Scripts.Script.of("deleteCredential", "return {redis.call('HDEL', KEYS[1], ARGV[1])}\n");

  static final Scripts.Script NAMES =
      Scripts.Script.of("listCredentials", "return redis.call('HKEYS', KEYS[1])\n");

  private final ScriptRunner scripts;
  private final List<String> key;

  CredentialRows(ScriptRunner scripts) {
    this.scripts = scripts;
    this.key = List.of(scripts.layout().prefix() + SUFFIX);
  }

  String keyName() {
    return key.get(0);
  }

  Optional<StoredCredential> load(String name) {
    Objects.requireNonNull(name, "name");
    String value =
        ScriptReplies.text(scripts.run(LOAD, op(LOAD, name), null, key, List.of(name)), 0);
    return value.isEmpty() ? Optional.empty() : Optional.of(decode(name, value));
  }

  boolean compareAndSet(long expectedVersion, StoredCredential next) {
    Objects.requireNonNull(next, "next");
    if (next.version() != expectedVersion + 1) {
      throw new IllegalArgumentException(
          "next version must be " + (expectedVersion + 1) + ", but was " + next.version());
    }
    List<Object> reply =
        scripts.run(
            CAS,
            op(CAS, next.name()),
            null,
            key,
            List.of(next.name(), Long.toString(expectedVersion), encode(next)));
    Object status = ScriptReplies.status(reply);
    if ("OK".equals(status)) {
      return true;
    }
    if ("STALE".equals(status)) {
      return false;
    }
    throw new StoreException(
        scripts.describe(op(CAS, next.name()), null) + " failed: unexpected reply " + reply, null);
  }

  boolean delete(String name) {
    Objects.requireNonNull(name, "name");
    List<Object> reply = scripts.run(DELETE, op(DELETE, name), null, key, List.of(name));
    return !ScriptReplies.text(reply, 0).equals("0");
  }

  List<String> list() {
    List<String> names =
        new ArrayList<>(
            ScriptReplies.texts(scripts.run(NAMES, NAMES.name(), null, key, List.of())));
    names.sort(null);
    return List.copyOf(names);
  }

  private static String op(Scripts.Script script, String name) {
    return script.name() + " " + name;
  }

  static String encode(StoredCredential row) {
    return row.version()
        + "/"
        + Fields.encode(
            row.sealed(),
            row.claimOwner(),
            RowCodec.millis(row.claimUntil()),
            RowCodec.millis(row.updatedAt()));
  }

  private StoredCredential decode(String name, String value) {
    int slash = value.indexOf('/');
    @Nullable String[] f =
        Fields.decode(slash < 0 ? "" : value.substring(slash + 1), 4, "credential " + name);
    try {
      long version = Long.parseLong(value, 0, slash, 10);
      String sealed = Objects.requireNonNull(f[0]);
      String updated = Objects.requireNonNull(f[3]);
      return new StoredCredential(
          name,
          version,
          sealed,
          f[1],
          f[2] == null ? null : Instant.ofEpochMilli(Long.parseLong(f[2])),
          Instant.ofEpochMilli(Long.parseLong(updated)));
    } catch (RuntimeException e) {
      // Never the value itself: it holds the sealed secret.
      throw new StoreException(
          scripts.describe("loadCredential " + name, null)
              + " failed: the stored row is not readable ("
              + value.length()
              + " characters)",
          e);
    }
  }
}
