package io.watukuy.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Conditional-request validators stored per URL hash: sent back as {@code If-None-Match} and {@code
 * If-Modified-Since}. The ETag is kept byte for byte, weak ({@code W/"..."}) or not.
 *
 * @param etag the {@code ETag} to send as {@code If-None-Match}, as the server sent it, or {@code
 *     null}
 * @param lastModified the {@code Last-Modified} to send as {@code If-Modified-Since}, as the server
 *     sent it, or {@code null}
 * @param storedAt when the validator was stored, on the engine's clock
 * @since 0.1
 */
public record HttpValidator(
    @Nullable String etag, @Nullable String lastModified, Instant storedAt) {
  /**
   * Creates a validator.
   *
   * @param etag the {@code ETag} value, or {@code null}
   * @param lastModified the {@code Last-Modified} value, or {@code null}
   * @param storedAt when the validator was stored
   * @throws NullPointerException if {@code storedAt} is null
   */
  public HttpValidator {
    Objects.requireNonNull(storedAt, "storedAt");
  }
}
