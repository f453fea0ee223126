/** A Spring Boot application with watukuy-spring-boot-starter: a poller and a handler bean. */
@NullMarked
package io.watukuy.examples.springboot;

import org.jspecify.annotations.NullMarked;
