package io.watukuy.spring.boot;

import io.watukuy.Poller;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;

/**
 * Says so when {@code watukuy.enabled=false} leaves an application's {@link Poller} beans without
 * an engine (docs/spring-boot.md, "Properties"): one INFO line naming the property and the pollers,
 * so that pollers that never run are not a mystery. Nothing else is added to the context.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "watukuy.enabled", havingValue = false)
@ConditionalOnBean(Poller.class)
public class WatukuyDisabledAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(WatukuyAutoConfiguration.class);

  /** For the Spring container; applications do not call it. */
  public WatukuyDisabledAutoConfiguration() {}

  /**
   * Logs, once every singleton exists, that the engine is disabled and which pollers will not run.
   *
   * @param pollers the application's pollers
   * @return the callback that logs
   */
  @Bean
  public SmartInitializingSingleton watukuyDisabledNotice(ObjectProvider<Poller<?>> pollers) {
    return () -> {
      List<String> names = pollers.orderedStream().map(Poller::name).toList();
      LOG.info(
          "watukuy: the engine is disabled by the property watukuy.enabled=false; poller(s) {}"
              + " will not run",
          String.join(", ", names));
    };
  }
}
