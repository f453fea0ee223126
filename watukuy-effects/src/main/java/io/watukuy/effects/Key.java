package io.watukuy.effects;

import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * How an arm names the lane of an event (docs/effects.md, "The model"): a declared scheme name and
 * a function of the event. The lane is {@code scheme:value}; one lane runs its events in log order
 * and lanes never wait on each other. The scheme's name is persisted with the effect's position, so
 * a change of scheme between deploys is detected (docs/effects.md, "States").
 *
 * @param <T> the source poller's item type
 * @since 0.1
 */
public final class Key<T> {
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  private final String scheme;
  private final Function<ChangeEvent<T>, ?> value;

  private Key(String scheme, Function<ChangeEvent<T>, ?> value) {
    this.scheme = scheme;
    this.value = value;
  }

  /**
   * A key scheme.
   *
   * @param scheme the scheme's name: letters, digits, {@code _ . -}, at most 64 characters,
   *     starting with a letter or digit; rename it whenever the function starts returning different
   *     values for the same events
   * @param value the key value of an event, as text by {@link String#valueOf(Object)}; returning
   *     {@code null} or throwing fails the event's invocation (it belongs to no lane)
   * @param <T> the item type
   * @return the key
   * @throws NullPointerException if an argument is null
   * @throws ConfigException if the scheme name is not valid
   */
  public static <T> Key<T> of(String scheme, Function<ChangeEvent<T>, ?> value) {
    Objects.requireNonNull(scheme, "scheme");
    Objects.requireNonNull(value, "value");
    if (!SCHEME.matcher(scheme).matches())
      throw new ConfigException(
          "key scheme '"
              + scheme
              + "' is not valid: letters, digits, _ . - (at most 64), starting with a letter or"
              + " digit");
    return new Key<>(scheme, value);
  }

  /**
   * One lane per item: the scheme {@code identity}, the event's {@link ChangeEvent#identity()}.
   *
   * @param <T> the item type
   * @return the key
   */
  public static <T> Key<T> identity() {
    return new Key<>("identity", ChangeEvent::identity);
  }

  /**
   * The scheme's declared name.
   *
   * @return the name, e.g. {@code customer}
   */
  public String scheme() {
    return scheme;
  }

  /**
   * The lane of an event.
   *
   * @param event the event
   * @return {@code scheme:value}
   * @throws IllegalStateException if the function returned {@code null}; the message names the
   *     scheme
   * @throws RuntimeException whatever the function threw
   */
  public String lane(ChangeEvent<T> event) {
    Object v = value.apply(event);
    if (v == null)
      throw new IllegalStateException(
          "key '" + scheme + "' returned null for the " + event.type().wire() + " event");
    return scheme + ":" + v;
  }

  @Override
  public String toString() {
    return "Key[" + scheme + "]";
  }
}
