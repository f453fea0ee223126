package io.watukuy.testing;

/**
 * The local PostgreSQL the tests of this project use, as a {@link TestServer}: 127.0.0.1:5432,
 * database {@code test}, user {@code postgres}, trust authentication; {@code
 * -Dwatukuy.postgres.url=...} points elsewhere. Namespaces are schemas: {@link #newSchema(String)}
 * names one that no other run uses (the store creates it on {@code migrate()}), and it is dropped
 * with everything in it after the test, or after the class when taken outside a test.
 *
 * <pre>{@code
 * @RegisterExtension static final TestPostgres postgres = TestPostgres.local();
 *
 * PostgresStore store = PostgresStore.builder(pool).schema(postgres.newSchema("wk_orders")).build();
 * }</pre>
 *
 * <p>Connections come from the driver on the caller's class path ({@code
 * org.postgresql:postgresql}, a dependency of the PostgreSQL store); this class needs none.
 *
 * @since 0.1
 */
public final class TestPostgres extends JdbcTestServer {

  /** The URL used unless {@code -Dwatukuy.postgres.url} says otherwise. */
  public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private TestPostgres(String url) {
    super(
        "PostgreSQL",
        url,
        null,
        null,
        "start it (scripts/services, or pg_ctlcluster --skip-systemctl-redirect <version> main"
            + " start) or point -Dwatukuy.postgres.url elsewhere");
  }

  /**
   * The local server: {@code -Dwatukuy.postgres.url}, else {@value #DEFAULT_URL}. Performs no I/O.
   *
   * @return a new extension; register it on a static field
   */
  public static TestPostgres local() {
    return new TestPostgres(System.getProperty("watukuy.postgres.url", DEFAULT_URL));
  }

  /**
   * A schema name no other test or run uses: {@code label}, an underscore and 16 hex digits.
   * Creates nothing; the schema is dropped ({@code CASCADE}) after the test that took it, or after
   * the class.
   *
   * @param label a lower-case SQL identifier of at most 46 characters, such as {@code wk_engine}
   * @return the name, which needs no quoting
   */
  public String newSchema(String label) {
    return newNamespace(label);
  }

  @Override
  protected String dropStatement(String schema) {
    return "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE";
  }
}
