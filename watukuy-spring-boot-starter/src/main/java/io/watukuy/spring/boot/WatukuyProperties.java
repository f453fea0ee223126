package io.watukuy.spring.boot;

import io.watukuy.DeliveryOptions;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code watukuy.*} keys (docs/spring-boot.md, "Properties"). Every key has a default, so an
 * application with a {@code DataSource} needs none of them. Durations take Spring's forms ({@code
 * 30s}, {@code 5m}, {@code PT1M}). A {@code watukuy.*} key that is none of these (a misspelling
 * such as {@code watukuy.stor.uri}) stops the start, named by {@link WatukuyFailureAnalyzer}.
 */
@ConfigurationProperties(prefix = "watukuy", ignoreUnknownFields = false)
public class WatukuyProperties {

  /** Whether the auto-configuration builds and runs an engine at all. */
  private boolean enabled = true;

  /**
   * Whether the engine starts with the application context; when false, call Watukuy.start() or
   * drive it with tick() yourself.
   */
  private boolean autoStartup = true;

  /** This instance's lease owner id; unset means host name, process id and a random suffix. */
  private @Nullable String instanceId;

  /** Lease time to live: an instance that dies holds its keys for up to this long. */
  // A literal, not Watukuy.DEFAULT_LEASE_TTL: the metadata processor reads only literal defaults
  // (WatukuyAutoConfigurationTest checks the two agree).
  private Duration leaseTtl = Duration.ofSeconds(30);

  /** Where cursors, outbox and leases live. */
  private final Store store = new Store();

  /** Engine-wide delivery settings. */
  private final Delivery delivery = new Delivery();

  /**
   * Rate budgets by name, each shared by the pollers that name it with Poller.Builder.budget(name):
   * watukuy.budgets.NAME.requests (required), .per (default 1s) and .burst (default: requests).
   */
  private final Map<String, Budget> budgets = new LinkedHashMap<>();

  /** Health indicator settings. */
  private final Health health = new Health();

  /** Tracing settings. */
  private final Tracing tracing = new Tracing();

