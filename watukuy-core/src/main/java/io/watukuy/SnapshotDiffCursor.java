package io.watukuy;

/**
 * The snapshotDiff strategy: no cursor; every cycle lists everything (paging with {@link
 * FetchContext#page()}) and, when the listing completed, emits deleted for every stored identity
 * not listed (docs/architecture.md, "snapshotDiff"). A truncated listing (page cap or tick
 * deadline) or a 304 emits no deletes. Memory per cycle: one page plus a set of identity strings.
 * Backfill and reconcile are rejected with {@link ConfigException}.
 *
 * <p>The listing should be stable while it is walked: with offset pages, an item deleted between
 * two page requests shifts the next page, so an item that still exists can be missed and reported
 * deleted, then created again by the next cycle (with the id of its first creation). Prefer keyset
 * pages (sorted by identity, {@code after=<last id>}) when the API has them, and see {@link
 * Handler} on deduplicating.
 *
 * @since 0.1
 */
public final class SnapshotDiffCursor implements CursorStrategy<Void> {
  static final SnapshotDiffCursor INSTANCE = new SnapshotDiffCursor();

  private SnapshotDiffCursor() {}

  @Override
  public String name() {
    return "snapshotDiff";
  }
}
