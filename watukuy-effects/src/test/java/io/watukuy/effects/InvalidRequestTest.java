package io.watukuy.effects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * docs/effects.md, "HTTP calls": a request an event's values make invalid (a URL that is not a URI,
 * a header value the HTTP client refuses) is a terminal failure, never retried, and its reason
 * names the effect and the part without quoting the value. Against a real server on 127.0.0.1 that
 * counts what reaches it.
 */
class InvalidRequestTest {
  private static final String SECRET = "hdr-S3cret-991";

  private final EffectFixture<MemoryStore> fixture = EffectFixture.memory();
  private final AtomicInteger received = new AtomicInteger();

  @AutoClose
  private final LocalReceiver receiver = LocalReceiver.noContent(received::incrementAndGet);

  private final String base = receiver.base();

  /** Runs {@code arm} on one created order for {@code customer}, twice 10 minutes apart. */
  private Effects run(String customer, Arm<Order> arm) {
    return fixture.runTwice(customer, List.of(SECRET), arm, Duration.ofMinutes(10));
  }

  /**
   * Asserts that position 1 completed as a terminal failure, counted once, with nothing reaching
   * the receiver; returns the effect's status for its error.
   */
  private EffectStatus assertTerminalAndNothingSent(Effects effects) {
    assertThat(received).hasValue(0);
    assertThat(fixture.row("Notify", 1).orElseThrow().status())
        .isEqualTo(InvocationStatus.TERMINAL);
    EffectStatus st = effects.status("Notify");
    assertThat(st.terminalSkips()).isEqualTo(1);
    return st;
  }

  @Test
  void aUrlThatIsNotAUriAfterSubstitutionIsATerminalFailure() {
    AtomicInteger runs = new AtomicInteger();
    Effects effects =
        run(
            "ali ce",
            (ctx, e) -> {
              runs.incrementAndGet();
              ctx.http()
                  .send(
                      EffectHttp.Request.of(
                          "POST", base + "/customers/" + e.data().customer() + "?t=" + SECRET));
            });

    assertThat(runs).hasValue(1);
    EffectStatus st = assertTerminalAndNothingSent(effects);
    assertThat(st.lastTerminalError())
        .startsWith("effect Notify: the request cannot be built: HTTP URL is not a valid URI:")
        .contains("at index")
        .doesNotContain(SECRET);
  }

  @Test
  void aHeaderValueTheClientRefusesIsATerminalFailureThatDoesNotQuoteIt() {
    Effects effects =
        run(
            "Jürgen €" + SECRET,
            (ctx, e) ->
                ctx.http()
                    .send(
                        EffectHttp.Request.of("POST", base + "/x")
                            .header("X-Customer", e.data().customer())));

    EffectStatus st = assertTerminalAndNothingSent(effects);
    assertThat(st.lastTerminalError())
        .isEqualTo(
            "effect Notify: the request cannot be built: HTTP header X-Customer: its value has a"
                + " non-ASCII character at index 1, which the HTTP client cannot send (encode the"
                + " value first)");
  }

  @Test
  void theClientsOwnHeaderRulesAreCheckedWhenTheRequestIsBuilt() {
    EffectHttp.Request r = EffectHttp.Request.of("GET", base + "/x");

    assertThatThrownBy(() -> r.header("X-Note", "line one\r\nX-Injected: 1"))
        .isInstanceOf(InvalidRequest.class)
        .hasMessage(
            "HTTP header X-Note: its value has a control character (CR, LF, ...) at index 8,"
                + " which the HTTP client refuses");
    assertThatThrownBy(() -> r.header("X Note", "v"))
        .isInstanceOf(InvalidRequest.class)
        .hasMessageContaining("'X Note' is not a token");
    assertThatThrownBy(() -> EffectHttp.Request.of("GET", "ftp://host/x"))
        .isInstanceOf(InvalidRequest.class);
    // The JDK client takes U+0080..U+00FF but sends each as '?': refused too, not garbled.
    assertThatThrownBy(() -> r.header("X-Note", "Jürgen"))
        .isInstanceOf(InvalidRequest.class)
        .hasMessageContaining("non-ASCII character at index 1");
    // Tab, space and visible ASCII are sent as they are.
    assertThat(r.header("X-Note", "a\tb c ~!").headers()).containsKey("X-Note");
  }
}
