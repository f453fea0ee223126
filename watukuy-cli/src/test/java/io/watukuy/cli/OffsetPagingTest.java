package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code {{offset}}}, {@code {{last./id}}} and {@code cursor.maxOffset} (docs/config.md, "Offset
 * paging") against a listing server on 127.0.0.1 that caps {@code limit} at 2 whatever is asked.
 */
class OffsetPagingTest {
  private static final int CAP = 2;
  private static final int ITEMS = 7;

  @TempDir Path dir;

  private ListingServer server;

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  /** Ids 1..7 sorted by id, {@code updatedAt} 2026-01-01T00:00:0<id>Z. */
  private static String item(int id) {
    return "{\"id\":" + id + ",\"updatedAt\":\"2026-01-01T00:00:0" + id + "Z\"}";
  }

  /** Up to CAP items with ids in (after, ..] or from index offset, as {@code {"results": [..]}}. */
  private static String results(List<Integer> ids, String tail) {
    StringBuilder b = new StringBuilder("{\"results\":[");
    for (int i = 0; i < ids.size(); i++) b.append(i == 0 ? "" : ",").append(item(ids.get(i)));
    return b.append(']').append(tail).append('}').toString();
  }

  private static List<Integer> slice(List<Integer> all, int offset) {
    return all.subList(Math.min(offset, all.size()), Math.min(offset + CAP, all.size()));
  }

  private static List<Integer> all() {
    List<Integer> out = new ArrayList<>();
    for (int i = 1; i <= ITEMS; i++) out.add(i);
    return out;
  }

  private Path config(String poller) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(
        file,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: contacts
            identity: /id
        """
            + poller.formatted(server.origin()));
    return file;
  }

  private static final List<String> CREATED =
      List.of(
          "created 1",
          "created 2",
          "created 3",
          "created 4",
          "created 5",
          "created 6",
          "created 7");

  @Test
  void theOffsetAdvancesByTheItemsReturnedWhenTheServerCapsTheLimitAndAnEmptyPageEnds()
      throws IOException {
    server =
        ListingServer.start(
            "/contacts",
            uri -> {
              int offset = Integer.parseInt(ListingServer.query(uri).get("offset"));
              return ListingServer.Answer.ok(results(slice(all(), offset), ""));
            });
    Path file =
        config(
            """
                request:
                  url: %s/contacts
                  query: { offset: "{{offset}}", limit: 5 }
                response: { items: /results }
                cursor: { strategy: snapshotDiff }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isZero();
    assertThat(run.changes()).containsExactlyElementsOf(CREATED);
    assertThat(server.seen())
        .containsExactly(
            "/contacts?offset=0&limit=5",
            "/contacts?offset=2&limit=5",
            "/contacts?offset=4&limit=5",
            "/contacts?offset=6&limit=5",
            // offset 6 returned the one last item: 7, then the empty page
            "/contacts?offset=7&limit=5");
  }

  @Test
  void theTotalEndsTheListingWithoutAnEmptyPage() throws IOException {
    server =
        ListingServer.start(
            "/contacts",
            uri -> {
              int offset = Integer.parseInt(ListingServer.query(uri).get("offset"));
              return ListingServer.Answer.ok(results(slice(all(), offset), ",\"total\":" + ITEMS));
            });
    Path file =
        config(
            """
                request:
                  url: %s/contacts
                  query: { offset: "{{offset}}", limit: 5 }
                response: { items: /results, total: /total }
                cursor: { strategy: snapshotDiff }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isZero();
    assertThat(run.changes()).containsExactlyElementsOf(CREATED);
    assertThat(server.seen()).hasSize(4).last().isEqualTo("/contacts?offset=6&limit=5");
  }

  @Test
  void theLastRecordsIdPagesTheListingUntilHasMoreIsFalse() throws IOException {
    server =
        ListingServer.start(
            "/contacts",
            uri -> {
              String after = ListingServer.query(uri).get("starting_after");
              int from = after == null ? 0 : Integer.parseInt(after);
              List<Integer> ids = slice(all(), from);
              return ListingServer.Answer.ok(
                  results(ids, ",\"has_more\":" + (from + ids.size() < ITEMS)));
            });
    Path file =
        config(
            """
                request:
                  url: %s/contacts
                  query: { starting_after: "{{last./id}}", limit: 2 }
                response: { items: /results, hasMore: /has_more }
                cursor: { strategy: page }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isZero();
    assertThat(run.changes()).containsExactlyElementsOf(CREATED);
    assertThat(server.seen())
        .containsExactly(
            "/contacts?limit=2",
            "/contacts?starting_after=2&limit=2",
            "/contacts?starting_after=4&limit=2",
            "/contacts?starting_after=6&limit=2");
  }

  @Test
  void maxOffsetStartsANewQueryFromTheCommittedWatermarkInsteadOfAskingPastTheCap()
      throws IOException {
    // A search API that refuses offsets of 4 and more, as HubSpot's does past 10 000.
    server =
        ListingServer.start(
            "/contacts",
            uri -> {
              Map<String, String> q = ListingServer.query(uri);
              int offset = Integer.parseInt(q.get("offset"));
              if (offset >= 4)
                return new ListingServer.Answer(400, "{\"message\":\"offset too large\"}");
              String since = q.get("since");
              List<Integer> matching = new ArrayList<>();
              for (int id : all())
                if (since == null || ("2026-01-01T00:00:0" + id + "Z").compareTo(since) >= 0)
                  matching.add(id);
              return ListingServer.Answer.ok(
                  results(slice(matching, offset), ",\"total\":" + matching.size()));
            });
    Path file =
        config(
            """
                request:
                  url: %s/contacts
                  query: { since: "{{cursor.value}}", offset: "{{offset}}", limit: 2 }
                response: { items: /results, total: /total }
                cursor: { strategy: timestamp, field: updatedAt, maxOffset: 4 }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isZero();
    assertThat(run.changes()).containsExactlyElementsOf(CREATED);
    assertThat(server.seen())
        .containsExactly(
            "/contacts?offset=0&limit=2",
            "/contacts?offset=2&limit=2",
            "/contacts?since=2026-01-01T00%3A00%3A04Z&offset=0&limit=2",
            "/contacts?since=2026-01-01T00%3A00%3A04Z&offset=2&limit=2");
  }

  /**
   * A search listing of 14 items sorted by (updatedAt, id): ids 1..12 share one updatedAt (a tie of
   * 12), 13 and 14 come after it. It keeps items at or after {@code since} and, with {@code
   * after_id}, drops those at {@code since} whose id is not above it; pages of {@code limit} at
   * {@code offset}, with the total.
   */
  private static ListingServer.Answer tiedSearch(java.net.URI uri) {
    Map<String, String> q = ListingServer.query(uri);
    String since = q.get("since");
    String afterId = q.get("after_id");
    int offset = Integer.parseInt(q.get("offset"));
    int limit = Integer.parseInt(q.get("limit"));
    List<String> matching = new ArrayList<>();
    for (int id = 1; id <= 14; id++) {
      String at = id <= 12 ? TIE : "2026-01-01T00:00:0" + (id - 6) + "Z";
      int c = since == null ? 1 : at.compareTo(since);
      if (c < 0 || (c == 0 && afterId != null && id <= Integer.parseInt(afterId))) continue;
      matching.add("{\"id\":" + id + ",\"updatedAt\":\"" + at + "\"}");
    }
    List<String> page =
        matching.subList(
            Math.min(offset, matching.size()), Math.min(offset + limit, matching.size()));
    return ListingServer.Answer.ok(
        "{\"results\":[" + String.join(",", page) + "],\"total\":" + matching.size() + "}");
  }

  private static final String TIE = "2026-01-01T00:00:05Z";

  @Test
  void aTieWiderThanMaxOffsetWithoutATieBreakStallsTheLaneInsteadOfRepeatingItsPages()
      throws IOException {
    server = ListingServer.start("/contacts", OffsetPagingTest::tiedSearch);
    Path file =
        config(
            """
                request:
                  url: %s/contacts
                  query: { since: "{{cursor.value}}", offset: "{{offset}}", limit: 5 }
                response: { items: /results, total: /total }
                cursor: { strategy: timestamp, field: updatedAt, maxOffset: 10 }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr())
        .contains("lane stalled (PageRepeated): the tie at " + TIE)
        .contains("wider than cursor.maxOffset 10")
        .contains("A cursor.tieBreak is needed");
    // The first query (no watermark yet) reads ids 1..10; the one that restarts from the tie's
    // watermark reads them again; the next restart would repeat it and is not sent.
    String since = "since=2026-01-01T00%3A00%3A05Z&";
    assertThat(server.seen())
        .containsExactly(
            "/contacts?offset=0&limit=5",
            "/contacts?offset=5&limit=5",
            "/contacts?" + since + "offset=0&limit=5",
            "/contacts?" + since + "offset=5&limit=5");
    assertThat(run.changes()).hasSize(10).doesNotContain("created 11", "created 13");
    JsonNode state =
        new ObjectMapper().readTree(CliRun.of("inspect", file.toString(), "--json").stdout());
    assertThat(state.at("/pollers/0/lastError/name").asText()).isEqualTo("PageRepeated");
  }

  @Test
  void aTieWiderThanMaxOffsetWithATieBreakDeliversEveryItem() throws IOException {
    server = ListingServer.start("/contacts", OffsetPagingTest::tiedSearch);
    Path file =
        config(
            """
                request:
                  url: %s/contacts
                  query:
                    since: "{{cursor.value}}"
                    after_id: "{{cursor.tieBreak}}"
                    offset: "{{offset}}"
                    limit: 5
                response: { items: /results, total: /total }
                cursor: { strategy: timestamp, field: updatedAt, tieBreak: id, maxOffset: 10 }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).as(run.stderr()).isZero();
    List<String> all = new ArrayList<>();
    for (int id = 1; id <= 14; id++) all.add("created " + id);
    assertThat(run.changes()).containsExactlyElementsOf(all);
    assertThat(server.seen())
        .containsExactly(
            "/contacts?offset=0&limit=5",
            "/contacts?offset=5&limit=5",
            "/contacts?since=2026-01-01T00%3A00%3A05Z&after_id=10&offset=0&limit=5");
  }

  @Test
  void aLastItemWithoutTheValueFailsThePageWhileMorePagesFollow() throws IOException {
    // The API renamed id to key on its second page: the third request could not be built.
    server =
        ListingServer.start(
            "/contacts",
            uri ->
                ListingServer.Answer.ok(
                    ListingServer.query(uri).get("after") == null
                        ? "{\"results\":[{\"id\":1}],\"has_more\":true}"
                        : "{\"results\":[{\"key\":2}],\"has_more\":true}"));
    Path file =
        config(
            """
                request:
                  url: %s/contacts
                  query: { after: "{{last./id}}" }
                response: { items: /results, hasMore: /has_more }
                cursor: { strategy: page }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr())
        .contains("{{last./id}} finds nothing in the last item of page 2")
        .contains("the page is not committed");
    assertThat(run.changes()).containsExactly("created 1");
    assertThat(server.seen()).hasSize(2);
  }

  private CliRun validate(String poller) throws IOException {
    server = ListingServer.start("/contacts", uri -> ListingServer.Answer.ok("{}"));
    Path file = config(poller);
    CliRun run = CliRun.of("validate", file.toString());
    return new CliRun(run.exit(), run.stdout(), run.stderr().replace(file.toString(), "FILE"));
  }

  @Test
  void validateRefusesAnOffsetBesideANextToken() throws IOException {
    CliRun run =
        validate(
            """
                request:
                  url: %s/contacts
                  query: { offset: "{{offset}}" }
                response: { items: /results, next: /next }
                cursor: { strategy: snapshotDiff }
            """);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains(
            "FILE:8: poller contacts: response.next: '/next': the request pages by {{offset}}");
  }

  @Test
  void validateRefusesAnOffsetBesideAPageNumber() throws IOException {
    CliRun run =
        validate(
            """
                request:
                  url: %s/contacts
                  query: { offset: "{{offset}}", page: "{{page}}" }
                response: { items: /results }
                cursor: { strategy: snapshotDiff }
            """);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("FILE:7: poller contacts: request.query.page: {{page}} with {{offset}}");
  }

  @Test
  void validateRefusesTheLastRecordOnATimestampPoller() throws IOException {
    CliRun run =
        validate(
            """
                request:
                  url: %s/contacts
                  query: { since: "{{cursor.value}}", after: "{{last./id}}" }
                response: { items: /results }
                cursor: { strategy: timestamp, field: updatedAt }
            """);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains(
            "FILE:7: poller contacts: request.query.after: {{last./id}} with cursor.strategy timestamp");
  }

  @Test
  void validateRefusesABadPointerInTheLastRecord() throws IOException {
    CliRun run =
        validate(
            """
                request:
                  url: %s/contacts
                  query: { after: "{{last.}}" }
                response: { items: /results }
                cursor: { strategy: snapshotDiff }
            """);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("FILE:7: poller contacts: request.query.after: {{last.}} names no field");
  }

  @Test
  void validateRefusesMaxOffsetWithoutAnOffset() throws IOException {
    CliRun run =
        validate(
            """
                request:
                  url: %s/contacts
                  query: { since: "{{cursor.value}}" }
                response: { items: /results }
                cursor: { strategy: timestamp, field: updatedAt, maxOffset: 10000 }
            """);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("FILE:9: poller contacts: cursor.maxOffset: '10000': the request does not page");
  }

  @Test
  void validateWarnsAboutMaxOffsetWithoutATieBreak() throws IOException {
    CliRun run =
        validate(
            """
                request:
                  url: %s/contacts
                  query: { since: "{{cursor.value}}", offset: "{{offset}}", limit: 100 }
                response: { items: /results }
                cursor: { strategy: timestamp, field: updatedAt, maxOffset: 100 }
            """);

    assertThat(run.exit()).isZero();
    assertThat(run.stderr())
        .contains("watukuy: warning: poller contacts: cursor.maxOffset 100 without cursor.tieBreak")
        .contains("PageRepeated");
  }
}
