package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.testing.HostileVendor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A vendor's body cannot hurt the poller (issue 16, §2 and §5; docs/operations.md, "Bodies that are
 * refused"): a body over {@code request.maxBodySize} is refused before it is buffered, an endless
 * one is cut off at the bound, an item over {@code maxItemSize} is parked without being hashed, and
 * JSON that a lenient parser would read with data lost fails the page naming the request and the
 * item. Against a real server on 127.0.0.1 that streams its bodies.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileBodiesTest {
  private static final long MIB = 1 << 20;

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();
  final HostileVendor vendor = HostileVendor.start();

  @AfterEach
  void stop() {
    vendor.close();
  }

  private Poller<JsonNode> poller(String path, UnaryOperator<Poller.Builder<JsonNode, Void>> tune) {
    String url = vendor.url(path);
    Poller.Builder<JsonNode, Void> b =
        Poller.builder("vendor", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx -> {
                  JsonNode body = ctx.http().get(url).json();
                  List<JsonNode> items = new ArrayList<>();
                  body.get("items").forEach(items::add);
                  return Page.of(items);
                })
            .schedule(Fixture.FIXED);
    return tune.apply(b).build();
  }

  private KeyReport tick(Poller<JsonNode> p) {
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);
    return w.tick().poller("vendor").orElseThrow();
  }

  @Test
  void aBodyAnnouncedLargerThanTheLimitIsRefusedBeforeItIsRead() {
    KeyReport r = tick(poller("/announced?mb=256", b -> b));

    // 256 MiB announced, 32 MiB allowed by default.
    assertThat(r.error())
        .hasMessageContaining(vendor.url("/announced?mb=256"))
        .hasMessageContaining("268435456 bytes (Content-Length)")
        .hasMessageContaining("request.maxBodySize 33554432 bytes");
    assertThat(r.eventsCommitted()).isZero();
    // Refused unread: what the server got out before the client hung up stays far below the body.
    assertThat(vendor.bytesSent()).isLessThan(32 * MIB);
  }

  @Test
  void anEndlessBodyIsCutOffAsSoonAsItPassesTheLimit() {
    KeyReport r = tick(poller("/endless", b -> b.maxBodySize(MIB)));

    assertThat(r.error())
        .hasMessageContaining(vendor.url("/endless"))
        .hasMessageContaining("passed request.maxBodySize 1048576 bytes");
    assertThat(r.eventsCommitted()).isZero();
    assertThat(vendor.bytesSent()).isLessThan(64 * MIB);
  }

  @Test
  void anItemOverMaxItemSizeIsParkedInvalidWithoutItsBodyAndTheRestIsDelivered() {
    // 5 MiB of one string; 4 MiB allowed by default.
    KeyReport r = tick(poller("/huge-item?mb=5", b -> b));

    assertThat(r.error()).isNull();
    assertThat(handler.changes()).containsExactly("small:created");
    List<ParkedRow> parked = f.store.listParked(PollerKey.of("vendor"), ParkedKind.INVALID, 10);
    assertThat(parked).hasSize(1);
    assertThat(parked.get(0).item()).isNull();
    assertThat(parked.get(0).error())
        .contains("ItemTooLarge")
        .contains("item 1: " + (5 * MIB + "{\"id\":\"huge\",\"blob\":\"\"}".length()) + " bytes")
        .contains("more than maxItemSize 4194304 bytes");
    assertThat(f.store.countItems(PollerKey.of("vendor"))).isEqualTo(1);
  }

  @Test
  void duplicateKeysFailThePageNamingTheRequestAndTheItem() {
    KeyReport r = tick(poller("/duplicate-keys", b -> b));

    // Lenient, {"id":1,"id":7} was identity 7: a created 7 and, later, a deleted 1.
    assertThat(r.error())
        .hasMessageContaining("GET " + vendor.url("/duplicate-keys"))
        .hasMessageContaining("Duplicate field 'id'")
        .hasMessageContaining("at /items/0/id");
    assertThat(r.eventsCommitted()).isZero();
    assertThat(handler.changes()).isEmpty();
  }

  @Test
  void aSecondDocumentAfterTheFirstFailsThePage() {
    KeyReport r = tick(poller("/trailing", b -> b));

    assertThat(r.error())
        .hasMessageContaining("GET " + vendor.url("/trailing"))
        .hasMessageContaining("Trailing token");
    assertThat(r.eventsCommitted()).isZero();
  }

  @Test
  void aStringOverTheParsersLimitNamesTheLimitAndItsValue() {
    KeyReport r = tick(poller("/long-string?mb=21", b -> b));

    assertThat(r.error())
        .hasMessageContaining("GET " + vendor.url("/long-string?mb=21"))
        .hasMessageContaining("the body is JSON beyond a parser limit")
        .hasMessageContaining("20000000")
        .hasMessageContaining("getMaxStringLength")
        .hasMessageNotContaining("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...");
  }

  @Test
  void aGzipBodyIsDecodedBeforeItIsRead() {
    KeyReport r = tick(poller("/gzip", b -> b));

    // The engine decodes gzip itself (docs/config.md, "response.format"): the maintenance page
    // is quoted as text, never as compressed bytes.
    assertThat(r.error())
        .hasMessageContaining("GET " + vendor.url("/gzip"))
        .hasMessageContaining("body starts '<html><body>maintenance</body></html>'")
        .hasMessageNotContaining("\uFFFD");
  }

  @Test
  void aNumberOutOfTheDoubleRangeNamesTheRequestAndTheItem() {
    KeyReport r = tick(poller("/big-number", b -> b));

    assertThat(r.error())
        .hasMessageContaining("page 1 item 1")
        .hasMessageContaining("/amount")
        .hasMessageContaining("out of the IEEE-754 double range")
        .hasMessageContaining("GET " + vendor.url("/big-number"));
    assertThat(r.eventsCommitted()).isZero();
  }
}
