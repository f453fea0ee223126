package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} on the request keys of issue 19, section 2 (docs/config.md, "Request bodies",
 * "GraphQL", "Timestamp formats"): each mistake is exit 2 with FILE:LINE, the poller, the key and
 * the value, and nothing is written (validate opens no store).
 */
class RequestConfigErrorsTest {
  @TempDir Path dir;

  private static final String SEARCH =
      """
      store: sqlite:watukuy.db
      pollers:
        - name: contacts
          request:
            url: http://127.0.0.1:9/search
            method: POST
            body:
              filters:
                - { field: updated, gte: "{{cursor.value}}" }
              limit: 100
          response: { items: /results }
          identity: /id
          cursor:
            strategy: timestamp
            field: updated
            format: "yyyy-MM-dd HH:mm:ss"
            zone: Europe/Paris
      """;

  private static final String GRAPHQL =
      """
      store: sqlite:watukuy.db
      pollers:
        - name: orders
          request:
            url: http://127.0.0.1:9/graphql
            graphql:
              query: "query($after: String) { orders(after: $after) { edges { node { id } } } }"
              variables: { after: "{{cursor.value}}" }
          response:
            items: /data/orders/edges
            pageInfo: /data/orders/pageInfo
          identity: /node/id
          cursor: { strategy: snapshotDiff }
      """;

