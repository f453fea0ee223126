package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A setting, a cursor value or a call that cannot be honoured as given: a bad builder value,
 * an unparseable cursor string, an operation the strategy rejects. The message names the
 * poller, the field and the value. Thrown before anything is written.
 *
 * @since 0.1
 */
public final class ConfigException extends WatukuyException {
  public ConfigException(String message) {
    super(message, null);
  }

  public ConfigException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return false;
  }
}
