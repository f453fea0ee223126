package io.watukuy.cli;

import io.watukuy.cli.CliConfig.RequestSpec;
import io.watukuy.cli.CliConfig.ResponseSpec;
import io.watukuy.cli.ConfigReader.At;

/**
 * The checks that tie a poller's GraphQL keys together (docs/config.md, "GraphQL"): {@code
 * response.pageInfo} pages by itself, so it is not combined with {@code hasMore} or {@code next};
 * it needs a {@code graphql:} request and a cursor whose {@code {{cursor.value}}} it can feed.
 */
final class GraphQlConfig {
  private GraphQlConfig() {}

  /**
   * {@code spec} with {@code response.pageInfo}, when given.
   *
   * @throws io.watukuy.ConfigException when {@code pageInfo} is set beside {@code hasMore} or
   *     {@code next}, or is not a pointer
   */
  static ResponseSpec pageInfo(At response, ResponseSpec spec) {
    At at = response.child("pageInfo");
    if (at.missing()) return spec;
    for (String other : new String[] {"hasMore", "next"}) {
      if (!response.child(other).missing())
        throw response
            .child(other)
            .error(
                "must be omitted with pageInfo, whose endCursor and hasNextPage page the"
                    + " listing");
    }
    return new ResponseSpec(
        spec.items(),
        null,
        false,
        null,
        false,
        spec.total(),
        at.locator(),
        null,
        spec.totalHeader(),
        spec.format());
  }

  /**
   * Checks {@code response.pageInfo} against the request and the cursor strategy.
   *
   * @throws io.watukuy.ConfigException when {@code pageInfo} is set without {@code
   *     request.graphql}, with a strategy other than token or snapshotDiff, or without {@code
   *     {{cursor.value}}} in the variables
   */
  static void check(At poller, RequestSpec request, ResponseSpec response, String strategy) {
    if (response.pageInfo() == null) return;
    At at = poller.child("response").child("pageInfo");
    if (!request.body().graphQl())
      throw at.error("needs request.graphql: it pages a GraphQL Relay connection");
    if (!strategy.equals("token") && !strategy.equals("snapshotDiff"))
      throw at.error(
          "needs cursor.strategy token (the last endCursor is kept between cycles) or"
              + " snapshotDiff (every cycle lists the connection from its start), not "
              + strategy);
    if (!request.uses("cursor.value"))
      throw at.error(
          "feeds {{cursor.value}} with endCursor, but the request does not use it: add"
              + " after: \"{{cursor.value}}\" to graphql.variables");
  }
}
