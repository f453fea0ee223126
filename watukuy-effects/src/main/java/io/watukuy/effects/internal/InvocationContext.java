package io.watukuy.effects.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.effects.EffectContext;
import io.watukuy.effects.EffectHttp;
import io.watukuy.effects.TerminalFailure;
import io.watukuy.internal.Json;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.JournalEntry;
import java.time.Duration;
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
    return journaled(name, name, canonical, resultType, null, key -> call.call());
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
    return idempotencyKey(key);
  }

  /** The idempotency key of the call journaled as {@code journalKey} in this invocation. */
  String idempotencyKey(String journalKey) {
    return CallKeys.idempotencyKey(
        effect, source.poller(), source.partition(), position, journalKey);
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

  // ---- sealed documents and HTTP calls (docs/effects.md, "Sealed documents", "HTTP calls") ----

  /**
   * A journaled call that is told its journal key (the HTTP client sends the idempotency key made
   * from it).
   */
  @FunctionalInterface
  interface KeyedCall<T> {
    T call(String key) throws Exception;
  }

  private @Nullable EffectServices services;
  private @Nullable JournaledHttp http;
  private @Nullable Duration retryAfter;

  /** Gives this context the engine's shared services; without them sealing has no secretKey. */
  InvocationContext services(EffectServices services) {
    this.services = services;
    return this;
  }

  private EffectServices services() {
    if (services == null) services = EffectServices.defaults(store, time);
    return services;
  }

  @Override
  public <T> @Nullable T call(
      String name,
      @Nullable Object args,
      Class<T> resultType,
      String subject,
      Callable<? extends T> call)
      throws Exception {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(resultType, "resultType");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(call, "call");
    String canonical = CallKeys.canonicalArgs(effect, name, args);
    return journaled(name, name, canonical, resultType, subject, key -> call.call());
  }

  /**
   * The journal's lookup-then-record for every journaled call, named or HTTP (docs/effects.md, "The
   * journal"): {@code keyName} and {@code canonical} make the key (with the ordinal among identical
   * calls), {@code label} is what the row shows; with a subject the row holds the result sealed
   * under it. The subject and the secretKey are checked before anything else, since a call that
   * fired and could not be sealed would fire again on every retry; a sealed row is read back by
   * revealing it, which is terminal once the subject was erased. The label and an unsealed result
   * are stored with the engine's secrets redacted, so a replay reads {@code [redacted]} where a
   * secret was.
   */
  <T> @Nullable T journaled(
      String keyName,
      String label,
      String canonical,
      Class<T> resultType,
      @Nullable String subject,
      KeyedCall<? extends T> call)
      throws Exception {
    if (subject != null) services().seals().canSeal(effect, subject);
    int ordinal = repeats.merge(keyName + '\u0000' + canonical, 1, Integer::sum) - 1;
    String key = CallKeys.key(keyName, canonical, ordinal);
    Optional<JournalEntry> hit = store.loadJournalEntry(effect, source, position, key);
    recorded++;
    if (hit.isPresent()) {
      JournalEntry e = hit.get();
      return e.subject() == null
          ? read(label, e.result(), resultType)
          : reveal(e.result(), resultType);
    }
    running.push(key);
    T result;
    try {
      result = call.call(key);
    } finally {
      running.pop();
    }
    String json = Json.MAPPER.writeValueAsString(result);
    EffectServices services = services();
    String stored =
        subject == null
            ? services.storedResult(json)
            : services.seals().seal(effect, subject, resultType.getName(), json);
    store.appendJournalEntry(
        new JournalEntry(
            effect,
            source,
            position,
            key,
            recorded - 1,
            services.storedText(label),
            stored,
            subject,
            time.now()));
    return result;
  }

  @Override
  public String seal(String subject, Object document) {
    Objects.requireNonNull(document, "document");
    String json;
    try {
      json = Json.MAPPER.writeValueAsString(document);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "effect "
              + effect
              + ": a "
              + document.getClass().getName()
              + " cannot be written as JSON to seal it"
              + where(e));
    }
    return services().seals().seal(effect, subject, document.getClass().getName(), json);
  }

  @Override
  public <T> T reveal(String sealed, Class<T> type) {
    Objects.requireNonNull(type, "type");
    SubjectSeals.Opened opened;
    try {
      opened = services().seals().open(effect, sealed, type.getName());
    } catch (SubjectSeals.SubjectErased e) {
      terminal = e.getMessage();
      throw new TerminalFailure(e.getMessage());
    }
    if (!sealedAs(opened.typeName(), type))
      throw new IllegalStateException(
          "effect "
              + effect
              + ": a sealed document is a "
              + opened.typeName()
              + ", not the declared "
              + type.getName()
              + "; the lane waits until the declaration and the seal agree");
    try {
      return Json.MAPPER.readValue(opened.json(), type);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "effect "
              + effect
              + ": a sealed document cannot be read as the declared "
              + type.getName()
              + where(e)
              + "; the lane waits until the declaration and the seal agree");
    }
  }

  /**
   * Where in a document Jackson failed, by field path: its own message can quote a value, and a
   * sealed document's values are exactly what must stay out of rows and logs.
   */
  private static String where(JsonProcessingException e) {
    return e instanceof JsonMappingException m && !m.getPath().isEmpty()
        ? " (at " + m.getPathReference() + ")"
        : "";
  }

  /** Whether a document sealed as {@code typeName} may be read as {@code type}. */
  private static boolean sealedAs(String typeName, Class<?> type) {
    if (typeName.equals(type.getName()) || type == Object.class) return true;
    try {
      Class<?> sealed = Class.forName(typeName, false, type.getClassLoader());
      return type.isAssignableFrom(sealed);
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  @Override
  public EffectHttp http() {
    if (http == null) http = new JournaledHttp(this, services());
    return http;
  }

  private java.util.function.@Nullable Consumer<String> onResend;

  /**
   * Gives this context what to do when an HTTP call's inner loop is about to re-send: the engine
   * records the error on the running invocation's row (docs/effects.md, "Position").
   */
  InvocationContext onResend(java.util.function.Consumer<String> onResend) {
    this.onResend = onResend;
    return this;
  }

  /**
   * An HTTP call of this attempt is about to re-send after {@code error} (a transport error or a
   * re-sent status), redacted here; a failure to record it never fails the call, which is what
   * matters.
   */
  void resending(String error) {
    if (onResend == null) return;
    try {
      onResend.accept(Errors.redact(error, redaction));
    } catch (RuntimeException ignored) {
      // Only a sign for operators: the call goes on, and its outcome is recorded as usual.
    }
  }

  /** Records a server's wait from an HTTP call that gave up: the longest of the attempt counts. */
  void serverAskedToWait(Duration wait) {
    if (retryAfter == null || wait.compareTo(retryAfter) > 0) retryAfter = wait;
  }

  /**
   * The longest Retry-After an HTTP call of this attempt gave up on (capped at five minutes), or
   * null: the invocation's backoff is raised to it, never lowered.
   */
  @Nullable Duration retryAfter() {
    return retryAfter;
  }
}
