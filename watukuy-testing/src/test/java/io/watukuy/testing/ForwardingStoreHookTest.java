package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.PollerKey;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoredCredential;
import io.watukuy.store.memory.MemoryStore;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
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

  @Test
  void credentialCallsGoThroughTheHookToTheDelegatesTable() {
    MemoryStore memory = new MemoryStore();
    CountingStore store = new CountingStore(memory);
    StoredCredential first = new StoredCredential("refresh", 1, "sealed", null, null, T0);

    assertThat(store).isInstanceOf(CredentialStore.class);
    assertThat(store.compareAndSetCredential(0, first)).isTrue();
    assertThat(store.loadCredential("refresh")).contains(first);
    assertThat(store.listCredentials()).containsExactly("refresh");
    assertThat(memory.loadCredential("refresh")).contains(first);
    assertThat(store.deleteCredential("refresh")).isTrue();

    assertThat(store.calls())
        .containsExactly(
            "compareAndSetCredential", "loadCredential", "listCredentials", "deleteCredential");
  }

  @Test
  void aDeadFaultyStoreRefusesCredentialCallsToo() {
    FaultyStore store = new FaultyStore(new MemoryStore()).arm(KillPoint.BEFORE_ACQUIRE);
    assertThatThrownBy(() -> store.acquireLease(KEY, "a", TTL, T0))
        .isInstanceOf(SimulatedCrash.class);

    assertThatThrownBy(() -> store.loadCredential("refresh"))
        .isInstanceOf(SimulatedCrash.class)
        .hasMessageEndingWith("loadCredential never ran");
  }

  @Test
  void overAStoreWithoutCredentialsTheCredentialCallsSaySo() {
    // A store that is a StateStore only: MemoryStore seen through the StateStore interface alone.
    MemoryStore memory = new MemoryStore();
    StateStore stateOnly =
        (StateStore)
            Proxy.newProxyInstance(
                StateStore.class.getClassLoader(),
                new Class<?>[] {StateStore.class},
                (proxy, method, args) -> method.invoke(memory, args));
    ForwardingStore store = new ForwardingStore(stateOnly);

    assertThatThrownBy(store::listCredentials)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("listCredentials")
        .hasMessageContaining("is not a CredentialStore");
  }

  @Test
  void effectCallsReachTheHookByTheirEffectStoreNamesAndAThrowSkipsTheDelegate() {
    MemoryStore memory = new MemoryStore();
    CountingStore counting = new CountingStore(memory);
    EffectStore effects = counting.effects().orElseThrow();

    Lease lease = effects.acquireEffectLease("Notify", "a", TTL, T0).orElseThrow();
    effects.lowestWatermark(KEY);
    assertThat(counting.calls()).containsExactly("acquireEffectLease", "lowestWatermark");

    ForwardingStore failing =
        new ForwardingStore(memory) {
          @Override
          protected void beforeCall(String method) {
            if (method.equals("setQuarantine")) throw new IllegalStateException(method);
          }
        };
    EffectStore failingEffects = failing.effects().orElseThrow();
    assertThatThrownBy(() -> failingEffects.setQuarantine("Notify", "test", T0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("setQuarantine");
    assertThat(memory.effects().orElseThrow().loadEffect("Notify")).isEmpty();
    assertThat(failingEffects.effectLease("Notify")).contains(lease);
  }

  @Test
  void aDelegateWithoutEffectTablesGivesAWrapperWithoutThem() {
    StateStore stateOnly =
        new ForwardingStore(new MemoryStore()) {
          @Override
          public Optional<EffectStore> effects() {
            return Optional.empty();
          }
        };

    assertThat(new CountingStore(stateOnly).effects()).isEmpty();
  }
}
