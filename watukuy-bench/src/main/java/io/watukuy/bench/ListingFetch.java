package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A plain client's fetch + parse of a whole {@link ListingServer} listing, with no watukuy: {@link
 * HttpClient} GETs {@code ?page=1,2,...} until a page says {@code hasMore: false}, and Jackson
 * parses each body. Both the end-to-end bench and the Camel peer time it the same way ({@link
 * #best}), so that their floors and their machines can be compared.
 */
public final class ListingFetch {
  /**
   * Timed passes after one warm-up pass; the floor takes the fastest, the least disturbed by the
   * rest of the machine.
   */
  public static final int PASSES = 3;

  private ListingFetch() {}

  /**
   * The fastest of {@code passes} timed fetches of the whole listing, after one untimed warm-up
   * pass (it warms the client, the server's code and Jackson up).
   *
   * @param server the listing
   * @param passes timed passes, at least 1
   * @return seconds of the fastest pass
   * @throws IllegalArgumentException if {@code passes < 1}
   * @throws IllegalStateException if a pass saw another number of items than the server holds
   * @throws Exception if a request fails or is interrupted
   */
  public static double best(ListingServer server, int passes) throws Exception {
    if (passes < 1) throw new IllegalArgumentException("passes must be >= 1, but was " + passes);
    seconds(server);
    double best = Double.POSITIVE_INFINITY;
    for (int pass = 0; pass < passes; pass++) best = Math.min(best, seconds(server));
    return best;
  }

  /**
   * Fetches and parses every page once.
   *
   * @param server the listing
   * @return the seconds it took
   * @throws IllegalStateException if it saw another number of items than the server holds
   * @throws Exception if a request fails or is interrupted
   */
  public static double seconds(ListingServer server) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    long start = System.nanoTime();
    int seen = 0;
    for (int page = 1; ; page++) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(server.url() + "?page=" + page))
              .timeout(Duration.ofSeconds(30))
              .GET()
              .build();
      byte[] body = client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();
      JsonNode tree = Items.MAPPER.readTree(body);
      seen += tree.get("items").size();
      if (!tree.get("hasMore").asBoolean()) break;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (seen != server.size())
      throw new IllegalStateException("listing fetch saw " + seen + " of " + server.size());
    return seconds;
  }
}
