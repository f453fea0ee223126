package io.watukuy.sink.jdbc;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TableKillCampaign} on PostgreSQL: the store and the table in a schema of their own, the
 * trigger in PL/pgSQL; with {@code sameDatabase} (20 kills) and with the sink's own connections.
 */
class TableKillTest extends TableKillCampaign {
  private static final String URL = PostgresTableSinkTest.URL;
  private static final int KILLS_OWN_CONNECTIONS = 10;

  private final String schema =
      "wk_kill_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

  @Override
  protected String database() {
    return "postgres";
  }

  @Override
  protected String url() {
    return URL;
  }

  @Override
  protected @Nullable String schema() {
    return schema;
  }

  @Override
  protected void createTables() throws Exception {
    TableSinkScenarios.execute(URL, "CREATE SCHEMA " + schema);
    TableSinkScenarios.execute(
        URL,
        "CREATE TABLE "
            + schema
            + ".kill_rows (delivery_key text PRIMARY KEY, event_id text NOT NULL,"
            + " item_id text NOT NULL, seq bigint NOT NULL, kind text NOT NULL)");
    TableSinkScenarios.execute(
        URL,
        "CREATE TABLE "
            + schema
            + ".kill_writes (n bigserial PRIMARY KEY, delivery_key text, item_id text, seq bigint)");
    TableSinkScenarios.execute(
        URL,
        "CREATE FUNCTION "
            + schema
            + ".kill_audit() RETURNS trigger AS $$ BEGIN INSERT INTO "
            + schema
            + ".kill_writes (delivery_key, item_id, seq) VALUES (NEW.delivery_key, NEW.item_id,"
            + " NEW.seq); RETURN NEW; END $$ LANGUAGE plpgsql");
    TableSinkScenarios.execute(
        URL,
        "CREATE TRIGGER kill_audit BEFORE INSERT ON "
            + schema
            + ".kill_rows FOR EACH ROW EXECUTE FUNCTION "
            + schema
            + ".kill_audit()");
  }

  @AfterEach
  void dropSchema() throws Exception {
    TableSinkScenarios.execute(URL, "DROP SCHEMA " + schema + " CASCADE");
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkilledWithSameDatabaseTheTableHasEveryCommittedEventOnceInOrderPerItem()
      throws Exception {
    campaign(true, KILLS);
  }

  /**
   * The same without {@code sameDatabase} (the sink's own connections): the table still holds every
   * committed event once (the delivery key's conflict), but a kill between the sink's commit and
   * the engine's ack repeats the write, at most {@code concurrency × batchSize} per kill (G9).
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkilledWithItsOwnConnectionsTheSinkRepeatsAtMostConcurrencyTimesBatchSizePerKill()
      throws Exception {
    campaign(false, KILLS_OWN_CONNECTIONS);
  }
}
