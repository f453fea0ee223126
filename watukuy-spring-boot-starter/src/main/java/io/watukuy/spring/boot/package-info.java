/**
 * Spring Boot auto-configuration for watukuy (docs/spring-boot.md): {@link
 * io.watukuy.spring.boot.WatukuyAutoConfiguration}, its {@link
 * io.watukuy.spring.boot.WatukuyProperties}, the {@link io.watukuy.spring.boot.WatukuyHandler}
 * binding, the health indicator and the Actuator endpoint.
 */
@NullMarked
package io.watukuy.spring.boot;

import org.jspecify.annotations.NullMarked;
