package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.DeliveryPolicy;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.Watukuy;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A parked poison row is stored and backed up: its message, its stack trace (causes included) and
 * its attempt history hide the engine's secrets, also JSON-escaped, and before the trace is cut
 * (docs/operations.md, "Secrets"; issue 16).
 */
class ParkedSecretsTest {
  private static final String SECRET = "wh\"ook-S3cret\\x";

  @Test
  void aHandlerErrorQuotingASecretIsParkedRedacted() {
    Fixture f = new Fixture();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(
                new DeliveryPolicy(
                    RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.PARK, false)))
            .build();
    Watukuy w =
        f.engine("a")
            .secrets(List.of(SECRET))
            .poller(orders)
            .build()
            .on(
                orders,
                event -> {
                  if (event.identity().equals("o002"))
                    throw new IllegalStateException(
                        "webhook refused with key " + SECRET,
                        new IllegalArgumentException("cause quotes " + SECRET));
                });
    f.seed(3);

    w.tick();

    List<ParkedRow> parked = f.store.listParked(PollerKey.of("orders"), ParkedKind.POISON, 10);
    assertThat(parked).hasSize(1);
    String error = parked.get(0).error();
    assertThat(error)
        .contains("\"message\":\"webhook refused with key [redacted]\"")
        .contains(
            "\"stack\":\"java.lang.IllegalStateException: webhook refused with key [redacted]")
        // Nowhere in any form: message, trace, the cause's line, the attempt history.
        .doesNotContain("S3cret");
  }

  @Test
  void aValidationProblemQuotingASecretIsParkedRedacted() {
    Fixture f = new Fixture();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .validator(n -> List.of("token field holds " + SECRET + ", not a number"))
            .build();
    Watukuy w = f.engine("a").secrets(List.of(SECRET)).poller(orders).build().on(orders, e -> {});
    f.seed(1);

    w.tick();

    List<ParkedRow> parked = f.store.listParked(PollerKey.of("orders"), ParkedKind.INVALID, 10);
    assertThat(parked).hasSize(1);
    assertThat(parked.get(0).error())
        .contains("token field holds [redacted], not a number")
        .doesNotContain("S3cret");
  }
}
