package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The recorded GitHub items the benchmarks run on (see {@code items/PROVENANCE.md} beside this
 * class's resources), and the synthetic pages built from them.
 */
public final class Items {
  /** The item names of {@code CanonicalHashBench}, smallest first (1.1 KB to 19 KB). */
  public static final List<String> NAMES =
      List.of("user", "issue", "repository", "repository-with-issues");

  /** A plain mapper with Jackson's defaults: what the baselines use. */
  public static final ObjectMapper MAPPER = JsonMapper.builder().build();

  private static final Instant BASE = Instant.parse("2022-07-19T04:38:40Z");
  private static final List<ObjectNode> ISSUES = loadIssues();

  private Items() {}

  /**
   * The bytes of one recorded item, as stored in the resources (compact UTF-8 JSON).
   *
   * @param name one of {@link #NAMES}, or {@code issues-13}
   * @return a new array
   * @throws IllegalArgumentException if there is no such item
   */
  public static byte[] bytes(String name) {
    String path = "items/" + name + ".json";
    try (InputStream in = Items.class.getResourceAsStream(path)) {
      if (in == null)
        throw new IllegalArgumentException("no benchmark item '" + name + "' (" + path + ")");
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Item {@code index} of the synthetic listing, in revision {@code rev}: recorded issue {@code
   * index % 13} with {@code id = 1_000_000 + index}, {@code number = index + 1} and {@code
   * updated_at} one second per index after 2022-07-19T04:38:40Z. Each revision after 0 adds {@code
   * " (edit N)"} to the title, one comment, and one day to {@code updated_at}, so both the version
   * and the content hash change.
   *
   * @param index 0 or more
   * @param rev 0 for the original, or the number of edits
   * @return a new tree, about 2.6 KB as compact JSON
   */
  public static ObjectNode item(int index, int rev) {
    ObjectNode n = ISSUES.get(index % ISSUES.size()).deepCopy();
    n.put("id", 1_000_000L + index);
    n.put("number", index + 1);
    n.put("updated_at", updatedAt(index, rev));
    if (rev > 0) {
      n.put("title", n.get("title").asText() + " (edit " + rev + ")");
      n.put("comments", n.get("comments").asInt() + rev);
    }
    return n;
  }

  /**
   * The {@code updated_at} of item {@code index} in revision {@code rev}; see {@link #item}.
   *
   * @param index 0 or more
   * @param rev 0 or more
   * @return an ISO-8601 instant in UTC
   */
  public static String updatedAt(int index, int rev) {
    return BASE.plusSeconds(index).plus(rev, ChronoUnit.DAYS).toString();
  }

  /**
   * The instant {@code seconds} after the listing's base time, 2022-07-19T04:38:40Z: the {@code
   * updated_at} the {@link ListingServer} serves, whose items are stamped by a clock of whole
   * seconds.
   *
   * @param seconds 0 or more
   * @return an ISO-8601 instant in UTC, such as {@code 2022-07-19T04:38:43Z}
   */
  public static String timestamp(long seconds) {
    return BASE.plusSeconds(seconds).toString();
  }

  /**
   * The whole seconds from the listing's base time to {@code timestamp}, rounded up: the first
   * second of the server's clock at or after it.
   *
   * @param timestamp an ISO-8601 instant
   * @return the seconds; negative before the base time
   * @throws java.time.format.DateTimeParseException if {@code timestamp} is not an ISO-8601 instant
   */
  public static long seconds(String timestamp) {
    Instant at = Instant.parse(timestamp);
    long s = at.getEpochSecond() - BASE.getEpochSecond();
    return at.getNano() > 0 ? s + 1 : s;
  }

  /**
   * A page of {@code count} items of revision 0 starting at {@code from}.
   *
   * @param from the first index
   * @param count how many items
   * @return new trees, in index order
   */
  public static List<JsonNode> page(int from, int count) {
    List<JsonNode> page = new ArrayList<>(count);
    for (int i = from; i < from + count; i++) page.add(item(i, 0));
    return page;
  }

  private static List<ObjectNode> loadIssues() {
    try {
      JsonNode array = MAPPER.readTree(bytes("issues-13"));
      List<ObjectNode> issues = new ArrayList<>();
      array.forEach(n -> issues.add((ObjectNode) n));
      return List.copyOf(issues);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
