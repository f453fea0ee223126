package io.watukuy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The bench's vendor serves exactly the items {@link Items#item} defines. */
class ListingServerTest {

  // Compared as text: the server's bytes must be exactly the item's compact JSON.
  @Test
  void servesTheItemsOfItemsItemPageByPage() throws Exception {
    try (ListingServer server = new ListingServer(1_001)) {
      server.update(3);
      server.update(3);
      server.delete(500);
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

      JsonNode first = get(client, server, 1);
      JsonNode third = get(client, server, 3);

      assertThat(first.get("items")).hasSize(500);
      assertThat(first.get("hasMore").asBoolean()).isTrue();
      assertThat(first.get("items").get(0).toString()).isEqualTo(Items.item(0, 0).toString());
      // Two updates stamp item 3 one second, then two seconds, after the latest of the 1 001.
      assertThat(first.get("items").get(3).toString())
          .isEqualTo(Items.item(3, 2).put("updated_at", "2022-07-19T04:55:22Z").toString());
      assertThat(first.get("items").get(3).get("title").asText()).endsWith(" (edit 2)");
      // 1 001 items less the deleted #500: pages of 500, 500 and 0.
      assertThat(get(client, server, 2).get("items").get(0).toString())
          .isEqualTo(Items.item(501, 0).toString());
      assertThat(third.get("items")).isEmpty();
      assertThat(third.get("hasMore").asBoolean()).isFalse();
      assertThat(server.size()).isEqualTo(1_000);
    }
  }

  @Test
  void listsByUpdatedAtFromAKeysetAndOnlyWhatChanged() throws Exception {
    try (ListingServer server = new ListingServer(1_200)) {
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

      JsonNode all = changes(client, server, null, null);
      JsonNode rest = changes(client, server, "2022-07-19T04:47:00Z", "1000500");

      assertThat(all.get("items")).hasSize(500);
      assertThat(all.get("hasMore").asBoolean()).isTrue();
      assertThat(all.get("items").get(0).toString()).isEqualTo(Items.item(0, 0).toString());
      // 04:47:00 is item 500's second: with after_id 1000500 the page starts at item 501.
      assertThat(rest.get("items").get(0).get("id").asLong()).isEqualTo(1_000_501L);
      assertThat(
              changes(client, server, "2022-07-19T04:47:00Z", null)
                  .get("items")
                  .get(0)
                  .get("id")
                  .asLong())
          .isEqualTo(1_000_500L);

      String latest = server.latestUpdatedAt();
      assertThat(changes(client, server, latest, "1001199").get("items")).isEmpty();
      server.update(700);
      server.update(3);
      server.delete(4);
      JsonNode changed = changes(client, server, latest, "1001199");
      assertThat(changed.get("items"))
          .extracting(n -> n.get("id").asLong())
          .containsExactly(1_000_700L, 1_000_003L);
      assertThat(changed.get("items").get(1).get("updated_at").asText())
          .isEqualTo(server.updatedAt(3));
      assertThat(changed.get("hasMore").asBoolean()).isFalse();
    }
  }

  private static JsonNode changes(
      HttpClient client, ListingServer server, String since, String afterId) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(
                java.net.URI.create(TimestampPhases.changesUrl(server.url(), since, afterId)))
            .timeout(Duration.ofSeconds(10))
            .build();
    HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).isEqualTo(200);
    return Items.MAPPER.readTree(response.body());
  }

  private static JsonNode get(HttpClient client, ListingServer server, int page) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(server.pageUri(page)).timeout(Duration.ofSeconds(10)).build();
    HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).isEqualTo(200);
    return Items.MAPPER.readTree(response.body());
  }
}
