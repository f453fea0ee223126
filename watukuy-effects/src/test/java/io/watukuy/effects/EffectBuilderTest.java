package io.watukuy.effects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.EventType;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Declaring an effect (docs/effects.md, "The model"): every mistake is named. */
class EffectBuilderTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final Arm<Order> nothing = (ctx, e) -> {};

  @Test
  void aSourceWithoutItsLogIsAConfigErrorNamingTheEffectAndThePoller() {
    Poller<Order> noLog =
        Poller.builder("invoices", Order.class)
            .identity(Order::id)
            .cursor(Cursors.token())
            .fetch(ctx -> Page.empty())
            .build();
    assertThatThrownBy(() -> Effect.builder("NotifyCustomer").source(noLog))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("effect NotifyCustomer")
        .hasMessageContaining("source poller invoices has no event log")
        .hasMessageContaining("log(EventLog.keep(..))");
  }

  @Test
  void armsDeclareTheirKeySchemesPerEventTypeAndTheDefaults() {
    Effect<Order> e =
        f.effect("NotifyCustomer")
            .on(EventType.CREATED, nothing, EffectFixture.byCustomer())
            .on(EventType.DELETED, nothing, Key.identity())
            .build();
    assertThat(e.schemes()).isEqualTo(Map.of("created", "customer", "deleted", "identity"));
    assertThat(e.batchSize()).isEqualTo(500);
    assertThat(e.readAhead()).isEqualTo(10_000);
    assertThat(e.version()).isEqualTo(Effect.UNVERSIONED);
    assertThat(e.source()).isSameAs(f.orders);
  }

  @Test
  void aSecondArmForOneTypeIsRefused() {
    Effect.Builder<Order> b =
        f.effect("NotifyCustomer").on(EventType.CREATED, nothing, EffectFixture.byCustomer());
    assertThatThrownBy(() -> b.on(EventType.CREATED, nothing, Key.identity()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("effect NotifyCustomer: created already has an arm; one arm per event type");
  }

  @Test
  void anEffectWithoutArmsOrSourceIsRefused() {
    assertThatThrownBy(() -> f.effect("Empty").build())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("effect Empty: no arm");
    assertThatThrownBy(() -> Effect.builder("NoSource").build())
        .isInstanceOf(ConfigException.class)
        .hasMessage("effect NoSource: source(poller) is not set");
  }

  @Test
  void namesSchemesAndSizesAreChecked() {
    assertThatThrownBy(() -> Effect.builder("has space"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("effect name 'has space' is not valid");
    assertThatThrownBy(() -> Key.of("a:b", e -> "x"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("key scheme 'a:b' is not valid");
    assertThatThrownBy(() -> f.effect("E").batchSize(0))
        .isInstanceOf(ConfigException.class)
        .hasMessage("effect E: batchSize must be 1..10000, but was 0");
    assertThatThrownBy(() -> f.effect("E").version(" "))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("effect E: version");
  }

  @Test
  void aStoreWithoutEffectTablesAndADuplicateEffectAreRefused() {
    Effect<Order> e = f.effect("E").on(EventType.CREATED, nothing, Key.identity()).build();
    assertThatThrownBy(() -> Effects.builder(f.store).add(e).add(e))
        .isInstanceOf(ConfigException.class)
        .hasMessage("effect E is added twice");
    StateStore stateOnly =
        new ForwardingStore(f.store) {
          @Override
          public Optional<EffectStore> effects() {
            return Optional.empty();
          }
        };
    assertThatThrownBy(() -> Effects.builder(stateOnly))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "store "
                + stateOnly.getClass().getName()
                + " keeps no effect tables (its effects() is empty); use a store module's"
                + " StateStore");
    // A wrapper keeps its delegate's effect tables: it is no store without them.
    assertThat(Effects.builder(new ForwardingStore(f.store))).isNotNull();
    assertThatThrownBy(() -> Effects.builder(f.store).poolSize(0))
        .isInstanceOf(ConfigException.class)
        .hasMessage("effects poolSize must be 1..1024, but was 0");
  }

  @Test
  void theEngineDefaultsAndRangesOfRetentionAndTheAutomaticQuarantine() {
    assertThat(Effects.DEFAULT_JOURNAL_RETENTION).isEqualTo(Duration.ofDays(7));
    assertThat(Effects.DEFAULT_QUARANTINE_AFTER).isEqualTo(50);
    assertThatThrownBy(() -> f.builder("e").journalRetention(Duration.ofMinutes(59)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("effects journalRetention must be 1h..3650d, but was PT59M");
    assertThatThrownBy(() -> f.builder("e").quarantineAfter(-1))
        .isInstanceOf(ConfigException.class)
        .hasMessage("effects quarantineAfter must be 0..1000000 (0: never), but was -1");
  }

  @Test
  void latestAndLiveArmsKeepTheirModeAndAPlainArmRunsForEachEvent() {
    Arm<Order> nothing = (ctx, e) -> {};
    Effect<Order> e =
        f.effect("Modes")
            .on(EventType.CREATED, nothing, Key.identity())
            .onLatest(EventType.UPDATED, nothing, Key.identity())
            .onLive(EventType.DELETED, nothing, Key.identity())
            .build();
    assertThat(e.arms().get(EventType.CREATED).mode()).isEqualTo(Effect.Mode.EACH);
    assertThat(e.arms().get(EventType.UPDATED).mode()).isEqualTo(Effect.Mode.LATEST);
    assertThat(e.arms().get(EventType.DELETED).mode()).isEqualTo(Effect.Mode.LIVE);
    assertThat(new Effect.On<>(nothing, Key.identity()).mode()).isEqualTo(Effect.Mode.EACH);
  }
}
