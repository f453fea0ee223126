package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.PollerKey;
import io.watukuy.spi.Lease;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardingStore#beforeCall} is the one hook {@link CountingStore} and {@link FaultyStore}
 * build on: each forwarded call reaches it once, by its {@code StateStore} name, and what it throws
 * is the call's.
 */
class ForwardingStoreHookTest {
  private static final PollerKey KEY = PollerKey.of("orders");
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void aCountingStoreCountsEachForwardedCallOnceAndACombinedCallAsOne() {
    CountingStore store = new CountingStore(new MemoryStore());

    store.migrate();
    Lease lease = store.acquireLease(KEY, "a", TTL, T0).orElseThrow();
    store.loadState(KEY);
    store.releaseLease(KEY, lease);
    store.acquireLeaseAndLoad(KEY, "a", TTL, T0);
    store.capabilities();

    assertThat(store.calls())
        .containsExactly(
            "migrate", "acquireLease", "loadState", "releaseLease", "acquireLeaseAndLoad");
  }

  @Test
  void aDeadFaultyStoreFailsEveryCallButMigrateAndCapabilities() {
    FaultyStore store = new FaultyStore(new MemoryStore()).arm(KillPoint.BEFORE_ACQUIRE);

    assertThatThrownBy(() -> store.acquireLease(KEY, "a", TTL, T0))
        .isInstanceOf(SimulatedCrash.class);

    assertThat(store.dead()).isTrue();
    assertThatThrownBy(() -> store.loadState(KEY))
        .isInstanceOf(SimulatedCrash.class)
        .hasMessageEndingWith("the process is dead; loadState never ran");
    assertThatThrownBy(() -> store.countItems(KEY))
        .isInstanceOf(SimulatedCrash.class)
        .hasMessageEndingWith("countItems never ran");
    store.migrate();
    assertThat(store.capabilities()).isNotNull();
  }

  @Test
  void whatTheHookThrowsIsTheCallsAndTheDelegateIsNotCalled() {
    MemoryStore memory = new MemoryStore();
    ForwardingStore store =
        new ForwardingStore(memory) {
          @Override
          protected void beforeCall(String method) {
            if (method.equals("acquireLease")) throw new IllegalStateException(method);
          }
        };

    assertThatThrownBy(() -> store.acquireLease(KEY, "a", TTL, T0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("acquireLease");
    assertThat(memory.getLease(KEY)).isEmpty();
    assertThat(store.listKeys(null)).isEqualTo(List.of());
  }
}
