package io.watukuy;

/**
 * The snapshotDiff strategy: no cursor; every cycle lists everything (paging with
 * {@link FetchContext#page()}) and, when the listing completed, emits deleted for every stored
 * identity not listed (Cursor strategies document, "snapshotDiff"). A truncated listing (page cap
 * or tick deadline) or a 304 emits no deletes. Memory per cycle: one page plus a set of identity
 * strings. Backfill and reconcile are rejected with {@link ConfigException}.
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
