package io.watukuy.cli;

/**
 * The head of the YAML config the effect tests run: a SQLite store and a file output in the
 * config's folder, and an {@code orders} poller reading a local receiver's {@code /items} (a
 * snapshot diff by {@code /id}), ending in {@code effects:} for the test's own effect.
 */
final class OrdersYaml {
  private OrdersYaml() {}

  /**
   * The head, up to and including the line {@code effects:}.
   *
   * @param port the local receiver's port on 127.0.0.1
   * @param log the poller's {@code log:} value, such as {@code { enabled: true }}
   */
  static String head(int port, String log) {
    return """
        store: sqlite:watukuy.db
        output: file:events.jsonl
        pollers:
          - name: orders
            request: { url: "http://127.0.0.1:%d/items" }
            response: { items: /items }
            identity: /id
            cursor: { strategy: snapshotDiff }
            log: %s
        effects:
        """
        .formatted(port, log);
  }
}
