package io.watukuy.examples.springboot;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.Handler;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.spring.boot.WatukuyHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application that follows a vendor's order list: the starter builds the engine from
 * the {@code orders} poller bean, keeps its state in the application's PostgreSQL DataSource, and
 * hands every created, updated or deleted order to the handler bean (docs/spring-boot.md).
 *
 * <p>The properties it needs are {@code spring.datasource.url} and {@code orders.url}
 * (application.properties).
 */
@SpringBootApplication
public class OrdersApplication {
  private static final Logger log = LoggerFactory.getLogger(OrdersApplication.class);

  /**
   * Runs the application.
   *
   * @param args Spring Boot's command-line arguments, such as {@code --orders.url=...}
   */
  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }

  /**
   * The vendor's orders, read whole and diffed against the last listing. The schedule is adaptive:
   * {@code every} after a change, stretched by 1.5 per quiet cycle up to the default maximum of 10
   * minutes (README, "How often it polls").
   *
   * @param url the vendor's {@code GET} endpoint, a JSON array of orders with an {@code id}
   * @param every the shortest polling interval ({@code orders.every}, default 5 s)
   * @return the {@code orders} poller
   */
  @Bean
  Poller<JsonNode> orders(
      @Value("${orders.url}") String url, @Value("${orders.every:5s}") Duration every) {
    return Poller.builder("orders", JsonNode.class)
        .identity(order -> order.get("id").asText())
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              List<JsonNode> items = new ArrayList<>();
              ctx.http().get(url).json().forEach(items::add);
              return Page.of(items);
            })
        .schedule(Schedule.every(every))
        .build();
  }

  /**
   * Where the application's orders go; the starter attaches it to the {@code orders} poller.
   *
   * @param book the application's own record of orders
   * @return the handler
   */
  @Bean
  @WatukuyHandler("orders")
  Handler<JsonNode> ordersHandler(OrderBook book) {
    return event -> {
      log.info("order {} {}", event.identity(), event.type().wire());
      book.apply(event);
    };
  }

  /**
   * The application's record of orders.
   *
   * @return an empty book
   */
  @Bean
  OrderBook orderBook() {
    return new OrderBook();
  }
}
