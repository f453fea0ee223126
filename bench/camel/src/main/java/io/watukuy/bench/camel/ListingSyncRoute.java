package io.watukuy.bench.camel;

import java.util.Map;
import javax.sql.DataSource;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.dataformat.JsonLibrary;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.camel.spi.IdempotentRepository;

/**
 * The route a Java integration engineer would write with Apache Camel instead of watukuy, to pass
 * each new or changed item of a paged listing ({@code GET ?page=1,2,…}, answering {@code {"items":
 * [...], "hasMore": bool}}) once to a handler: a timer starts a loop that GETs page after page
 * until an empty page, splits {@code /items}, and lets through only the items whose {@code
 * id-updated_at} is not yet in a {@link JdbcMessageIdRepository}. This file is copied word for word
 * into the bench's results ({@code peer.routeSource}).
 *
 * <p>One pass per timer firing: a deployment would fire every 30 s ({@code period=30s}); the bench
 * adds the route once per pass ({@code repeatCount=1}) to time each pass on its own.
 */
public final class ListingSyncRoute extends RouteBuilder {
  /** The route's id. */
  public static final String ID = "listing-sync";

  /** The id of the idempotent consumer in the route, whose duplicate count the bench reads. */
  public static final String SEEN = "seen-before";

  /**
   * The table of Camel's documentation with a primary key: without one, every look-up reads the
   * whole table, and a first sync of {@code n} items reads {@code n²/2} rows.
   */
  static final String CREATE_TABLE =
      "CREATE TABLE CAMEL_MESSAGEPROCESSED (processorName VARCHAR(255) NOT NULL,"
          + " messageId VARCHAR(100) NOT NULL, createdAt TIMESTAMP,"
          + " PRIMARY KEY (processorName, messageId))";

  private final String listingUrl;
  private final IdempotentRepository seen;
  private final String handler;

  /**
   * The route over one listing.
   *
   * @param listingUrl the listing, such as {@code http://127.0.0.1:8080/items}
   * @param seen the keys already passed on, from {@link #repository}
   * @param handler the endpoint each new item goes to, such as {@code direct:items}
   */
  public ListingSyncRoute(String listingUrl, IdempotentRepository seen, String handler) {
    this.listingUrl = listingUrl;
    this.seen = seen;
    this.handler = handler;
  }

  /**
   * The repository of the keys passed on: Camel's JDBC one, in its own transaction per key (a
   * look-up, then an insert if the key is new).
   *
   * @param dataSource the database
   * @param table the table's name, created on first use if missing
   * @return the repository, started by the route that uses it
   */
  public static JdbcMessageIdRepository repository(DataSource dataSource, String table) {
    JdbcMessageIdRepository repository = new JdbcMessageIdRepository(dataSource, ID);
    repository.setCreateString(CREATE_TABLE);
    repository.setTableName(table);
    return repository;
  }

  // spotless:off
  @Override
  public void configure() {
    from("timer:" + ID + "?delay=0&repeatCount=1")
        .routeId(ID)
        .setProperty("page", constant(1))
        .setProperty("more", constant(true))
        .loopDoWhile(exchangeProperty("more"))
            // A GET with no header of the page before (Content-Length, Content-Type) and no body.
            .removeHeaders("*")
            .setBody(constant(null))
            .toD(listingUrl + "?page=${exchangeProperty.page}&httpMethod=GET")
            .unmarshal().json(JsonLibrary.Jackson, Map.class)
            .setProperty("more", simple("${body[items].size()} > 0", Boolean.class))
            .split(simple("${body[items]}"))
                .idempotentConsumer(simple("${body[id]}-${body[updated_at]}"), seen).id(SEEN)
                    .to(handler)
                .end()
            .end()
            .setProperty("page", simple("${exchangeProperty.page}++"))
        .end();
  }
  // spotless:on
}
