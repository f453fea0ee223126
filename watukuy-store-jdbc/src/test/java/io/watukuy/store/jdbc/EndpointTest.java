package io.watukuy.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Host and database for messages, and never a credential. */
class EndpointTest {

  @Test
  void hostsAndDatabaseAreTakenFromAJdbcUrlAndNothingElse() {
    assertThat(
            Endpoint.fromJdbcUrl(
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&password=s3cret"))
        .isEqualTo("127.0.0.1:5432/test");
    assertThat(
            Endpoint.fromJdbcUrl(
                "jdbc:postgresql://db1:5432,db2:5433/app?targetServerType=primary"))
        .isEqualTo("db1:5432,db2:5433/app");
    assertThat(Endpoint.fromJdbcUrl("jdbc:postgresql://[::1]:5432/app"))
        .isEqualTo("[::1]:5432/app");
    assertThat(Endpoint.fromJdbcUrl("jdbc:postgresql://app:s3cret@db/app")).isEqualTo("db/app");
    assertThat(Endpoint.fromJdbcUrl("jdbc:postgresql:app")).isEqualTo("localhost/app");
    assertThat(Endpoint.fromJdbcUrl("jdbc:postgresql://db/")).isEqualTo("db/(default database)");
    assertThat(Endpoint.fromJdbcUrl("jdbc:postgresql://db:5432/app;password=s3cret"))
        .isEqualTo("db:5432/app");
    assertThat(Endpoint.fromJdbcUrl("postgres://db/app")).isNull();
  }

  @Test
  void aPgjdbcDataSourceIsNamedWithoutItsPassword() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"db.internal"});
    ds.setPortNumbers(new int[] {6543});
    ds.setDatabaseName("orders");
    ds.setUser("app");
    ds.setPassword("s3cret");

    assertThat(Endpoint.of(ds)).isEqualTo("db.internal:6543/orders");
  }

  @Test
  void credentialValuesInDriverMessagesAreRedacted() {
    assertThat(Endpoint.redact("url jdbc:postgresql://h/db?user=u&password=s3cret&ssl=true"))
        .isEqualTo("url jdbc:postgresql://h/db?user=u&password=***&ssl=true");
    assertThat(Endpoint.redact("{\"password\": \"s3cret\", \"PWD\"=x, sslpassword=y}"))
        .doesNotContain("s3cret")
        .doesNotContain("=x")
        .doesNotContain("=y");
    assertThat(Endpoint.redact("password authentication failed for user \"app\""))
        .isEqualTo("password authentication failed for user \"app\"");
    // MariaDB's access-denied message says whether a password was sent: nothing to hide there
    assertThat(Endpoint.redact("Access denied for user 'u1'@'127.0.0.1' (using password: YES)"))
        .isEqualTo("Access denied for user 'u1'@'127.0.0.1' (using password: YES)");
    assertThat(Endpoint.redact("cannot reach jdbc:mariadb://u1:s3cret-pw@127.0.0.1:3306/test"))
        .isEqualTo("cannot reach jdbc:mariadb://u1:***@127.0.0.1:3306/test");
  }
}