  /** {@code validate FILE}: exit code, stderr with the temp folder cut off. */
  private String[] validate(String yaml) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    CliRun r = CliRun.of("validate", file.toString());
    assertThat(dir.resolve("watukuy.db")).doesNotExist();
    return new String[] {String.valueOf(r.exit()), r.stderr().replace(file.toString(), "F")};
  }

  @Test
  void validSearchAndGraphQlConfigsPass() throws IOException {
    assertThat(validate(SEARCH)).containsExactly("0", "");
    assertThat(validate(GRAPHQL)).containsExactly("0", "");
    assertThat(validate(SEARCH.replace("method: POST", "method: put"))).containsExactly("0", "");
  }

  @Test
  void aBodyVariableThatDoesNotExistIsNamedWithItsLine() throws IOException {
    String[] r = validate(SEARCH.replace("{{cursor.value}}", "{{cursor.since}}"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1])
        .startsWith(
            "watukuy: F:9: poller contacts: request.body.filters[0].gte: unknown template"
                + " variable {{cursor.since}}");
  }

  @Test
  void aBodyWithGetIsRefused() throws IOException {
    String[] implicit = validate(SEARCH.replace("      method: POST\n", ""));
    assertThat(implicit)
        .containsExactly(
            "2",
            "watukuy: F:6: poller contacts: request.body: needs method: POST or PUT (the method"
                + " is GET when not given)\n");
    String[] explicit = validate(SEARCH.replace("method: POST", "method: GET"));
    assertThat(explicit)
        .containsExactly(
            "2",
            "watukuy: F:7: poller contacts: request.body: needs method: POST or PUT, not GET\n");
  }

  @Test
  void aMethodOtherThanGetPostOrPutIsNamed() throws IOException {
    assertThat(validate(SEARCH.replace("method: POST", "method: PATCH")))
        .containsExactly(
            "2",
            "watukuy: F:6: poller contacts: request.method: 'PATCH' is not GET, POST or PUT\n");
  }

  @Test
  void bothBodyAndFormAreRefused() throws IOException {
    String[] r =
        validate(SEARCH.replace("      limit: 100\n", "      limit: 100\n      form: { q: x }\n"));
    assertThat(r)
        .containsExactly(
            "2",
            "watukuy: F:11: poller contacts: request.form: not with body: a request has one body,"
                + " JSON (body) or a form (form)\n");
  }

  @Test
  void graphqlWithABodyIsRefused() throws IOException {
    String[] r =
        validate(GRAPHQL.replace("    graphql:\n", "    body: { q: 1 }\n      graphql:\n"));
    assertThat(r)
        .containsExactly(
            "2",
            "watukuy: F:6: poller orders: request.body: not with graphql:, whose query and"
                + " variables are the body\n");
  }

  @Test
  void pageInfoNeedsATokenOrSnapshotCursorAndNoOtherPaging() throws IOException {
    String[] page = validate(GRAPHQL.replace("strategy: snapshotDiff", "strategy: page"));
    assertThat(page[0]).isEqualTo("2");
    assertThat(page[1])
        .startsWith("watukuy: F:11: poller orders: response.pageInfo: needs cursor.strategy token");
    String[] both =
        validate(
            GRAPHQL.replace(
                "items: /data/orders/edges", "items: /data/orders/edges\n      hasMore: /x"));
    assertThat(both)
        .containsExactly(
            "2",
            "watukuy: F:11: poller orders: response.hasMore: must be omitted with pageInfo, whose"
                + " endCursor and hasNextPage page the listing\n");
  }

  @Test
  void graphqlIsAPostAndPageInfoNeedsItAndTheCursorVariable() throws IOException {
    assertThat(validate(GRAPHQL.replace("    graphql:\n", "    method: PUT\n      graphql:\n")))
        .containsExactly(
            "2",
            "watukuy: F:6: poller orders: request.method: 'PUT': a graphql request is a POST\n");
    String[] noVariable = validate(GRAPHQL.replace("after: \"{{cursor.value}}\"", "after: x"));
    assertThat(noVariable[0]).isEqualTo("2");
    assertThat(noVariable[1])
        .startsWith(
            "watukuy: F:11: poller orders: response.pageInfo: feeds {{cursor.value}} with"
                + " endCursor, but the request does not use it");
    String[] plain =
        validate(
            SEARCH.replace(
                "response: { items: /results }", "response: { items: /results, pageInfo: /p }"));
    assertThat(plain)
        .containsExactly(
            "2",
            "watukuy: F:11: poller contacts: response.pageInfo: needs request.graphql: it pages a"
                + " GraphQL Relay connection\n");
  }

  @Test
  void aZoneWithoutAFormatIsRefused() throws IOException {
    assertThat(validate(SEARCH.replace("      format: \"yyyy-MM-dd HH:mm:ss\"\n", "")))
        .containsExactly(
            "2",
            "watukuy: F:16: poller contacts: cursor.zone: needs format: (the zone of its"
                + " timestamps)\n");
  }

  @Test
  void aBadCursorFormatPatternIsNamedWithItsValue() throws IOException {
    String[] r = validate(SEARCH.replace("yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm:ss qq{"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1])
        .startsWith(
            "watukuy: F:16: poller contacts: cursor.format: 'yyyy-MM-dd HH:mm:ss qq{' is not a"
                + " DateTimeFormatter pattern: ");
  }

  @Test
  void aCursorFormatWithoutATimeOfDayOrAnUnknownZoneIsRefused() throws IOException {
    String[] dateOnly = validate(SEARCH.replace("yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd"));
    assertThat(dateOnly[0]).isEqualTo("2");
    assertThat(dateOnly[1])
        .startsWith("watukuy: F:16: poller contacts: cursor.format: 'yyyy-MM-dd': ")
        .contains("it must hold the date and the time of day");
    String[] zone = validate(SEARCH.replace("Europe/Paris", "Europe/Atlantis"));
    assertThat(zone[0]).isEqualTo("2");
    assertThat(zone[1])
        .startsWith("watukuy: F:17: poller contacts: cursor.zone: 'Europe/Atlantis' is not a zone");
  }

  @Test
  void anInitialValueThatDoesNotMatchTheFormatIsNamedAtItsOwnLine() throws IOException {
    String[] bad =
        validate(
            SEARCH.replace(
                "zone: Europe/Paris\n",
                "zone: Europe/Paris\n      initial: \"2024-13-45 99:99:99\"\n"));
    assertThat(bad)
        .containsExactly(
            "2",
            "watukuy: F:18: poller contacts: cursor.initial: '2024-13-45 99:99:99' does not match"
                + " cursor.format 'yyyy-MM-dd HH:mm:ss' (write the initial value in that format)\n");
    String[] good =
        validate(
            SEARCH.replace(
                "zone: Europe/Paris\n",
                "zone: Europe/Paris\n      initial: \"2024-05-01 10:00:00\"\n"));
    assertThat(good[0]).isEqualTo("0");
  }
}
