package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A setting, a cursor value or a call that cannot be honoured as given: a bad builder value, an
 * unparseable cursor string, an operation the strategy rejects. The message names the poller, the
 * field and the value. Thrown before anything is written.
 *
 * @since 0.1
 */
public final class ConfigException extends WatukuyException {
  /**
   * Creates the exception.
   *
   * @param message names the poller, the field and the value, and what is expected instead
   */
  public ConfigException(String message) {
    super(message, null);
  }

  /**
   * Creates the exception with the failure that revealed the problem.
   *
   * @param message names the poller, the field and the value, and what is expected instead
   * @param cause the underlying failure (a parser's exception, for example), or {@code null}
   */
  public ConfigException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** {@inheritDoc} Always {@code false}: the setting must change first. */
  @Override
  public boolean retryable() {
    return false;
  }
}
