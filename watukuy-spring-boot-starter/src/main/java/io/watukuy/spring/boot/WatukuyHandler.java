package io.watukuy.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the pollers whose events a bean receives: put it on a {@code @Component} class or on a
 * {@code @Bean} method whose bean is an {@link io.watukuy.Handler}, an {@link
 * io.watukuy.BatchHandler} or an {@link io.watukuy.sink.Sink}. The auto-configuration attaches the
 * bean to each named {@link io.watukuy.Poller} bean when it builds the engine (docs/spring-boot.md,
 * "Wiring").
 *
 * <p>Why an annotation rather than a bean name convention: the binding reads where the handler is
 * declared, survives renaming the bean, and a typo fails the start with the names of the pollers
 * that exist.
 *
 * <pre>{@code
 * @Bean
 * @WatukuyHandler("orders")
 * Handler<Order> orderHandler(OrderService service) {
 *   return event -> service.apply(event);
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface WatukuyHandler {

  /**
   * The poller names, each the {@link io.watukuy.Poller#name()} of a {@code Poller} bean. A sink
   * may serve several pollers; a poller gets exactly one handler, batch handler or sink.
   *
   * @return one or more poller names
   */
  String[] value();
}
