package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.internal.diff.Jcs;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One fetched item with what the diff needs: its JSON form, identity, version, ordering key. The
 * hash is computed on demand, because most polls re-see unchanged items whose version alone
 * decides.
 */
public final class ItemView {
  final int index;
  final Object item;
  public final JsonNode json;
  final String identity;
  final @Nullable String version;
  final String orderingKey;
  final boolean tombstone;
  private final @Nullable Object fingerprint;
  private @Nullable String hash;

  /** The validator's problems, or null when valid (or not validated). */
  @Nullable List<String> problems;

  /**
   * Whether the item has no usable identity: it is parked as invalid and takes no part in the diff
   * or in a full listing's deletes ({@link #identity} is then {@link #NO_IDENTITY}).
   */
  boolean noIdentity;

  /**
   * The identity (and ordering key) of an item that has none: empty, which no valid identity is.
   * Not a control character: a PostgreSQL text column refuses NUL.
   */
  static final String NO_IDENTITY = "";

  ItemView(
      int index,
      Object item,
      JsonNode json,
      String identity,
      @Nullable String version,
      String orderingKey,
      boolean tombstone,
      @Nullable Object fingerprint) {
    this.index = index;
    this.item = item;
    this.json = json;
    this.identity = identity;
    this.version = version;
    this.orderingKey = orderingKey;
    this.tombstone = tombstone;
    this.fingerprint = fingerprint;
  }

  /** The 0-based index of the item in its page. */
  public int index() {
    return index;
  }

  /** Whether the validator accepted the item (always true without a validator). */
  public boolean valid() {
    return problems == null;
  }

  public Object item() {
    return item;
  }

  String hash() {
    if (hash == null) {
      JsonNode basis = fingerprint == null ? json : Json.MAPPER.valueToTree(fingerprint);
      hash = Jcs.hash(basis);
    }
    return hash;
  }
}