  /**
   * Whether the engine runs at all.
   *
   * @return default true
   */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Sets {@link #isEnabled()}.
   *
   * @param enabled false leaves the engine out of the context
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * Whether the engine starts with the context.
   *
   * @return default true
   */
  public boolean isAutoStartup() {
    return autoStartup;
  }

  /**
   * Sets {@link #isAutoStartup()}.
   *
   * @param autoStartup false to start the engine by hand
   */
  public void setAutoStartup(boolean autoStartup) {
    this.autoStartup = autoStartup;
  }

  /**
   * The lease owner id.
   *
   * @return null for the engine's default
   */
  public @Nullable String getInstanceId() {
    return instanceId;
  }

  /**
   * Sets {@link #getInstanceId()}.
   *
   * @param instanceId unique among instances sharing the store
   */
  public void setInstanceId(@Nullable String instanceId) {
    this.instanceId = instanceId;
  }

  /**
   * The lease time to live.
   *
   * @return default {@link Watukuy#DEFAULT_LEASE_TTL} (30 s)
   */
  public Duration getLeaseTtl() {
    return leaseTtl;
  }

  /**
   * Sets {@link #getLeaseTtl()}.
   *
   * @param leaseTtl positive; the engine refuses anything else when it is built
   */
  public void setLeaseTtl(Duration leaseTtl) {
    this.leaseTtl = leaseTtl;
  }

  /**
   * The store keys.
   *
   * @return never null
   */
  public Store getStore() {
    return store;
  }

  /**
   * The delivery keys.
   *
   * @return never null
   */
  public Delivery getDelivery() {
    return delivery;
  }

  /**
   * The budgets by name.
   *
   * @return mutable, in declaration order
   */
  public Map<String, Budget> getBudgets() {
    return budgets;
  }

  /**
   * The health keys.
   *
   * @return never null
   */
  public Health getHealth() {
    return health;
  }

  /**
   * The tracing keys.
   *
   * @return never null
   */
  public Tracing getTracing() {
    return tracing;
  }

  /** {@code watukuy.store.*}. */
  public static class Store {
    /**
     * A store URI instead of the application's DataSource: memory:, sqlite:PATH, postgres:JDBC-URL
     * or mariadb:JDBC-URL (the forms of the command line's --store).
     */
    private @Nullable String uri;

    /** The database user for a postgres: or mariadb: URI. */
    private @Nullable String username;

    /** The database password for a postgres: or mariadb: URI; never logged. */
    private @Nullable String password;

    /** Prefix of every table the store creates, so several engines can share one database. */
    private String tablePrefix = "watukuy_";

    /** PostgreSQL only: the schema of the tables. */
    private String schema = "public";

    /** Whether the store's tables are created or upgraded when the engine starts. */
    private boolean migrate = true;

    /**
     * The store URI.
     *
     * @return null to use the application's DataSource
     */
    public @Nullable String getUri() {
      return uri;
    }

    /**
     * Sets {@link #getUri()}.
     *
     * @param uri memory:, sqlite:PATH, postgres:JDBC-URL or mariadb:JDBC-URL
     */
    public void setUri(@Nullable String uri) {
      this.uri = uri;
    }

    /**
     * The database user of a URI store.
     *
     * @return null for none or one in the URL
     */
    public @Nullable String getUsername() {
      return username;
    }

    /**
     * Sets {@link #getUsername()}.
     *
     * @param username the database user
     */
    public void setUsername(@Nullable String username) {
      this.username = username;
    }

    /**
     * The database password of a URI store.
     *
     * @return null for none
     */
    public @Nullable String getPassword() {
      return password;
    }

    /**
     * Sets {@link #getPassword()}.
     *
     * @param password the database password
     */
    public void setPassword(@Nullable String password) {
      this.password = password;
    }

    /**
     * The table prefix.
     *
     * @return default {@code watukuy_}
     */
    public String getTablePrefix() {
      return tablePrefix;
    }

    /**
     * Sets {@link #getTablePrefix()}.
     *
     * @param tablePrefix letters, digits and underscores, as the stores accept
     */
    public void setTablePrefix(String tablePrefix) {
      this.tablePrefix = tablePrefix;
    }

    /**
     * The PostgreSQL schema.
     *
     * @return default {@code public}
     */
    public String getSchema() {
      return schema;
    }

    /**
     * Sets {@link #getSchema()}.
     *
     * @param schema an existing schema
     */
    public void setSchema(String schema) {
      this.schema = schema;
    }

    /**
     * Whether tables are created at start.
     *
     * @return default true
     */
    public boolean isMigrate() {
      return migrate;
    }

    /**
     * Sets {@link #isMigrate()}.
     *
     * @param migrate false when the tables are managed by the application's own migrations
     */
    public void setMigrate(boolean migrate) {
      this.migrate = migrate;
    }
  }

  /** {@code watukuy.delivery.*}: the fields of {@link DeliveryOptions}. */
  public static class Delivery {
    /** Handler calls running at once, engine-wide. */
    // Literals, not DeliveryOptions' constants: the metadata processor reads only literal defaults
    // (WatukuyAutoConfigurationTest checks they agree with the engine's).
    private int concurrency = 8;

    /** Outbox rows read per dispatch round. */
    private int dispatchBatchSize = 100;

    /** Most events handed to a batch handler or sink in one call. */
    private int batchSize = 100;

    /**
     * Handler calls at once.
     *
     * @return default {@value DeliveryOptions#DEFAULT_CONCURRENCY}
     */
    public int getConcurrency() {
      return concurrency;
    }

    /**
     * Sets {@link #getConcurrency()}.
     *
     * @param concurrency at least 1
     */
    public void setConcurrency(int concurrency) {
      this.concurrency = concurrency;
    }

    /**
     * Outbox rows per dispatch round.
     *
     * @return default {@value DeliveryOptions#DEFAULT_DISPATCH_BATCH_SIZE}
     */
    public int getDispatchBatchSize() {
      return dispatchBatchSize;
    }

    /**
     * Sets {@link #getDispatchBatchSize()}.
     *
     * @param dispatchBatchSize at least 1
     */
    public void setDispatchBatchSize(int dispatchBatchSize) {
      this.dispatchBatchSize = dispatchBatchSize;
    }

    /**
     * Events per batch handler call.
     *
     * @return default {@value DeliveryOptions#DEFAULT_BATCH_SIZE}
     */
    public int getBatchSize() {
      return batchSize;
    }

    /**
     * Sets {@link #getBatchSize()}.
     *
     * @param batchSize at least 1
     */
    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    /**
     * The engine's delivery options.
     *
     * @return the options, each at least 1
     * @throws io.watukuy.ConfigException naming the {@code watukuy.delivery.*} property out of
     *     range
     */
    DeliveryOptions toOptions() {
      // Checked here too, so the message names the property as it is written in
      // application.properties, not DeliveryOptions' field.
      atLeastOne("concurrency", concurrency);
      atLeastOne("dispatch-batch-size", dispatchBatchSize);
      atLeastOne("batch-size", batchSize);
      return new DeliveryOptions(concurrency, dispatchBatchSize, batchSize);
    }

    private static void atLeastOne(String key, int value) {
      if (value < 1)
        throw new io.watukuy.ConfigException(
            "watukuy.delivery." + key + ": must be >= 1, but was " + value);
    }
  }

  /** {@code watukuy.budgets.<name>.*}: a token bucket (guarantee G6). */
  public static class Budget {
    /** Tokens per period. */
    private int requests;

    /** The refill period, a whole number of milliseconds. */
    private Duration per = Duration.ofSeconds(1);

    /** Bucket size; unset means equal to requests. */
    private @Nullable Integer burst;

    /**
     * Tokens per {@link #getPer()}.
     *
     * @return at least 1 once bound; 0 means unset, which the engine refuses
     */
    public int getRequests() {
      return requests;
    }

    /**
     * Sets {@link #getRequests()}.
     *
     * @param requests at least 1
     */
    public void setRequests(int requests) {
      this.requests = requests;
    }

    /**
     * The refill period.
     *
     * @return default 1 s
     */
    public Duration getPer() {
      return per;
    }

    /**
     * Sets {@link #getPer()}.
     *
     * @param per at least 1 ms
     */
    public void setPer(Duration per) {
      this.per = per;
    }

    /**
     * The bucket size.
     *
     * @return null for {@link #getRequests()}
     */
    public @Nullable Integer getBurst() {
      return burst;
    }

    /**
     * Sets {@link #getBurst()}.
     *
     * @param burst at least 1
     */
    public void setBurst(@Nullable Integer burst) {
      this.burst = burst;
    }
  }

  /** {@code watukuy.health.*}. */
  public static class Health {
    /**
     * Whether the details of the health indicator list each unhealthy key with its reasons; the
     * status is DOWN either way.
     */
    private boolean showKeys = true;

    /**
     * Whether unhealthy keys are listed.
     *
     * @return default true
     */
    public boolean isShowKeys() {
      return showKeys;
    }

    /**
     * Sets {@link #isShowKeys()}.
     *
     * @param showKeys false to report the status and counts only
     */
    public void setShowKeys(boolean showKeys) {
      this.showKeys = showKeys;
    }
  }

  /** {@code watukuy.tracing.*}. */
  public static class Tracing {
    /**
     * Whether the engine's spans go to the application's OpenTelemetry bean, when
     * watukuy-opentelemetry is on the class path.
     */
    private boolean enabled = true;

    /**
     * Whether spans are made.
     *
     * @return default true
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets {@link #isEnabled()}.
     *
     * @param enabled false to leave the engine untraced
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
