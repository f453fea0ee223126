package io.watukuy.effects.internal;

import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.effects.EffectContext;
import io.watukuy.effects.TerminalFailure;
import io.watukuy.internal.Json;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.JournalEntry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One invocation attempt's context: journaled calls looked up before they run. */
final class InvocationContext implements EffectContext {
  private static final Logger LOG = LoggerFactory.getLogger("io.watukuy.effects");

  private final String effect;
  private final PollerKey source;
  private final long position;
  private final int attempt;
  private final EffectStore store;
  private final TimeSource time;
  private final Function<@Nullable String, String> redaction;
  private final Map<String, Integer> repeats = new HashMap<>();
  private final Deque<String> running = new ArrayDeque<>();
  private int recorded;
  private @Nullable String terminal;

  InvocationContext(
      String effect,
      PollerKey source,
      long position,
      int attempt,
      EffectStore store,
      TimeSource time,
      Function<@Nullable String, String> redaction) {
    this.effect = effect;
    this.source = source;
    this.position = position;
    this.attempt = attempt;
    this.store = store;
    this.time = time;
    this.redaction = redaction;
  }

  @Override
  public <T> @Nullable T call(
      String name, @Nullable Object args, Class<T> resultType, Callable<? extends T> call)
      throws Exception {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(resultType, "resultType");
    Objects.requireNonNull(call, "call");
    String canonical = CallKeys.canonicalArgs(effect, name, args);
    int ordinal = repeats.merge(name + '\u0000' + canonical, 1, Integer::sum) - 1;
    String key = CallKeys.key(name, canonical, ordinal);
    Optional<JournalEntry> hit = store.loadJournalEntry(effect, source, position, key);
    recorded++;
    if (hit.isPresent()) return read(name, hit.get().result(), resultType);
    running.push(key);
    T result;
    try {
      result = call.call();
    } finally {
      running.pop();
    }
    String json = Json.MAPPER.writeValueAsString(result);
    store.appendJournalEntry(
        new JournalEntry(
            effect, source, position, key, recorded - 1, name, json, null, time.now()));
    return result;
  }

  @Override
  public void call(String name, @Nullable Object args, Action action) throws Exception {
    Objects.requireNonNull(action, "action");
    call(
        name,
        args,
        Boolean.class,
        () -> {
          action.run();
          return Boolean.TRUE;
        });
  }

  private <T> @Nullable T read(String name, String json, Class<T> type) {
    try {
      return Json.MAPPER.readValue(json, type);
    } catch (Exception e) {
      throw new IllegalStateException(
          "effect "
              + effect
              + ": the recorded result of call '"
              + name
              + "' cannot be read as "
              + type.getName()
              + " (the arm and its journal disagree): "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public String idempotencyKey() {
    String key = running.peek();
    if (key == null)
      throw new IllegalStateException(
          "effect " + effect + ": idempotencyKey() is only known inside a journaled call");
    return key;
  }

  @Override
  public TerminalFailure fail(String reason) {
    Objects.requireNonNull(reason, "reason");
    terminal = reason;
    throw new TerminalFailure(reason);
  }

  /** The reason given to {@link #fail}, even when the arm caught the exception. */
  @Nullable String terminal() {
    return terminal;
  }

  @Override
  public void log(String message) {
    LOG.info("effect {} {} position {}: {}", effect, source, position, redaction.apply(message));
  }

  @Override
  public String effect() {
    return effect;
  }

  @Override
  public PollerKey source() {
    return source;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public int attempt() {
    return attempt;
  }
}
