package io.watukuy.spring.boot;

import io.watukuy.Watukuy;

/**
 * A last word on the engine the auto-configuration builds: every bean of this type is called, in
 * {@link org.springframework.core.annotation.Order} order, with the builder after the properties
 * and beans are applied, then with the built engine before it starts. This is the seam for parts
 * the properties do not cover: a budget store shared across instances, an executor, a tracing
 * listener.
 */
public interface WatukuyCustomizer {

  /**
   * Adjusts the builder before {@link Watukuy.Builder#build()}. Default: nothing.
   *
   * @param builder holds the store, pollers, budgets, delivery options and listener beans already
   */
  default void customize(Watukuy.Builder builder) {}

  /**
   * Sees the engine once built, before handlers are attached and before it starts; a meter binder
   * watches it here. Default: nothing.
   *
   * @param engine the engine, not started
   */
  default void built(Watukuy engine) {}
}
