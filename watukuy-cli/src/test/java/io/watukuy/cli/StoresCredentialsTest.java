package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.watukuy.ConfigException;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoredCredential;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every store the command line opens is a {@link CredentialStore} (docs/stores.md,
 * "CredentialStore"), also the Redis store, which the command line wraps so that closing it closes
 * the connection; the wrapper forwards the credential calls to the store's table.
 */
class StoresCredentialsTest {
  static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  static final String MARIA = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
  static final String REDIS = "redis://127.0.0.1:6379/0";

  @TempDir Path dir;

  @Test
  void everyKindOfStoreIsACredentialStore() {
    // Opening SQLite, PostgreSQL and MariaDB stores connects to nothing; they are closed unused.
    for (String uri :
        List.of(
            "memory:",
            "sqlite:" + dir.resolve("credentials.db"),
            "postgres:" + PG,
            "mariadb:" + MARIA)) {
      StateStore store = Stores.open(StoreUris.parse(uri));
      try {
        assertThat(store).as(uri).isInstanceOf(CredentialStore.class);
      } finally {
        store.close();
      }
    }
  }

  @Test
  void theWrappedRedisStoreForwardsTheCredentialCalls() throws ConfigException {
    String prefix =
        "watukuy-test:cli-credentials:"
            + HexFormat.of().formatHex(longBytes(ThreadLocalRandom.current().nextLong()))
            + ":";
    StateStore store =
        Stores.open(
            new CliConfig.StoreSpec(
                REDIS, CliConfig.StoreSpec.Kind.REDIS, null, REDIS, null, null, null, prefix));
    try {
      assertThat(store).isInstanceOf(CredentialStore.class);
      CredentialStore credentials = (CredentialStore) store;
      StoredCredential first =
          new StoredCredential(
              "refresh", 1, "sealed", null, null, Instant.parse("2024-01-01T00:00:00Z"));

      assertThat(credentials.compareAndSetCredential(0, first)).isTrue();
      assertThat(credentials.compareAndSetCredential(0, first)).isFalse();
      assertThat(credentials.loadCredential("refresh")).contains(first);
      assertThat(credentials.listCredentials()).containsExactly("refresh");
    } finally {
      store.close();
      RedisClient client = RedisClient.create(REDIS);
      try (StatefulRedisConnection<String, String> c = client.connect()) {
        List<String> keys = c.sync().keys(prefix + "*");
        if (!keys.isEmpty()) c.sync().del(keys.toArray(new String[0]));
      } finally {
        client.shutdown();
      }
    }
  }

  private static byte[] longBytes(long value) {
    byte[] b = new byte[8];
    for (int i = 0; i < 8; i++) b[i] = (byte) (value >>> (8 * i));
    return b;
  }
}
