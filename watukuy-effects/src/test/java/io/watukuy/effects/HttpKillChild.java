package io.watukuy.effects;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The engine half of {@link HttpKillTest}, in a JVM of its own so the parent can SIGKILL it.
 *
 * <p>Usage: {@code HttpKillChild <db> <baseUrl> <order> <marker>}. One effect over the orders log
 * of the SQLite store {@code db}, whose created arm POSTs to {@code baseUrl/call1}, {@code /call2}
 * and {@code /call3} through the journaled client, in the order {@code order} names them ({@code
 * 123}, or {@code 312} for an arm edited between runs). Once position 1 is complete it writes
 * {@code done} to {@code marker} and exits 0; it exits 3 when that takes more than 20 s and 4 when
 * the parent goes away.
 */
public final class HttpKillChild {
  /** Both runs are this engine, so the second takes the lease the killed one held at once. */
  static final String INSTANCE = "kill-child";

  private HttpKillChild() {}

  public static void main(String[] args) throws Exception {
    ChildJvm.haltWhenParentGoes();
    Path db = Path.of(args[0]);
    String base = args[1];
    List<String> order = args[2].chars().mapToObj(c -> "call" + (char) c).toList();
    Path marker = Path.of(args[3]);
    SqliteStore store = SqliteStore.open(db);
    EffectFixture<SqliteStore> f = new EffectFixture<>(store);
    Arm<Order> arm =
        (ctx, e) -> {
          for (String call : order)
            ctx.http().send(EffectHttp.Request.of("POST", base + "/" + call).body(e.identity()));
        };
    Effects effects =
        Effects.builder(store)
            .instanceId(INSTANCE)
            .pollInterval(Duration.ofMillis(20))
            .add(f.effect("Notify").on(EventType.CREATED, arm, Key.identity()).build())
            .build();
    effects.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (effects.status("Notify").position() < 1) {
      if (System.nanoTime() > deadline) Runtime.getRuntime().halt(3);
      Thread.sleep(10);
    }
    effects.close();
    store.close();
    ChildJvm.mark(marker, "done");
    System.exit(0);
  }
}
