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
      assertThat(first.get("items").get(3).toString()).isEqualTo(Items.item(3, 2).toString());
      assertThat(first.get("items").get(3).get("title").asText()).endsWith(" (edit 2)");
      assertThat(first.get("items").get(3).get("updated_at").asText()).isEqualTo("2022-07-21T04:38:43Z");
      // 1 001 items less the deleted #500: pages of 500, 500 and 0.
      assertThat(get(client, server, 2).get("items").get(0).toString()).isEqualTo(Items.item(501, 0).toString());
      assertThat(third.get("items")).isEmpty();
      assertThat(third.get("hasMore").asBoolean()).isFalse();
      assertThat(server.size()).isEqualTo(1_000);
    }
  }

  private static JsonNode get(HttpClient client, ListingServer server, int page) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(server.pageUri(page)).timeout(Duration.ofSeconds(10)).build();
    HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).isEqualTo(200);
    return Items.MAPPER.readTree(response.body());
  }
}
