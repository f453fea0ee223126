package io.watukuy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The origin {@link Poller.Builder#requestSigner} binds a signer to (RFC 6454: scheme, host, port).
 */
class RequestSignerOriginTest {
  private static final RequestSigner SIGNER = request -> request.setHeader("X-Key", "k");

  private static Poller.Builder<String, Void> builder() {
    return Poller.builder("orders", String.class).identity(s -> s);
  }

  @Test
  void theOriginIsSchemeHostAndPortLowerCaseWithTheDefaultPortFilledIn() {
    Poller<String> https =
        builder()
            .requestSigner("HTTPS://API.Example.com/v1/orders?x=1", SIGNER)
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.of(java.util.List.of()))
            .build();
    Poller<String> http =
        builder()
            .requestSigner("http://127.0.0.1:8080", SIGNER)
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.of(java.util.List.of()))
            .build();

    assertThat(https.signerOrigin()).isEqualTo("https://api.example.com:443");
    assertThat(https.requestSigner()).isSameAs(SIGNER);
    assertThat(http.signerOrigin()).isEqualTo("http://127.0.0.1:8080");
  }

  @Test
  void anOriginThatIsNotAnAbsoluteHttpUrlIsAConfigError() {
    assertThatThrownBy(() -> builder().requestSigner("ftp://files.example.com/", SIGNER))
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller orders: requestSigner origin is not an absolute http or https URL");
    assertThatThrownBy(() -> builder().requestSigner("/orders", SIGNER))
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller orders: requestSigner origin is not an absolute http or https URL");
  }

  @Test
  void withoutASignerBothAreNull() {
    Poller<String> p =
        builder().cursor(Cursors.snapshotDiff()).fetch(ctx -> Page.of(java.util.List.of())).build();

    assertThat(p.requestSigner()).isNull();
    assertThat(p.signerOrigin()).isNull();
  }
}
