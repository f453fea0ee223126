package io.watukuy.spring.boot;

import io.watukuy.ConfigException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a start that failed on watukuy's {@link ConfigException} into Boot's short report (a
 * description and an action) instead of a long stack trace (docs/spring-boot.md, "Start failures").
 * The exception's message already names the key, bean, poller or budget; the action says where to
 * fix it. Registered in {@code META-INF/spring.factories}.
 */
public final class WatukuyFailureAnalyzer extends AbstractFailureAnalyzer<ConfigException> {
  /** For Boot's failure analysis; applications do not call it. */
  public WatukuyFailureAnalyzer() {}

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, ConfigException cause) {
    String message = String.valueOf(cause.getMessage());
    return new FailureAnalysis("watukuy could not start: " + message, action(message), cause);
  }

  private static String action(String message) {
    if (message.startsWith("watukuy."))
      return "Correct the property "
          + message.substring(0, message.indexOf(':') < 0 ? message.length() : message.indexOf(':'))
          + " (docs/spring-boot.md, \"Properties\" lists every watukuy.* key),"
          + " or set watukuy.enabled=false to leave the engine out.";
    if (message.startsWith("bean '"))
      return "Fix the handler bean named above: annotate it with @WatukuyHandler(\"<poller>\")"
          + " naming one of the Poller beans, one bean per poller"
          + " (docs/spring-boot.md, \"Wiring\").";
    return "Correct the poller or property named above"
        + " (docs/spring-boot.md, \"Properties\" and \"Wiring\"),"
        + " or set watukuy.enabled=false to leave the engine out.";
  }
}
