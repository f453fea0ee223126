package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.spi.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** G5: the lease is renewed every ttl/3 while a cycle runs, so a slow cycle keeps its key. */
class LeaseKeeperTest {
  @Test
  void aCycleLongerThanTheLeaseTtlKeepsItsLeaseByRenewing() {
    Fixture f = new Fixture();
    f.seed(4);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy other = f.engine("b").poller(orders).build();
    List<KeyReport.Outcome> seenByOther = new ArrayList<>();
    List<Lease> leases = new ArrayList<>();
    List<Boolean> liveWhenSeen = new ArrayList<>();
    Watukuy slow =
        f.engine("a")
            .poller(orders)
            .build()
            .on(
                orders,
                (ChangeEvent<JsonNode> e) -> {
                  // Each event takes 20 s of virtual time: four of them outlast the 30 s TTL.
                  f.clock.advance(Duration.ofSeconds(20));
                  Lease lease = f.store.getLease(PollerKey.of("orders")).orElseThrow();
                  leases.add(lease);
                  liveWhenSeen.add(lease.expiresAt().isAfter(f.clock.now()));
                  TickReport r = other.tick();
                  seenByOther.add(r.key(PollerKey.of("orders")).orElseThrow().outcome());
                });

    TickReport report = slow.tick();

    assertThat(report.failed()).isFalse();
    assertThat(report.delivered()).isEqualTo(4);
    assertThat(seenByOther).containsOnly(KeyReport.Outcome.SKIPPED_LEASED);
    assertThat(leases).extracting(Lease::owner).containsOnly("a");
    assertThat(leases).extracting(Lease::epoch).containsOnly(leases.get(0).epoch());
    assertThat(liveWhenSeen).containsOnly(true);
  }
}
