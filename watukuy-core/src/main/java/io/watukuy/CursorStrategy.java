package io.watukuy;

/**
 * How a poller remembers what it already saw (docs/architecture.md, "Cursor strategies"). Create
 * one with {@link Cursors}. {@code C} is the type of the cursor handed to fetch: {@link Watermark}
 * for timestamp, {@code String} (nullable) for token, {@code Integer} for page, {@code Void}
 * (always null) for snapshotDiff, the user's type for custom.
 *
 * @param <C> the cursor type handed to fetch
 * @since 0.1
 */
public sealed interface CursorStrategy<C>
    permits TimestampCursor, TokenCursor, PageCursor, SnapshotDiffCursor, CustomCursor {

  /**
   * The strategy's name, as used in messages and configuration.
   *
   * @return {@code timestamp}, {@code token}, {@code page}, {@code snapshotDiff} or {@code custom}
   */
  String name();
}
