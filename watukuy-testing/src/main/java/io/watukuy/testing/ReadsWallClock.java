package io.watukuy.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test method (or, rarely, a whole test class) that reads the wall clock on purpose because
 * it truly needs real time: it runs the command line or a child process, which keep time on the
 * system clock, or it talks to a server whose own clock takes part (Redis {@code TIME}, the {@code
 * Date} the JDK's HTTP server stamps).
 *
 * <p>This project's build forbids wall-clock reads in test code ({@code Instant.now()}, {@code
 * System.currentTimeMillis()}, {@code Clock.systemUTC()}, {@code LocalDate.now()}, …, checked by
 * forbidden-apis over the compiled tests): a test that reads the calendar can pass on one day and
 * fail on another. This annotation is the only way past that check, so every exception carries its
 * reason where it is made, and {@code grep -rn @ReadsWallClock} lists them all. Third-party store
 * and poller authors can configure the same check with this annotation.
 *
 * <p>A test that uses it still asserts nothing that depends on the date: it bounds a value between
 * two reads of the clock, or lets the server's clock cancel out.
 *
 * <p>What it covers: the annotated method or constructor (lambdas inside it included), or every
 * method of the annotated class, but not its nested classes (a JUnit {@code @Nested} class needs
 * its own) nor static field initializers. What the check cannot see: a read inside library code,
 * such as an engine built without {@code .time(clock)}, which runs on the system clock; a read
 * through reflection. Build test engines with a {@link VirtualClock}.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.CONSTRUCTOR})
public @interface ReadsWallClock {
  /**
   * Why this test needs real time.
   *
   * @return one sentence, such as "runs the CLI, which keeps time on the system clock"
   */
  String value();
}
