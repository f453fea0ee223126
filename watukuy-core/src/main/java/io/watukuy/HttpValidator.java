package io.watukuy;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Conditional-request validators stored per URL hash: sent back as {@code If-None-Match} and
 * {@code If-Modified-Since}. The ETag is kept byte for byte, weak ({@code W/"..."}) or not.
 *
 * @since 0.1
 */
public record HttpValidator(@Nullable String etag, @Nullable String lastModified, Instant storedAt) {
  public HttpValidator {
    Objects.requireNonNull(storedAt, "storedAt");
  }
}
