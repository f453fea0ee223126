package io.watukuy.spi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.internal.Json;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A quarantined event or item (guarantee G7).
 *
 * @param id the row's id within its key: a poison event's is its outbox sequence in decimal; an
 *     invalid item's is {@code invalid-} and 16 hex digits derived from its identity and JSON, so
 *     the same invalid item parked again replaces its row
 * @param kind poison or invalid
 * @param sequence the original outbox sequence of a poison event ({@code retry} puts it back there,
 *     so per-key order holds), {@code null} for an invalid item
 * @param eventId the parked event's id, {@code null} for an invalid item
 * @param orderingKey the ordering key of the event or item
 * @param event the event envelope JSON of a poison event, else {@code null}
 * @param item the item JSON of an invalid item, else {@code null}
 * @param error JSON object {@code {name, message, stack, history}}; for an invalid item the
 *     validation messages
 * @param attempts delivery attempts made (0 for an invalid item)
 * @param parkedAt when it was parked
 * @param holdKey the ordering key held back while this row is parked, or {@code null}
 * @since 0.1
 */
public record ParkedRow(
    String id,
    ParkedKind kind,
    @Nullable Long sequence,
    @Nullable String eventId,
    String orderingKey,
    @Nullable String event,
    @Nullable String item,
    String error,
    int attempts,
    Instant parkedAt,
    @Nullable String holdKey) {
  /**
   * Creates a row.
   *
   * @param id the row's id within its key
   * @param kind poison or invalid
   * @param sequence the original outbox sequence, or {@code null} for an invalid item
   * @param eventId the event's id, or {@code null} for an invalid item
   * @param orderingKey the ordering key
   * @param event the envelope JSON, or {@code null}
   * @param item the item JSON, or {@code null}
   * @param error the error JSON object
   * @param attempts delivery attempts made
   * @param parkedAt when it was parked
   * @param holdKey the ordering key held back, or {@code null}
   * @throws NullPointerException if {@code id}, {@code kind}, {@code orderingKey}, {@code error} or
   *     {@code parkedAt} is null
   */
  public ParkedRow {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(orderingKey, "orderingKey");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(parkedAt, "parkedAt");
  }

  /**
   * The one-line reason this row was parked, as {@code parked list} and {@code GET /admin/parked}
   * show it.
   *
   * <p>The stored {@link #error()} is a JSON object: {@code {"name", "message", "stack",
   * "history"}} for a poison event (the exception's simple class name and its redacted message),
   * {@code {"name", "message", "page", "index", "problems"}} for an invalid item (the validation
   * messages joined by {@code "; "}). When {@code message} is a string, the result is {@code "name:
   * message"}, or the message alone when {@code name} is missing or not a string. Any other error
   * (not JSON, a row an older or foreign writer stored, an object without a string {@code message})
   * is returned as stored, so nothing a store holds is hidden. The message may hold line breaks (a
   * validator's own); a one-line view folds them.
   *
   * @return the reason, never {@code null}; never throws for an unreadable error
   * @since 0.1
   */
  public String errorMessage() {
    try {
      JsonNode parsed = Json.MAPPER.readTree(error);
      JsonNode message = parsed == null ? null : parsed.get("message");
      if (message != null && message.isTextual()) {
        JsonNode name = parsed.get("name");
        return (name != null && name.isTextual() ? name.textValue() + ": " : "")
            + message.textValue();
      }
    } catch (JsonProcessingException e) {
      // Not JSON: an older or foreign row, shown as it is below.
    }
    return error;
  }
}
