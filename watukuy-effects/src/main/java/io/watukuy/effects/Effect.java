package io.watukuy.effects;

import io.watukuy.ConfigException;
import io.watukuy.EventType;
import io.watukuy.Poller;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A declared effect (docs/effects.md): what runs, journaled, for the events of one poller's log.
 * Built with {@link #builder(String)} and run by {@link Effects}.
 *
 * <pre>{@code
 * Effect<Order> notify = Effect.builder("NotifyCustomer")
 *     .source(orders)                                   // a poller with log(EventLog.keep(..))
 *     .on(EventType.CREATED, (ctx, e) -> {
 *           String id = ctx.call("send-welcome", e.data().customer(), String.class,
 *               () -> mail.sendWelcome(e.data().customer()));
 *           ctx.log("welcome " + id);
 *         }, Key.of("customer", e -> e.data().customer()))
 *     .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the source poller's item type
 * @since 0.1
 */
public final class Effect<T> {
  /** Events read from the log per read (docs/effects.md, "The model"): 500. */
  public static final int DEFAULT_BATCH_SIZE = 500;

  /**
   * Events read and not yet complete, held in memory, after which the reader waits for lanes to
   * finish: 10 000. A wedged lane keeps its own later events here, so this bounds how far the other
   * lanes run ahead of a wedge.
   */
  public static final int DEFAULT_READ_AHEAD = 10_000;

  /** The version recorded when none is declared and the arm's jar names none. */
  public static final String UNVERSIONED = "unversioned";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");

  /**
   * Which events of its type an arm runs for (docs/effects.md, "Latest and live arms").
   *
   * @since 0.1
   */
  public enum Mode {
    /** Every event, in log order within its lane: the default. */
    EACH,
    /**
     * Once per lane per reader batch, for the newest event of the arm's type in it; the older ones
     * are folded into it and counted in {@code latestCollapsed}.
     */
    LATEST,
    /**
     * Only events after the live boundary (the log head at the effect's first start on the key);
     * the history before it is passed without running.
     */
    LIVE
  }

  /**
   * One arm: the code, the key of its lane and which events it runs for.
   *
   * @param arm the code
   * @param key the lane's key scheme
   * @param mode which events of its type it runs for
   * @param <T> the item type
   * @since 0.1
   */
  public record On<T>(Arm<T> arm, Key<T> key, Mode mode) {
    /**
     * Creates an arm entry.
     *
     * @throws NullPointerException if an argument is null
     */
    public On {
      Objects.requireNonNull(arm, "arm");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(mode, "mode");
    }

    /**
     * Creates an arm that runs for every event ({@link Mode#EACH}).
     *
     * @param arm the code
     * @param key the lane's key scheme
     * @throws NullPointerException if an argument is null
     */
    public On(Arm<T> arm, Key<T> key) {
      this(arm, key, Mode.EACH);
    }
  }

  private final String name;
  private final Poller<T> source;
  private final Map<EventType, On<T>> arms;
  private final int batchSize;
  private final int readAhead;
  private final String version;

  private Effect(Builder<T> b) {
    this.name = b.name;
    this.source = Objects.requireNonNull(b.source);
    this.arms = Collections.unmodifiableMap(new EnumMap<>(b.arms));
    this.batchSize = b.batchSize;
    this.readAhead = b.readAhead;
    this.version = b.version != null ? b.version : defaultVersion(b.arms);
  }

  /**
   * Starts an effect declaration.
   *
   * @param name unique among the effects of a store: letters, digits, {@code _ . -}, at most 100
   *     characters, starting with a letter or digit
   * @return a builder; set {@link Builder#source(Poller)} first, then the arms
   * @throws NullPointerException if {@code name} is null
   * @throws ConfigException if the name is not valid
   */
  public static Builder<Void> builder(String name) {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches())
      throw new ConfigException(
          "effect name '"
              + name
              + "' is not valid: letters, digits, _ . - (at most 100), starting with a letter or"
              + " digit");
    return new Builder<>(name);
  }

  /**
   * The effect's name: its cursor, journal and admin views are kept under it.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * The poller whose event log the effect reads.
   *
   * @return the poller
   */
  public Poller<T> source() {
    return source;
  }

  /**
   * The arms by event type; an event of a type without an arm completes without running anything.
   *
   * @return the arms, unmodifiable
   */
  public Map<EventType, On<T>> arms() {
    return arms;
  }

  /**
   * Events read from the log per read; default {@link #DEFAULT_BATCH_SIZE}.
   *
   * @return the batch size
   */
  public int batchSize() {
    return batchSize;
  }

  /**
   * Events read and not yet complete after which the reader waits; default {@link
   * #DEFAULT_READ_AHEAD}.
   *
   * @return the bound
   */
  public int readAhead() {
    return readAhead;
  }

  /**
   * The code version recorded on every invocation: the declared one, else the {@code
   * Implementation-Version} of the jar holding the first arm, else {@link #UNVERSIONED}.
   *
   * @return the version
   */
  public String version() {
    return version;
  }

  /**
   * The key scheme's name per event type, as persisted with the effect's position.
   *
   * @return {@code created → customer}, ..., by {@link EventType#wire()}
   */
  public Map<String, String> schemes() {
    Map<String, String> out = new java.util.TreeMap<>();
    arms.forEach((type, on) -> out.put(type.wire(), on.key().scheme()));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public String toString() {
    return "Effect[" + name + " on " + source.name() + "]";
  }

  private static String defaultVersion(Map<EventType, ? extends On<?>> arms) {
    for (On<?> on : arms.values()) {
      Package p = on.arm().getClass().getPackage();
      String v = p == null ? null : p.getImplementationVersion();
      if (v != null && !v.isBlank()) return v;
    }
    return UNVERSIONED;
  }

  /**
   * Declares an effect. Not thread-safe.
   *
   * @param <T> the source poller's item type; {@code Void} until {@link #source(Poller)}
   * @since 0.1
   */
  public static final class Builder<T> {
    private final String name;
    private @Nullable Poller<T> source;
    private final Map<EventType, On<T>> arms = new EnumMap<>(EventType.class);
    private int batchSize = DEFAULT_BATCH_SIZE;
    private int readAhead = DEFAULT_READ_AHEAD;
    private @Nullable String version;

    private Builder(String name) {
      this.name = name;
    }

    /**
     * The poller whose event log the effect reads. Set it before the arms: it fixes their item
     * type, and arms declared before it are dropped.
     *
     * @param poller a poller with its event log enabled ({@code log(EventLog.keep(..))})
     * @param <S> the poller's item type
     * @return a builder of the poller's item type, with this one's other settings
     * @throws NullPointerException if {@code poller} is null
     * @throws ConfigException if the poller's log is not enabled; the message names the effect and
     *     the poller
     */
    public <S> Builder<S> source(Poller<S> poller) {
      Objects.requireNonNull(poller, "poller");
      if (!poller.log().enabled())
        throw new ConfigException(
            "effect "
                + name
                + ": source poller "
                + poller.name()
                + " has no event log; an effect reads the log, so enable it on the poller with"
                + " log(EventLog.keep(..)) (log: in YAML)");
      Builder<S> b = new Builder<>(name);
      b.source = poller;
      b.batchSize = batchSize;
      b.readAhead = readAhead;
      b.version = version;
      return b;
    }

    /**
     * Declares the arm for one event type.
     *
     * @param type the event type
     * @param arm the code to run
     * @param key the key naming each event's lane
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if the source is not set yet, or {@code type} already has an arm
     */
    public Builder<T> on(EventType type, Arm<T> arm, Key<T> key) {
      return arm(type, new On<>(arm, key, Mode.EACH));
    }

    /**
     * Declares an {@code on latest} arm for one event type (docs/effects.md, "Latest and live
     * arms"): per lane and reader batch it runs once, for the newest event of {@code type}, and the
     * older ones in that batch complete without running (counted in {@code latestCollapsed}). For
     * work where only the current state matters: syncing a profile, not sending a receipt.
     *
     * @param type the event type
     * @param arm the code to run
     * @param key the key naming each event's lane
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if the source is not set yet, or {@code type} already has an arm
     */
    public Builder<T> onLatest(EventType type, Arm<T> arm, Key<T> key) {
      return arm(type, new On<>(arm, key, Mode.LATEST));
    }

    /**
     * Declares an {@code on live} arm for one event type (docs/effects.md, "Latest and live arms"):
     * events at or below the live boundary (the log head when the effect first started on the key,
     * persisted) are history and complete without running; later ones run as usual.
     *
     * @param type the event type
     * @param arm the code to run
     * @param key the key naming each event's lane
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if the source is not set yet, or {@code type} already has an arm
     */
    public Builder<T> onLive(EventType type, Arm<T> arm, Key<T> key) {
      return arm(type, new On<>(arm, key, Mode.LIVE));
    }

    private Builder<T> arm(EventType type, On<T> on) {
      Objects.requireNonNull(type, "type");
      if (source == null)
        throw new ConfigException(
            "effect " + name + ": set source(poller) before on(" + type.wire() + ", ..)");
      if (arms.containsKey(type))
        throw new ConfigException(
            "effect " + name + ": " + type.wire() + " already has an arm; one arm per event type");
      arms.put(type, on);
      return this;
    }

    /**
     * Events read from the log per read. Default {@link #DEFAULT_BATCH_SIZE}.
     *
     * @param events from 1 to 10 000
     * @return this builder
     * @throws ConfigException if out of range, naming the effect and the value
     */
    public Builder<T> batchSize(int events) {
      if (events < 1 || events > 10_000)
        throw new ConfigException(
            "effect " + name + ": batchSize must be 1..10000, but was " + events);
      this.batchSize = events;
      return this;
    }

    /**
     * Events read and not yet complete after which the reader waits for lanes to finish. Default
     * {@link #DEFAULT_READ_AHEAD}.
     *
     * @param events from 1 to 1 000 000
     * @return this builder
     * @throws ConfigException if out of range, naming the effect and the value
     */
    public Builder<T> readAhead(int events) {
      if (events < 1 || events > 1_000_000)
        throw new ConfigException(
            "effect " + name + ": readAhead must be 1..1000000, but was " + events);
      this.readAhead = events;
      return this;
    }

    /**
     * The code version recorded on every invocation, so an invocation left in flight by another
     * version is recognisable. Default: the arm's jar's {@code Implementation-Version}, else {@link
     * #UNVERSIONED}.
     *
     * @param version any non-blank text, at most 100 characters
     * @return this builder
     * @throws ConfigException if blank or too long, naming the effect
     */
    public Builder<T> version(String version) {
      Objects.requireNonNull(version, "version");
      if (version.isBlank() || version.length() > 100)
        throw new ConfigException(
            "effect "
                + name
                + ": version must be 1..100 non-blank characters, but was '"
                + version
                + "'");
      this.version = version;
      return this;
    }

    /**
     * Builds the effect.
     *
     * @return the effect
     * @throws ConfigException if the source is not set or no arm is declared, naming the effect
     */
    public Effect<T> build() {
      if (source == null)
        throw new ConfigException("effect " + name + ": source(poller) is not set");
      if (arms.isEmpty())
        throw new ConfigException(
            "effect " + name + ": no arm; declare one with on(EventType, arm, key)");
      return new Effect<>(this);
    }
  }
}
