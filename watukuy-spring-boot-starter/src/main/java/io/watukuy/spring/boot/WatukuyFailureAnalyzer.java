package io.watukuy.spring.boot;

import io.watukuy.ConfigException;
import io.watukuy.StoreException;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Turns a start that failed on watukuy into Boot's short report (a description and an action)
 * instead of a long stack trace (docs/spring-boot.md, "Start failures"). Registered in {@code
 * META-INF/spring.factories}, ordered before Boot's own analyzers. It analyses, wherever it sits in
 * the failure's causes:
 *
 * <ul>
 *   <li>watukuy's {@link ConfigException}, whose message already names the key, bean, poller or
 *       budget; the action says where to fix it;
 *   <li>a {@code watukuy.*} key that no property has ({@code watukuy.stor.uri}): the report names
 *       each such key and where it was set, never its value, which may be a password;
 *   <li>watukuy's {@link StoreException} (a store that cannot be reached or migrated): the message
 *       and its causes' with every {@code password=}, {@code secret=} or {@code token=} value and a
 *       URL's user information hidden; the action points at {@code watukuy.store.uri} or the
 *       DataSource.
 * </ul>
 *
 * Any other failure is left to Boot's other analyzers ({@link #analyze} returns null).
 */
public final class WatukuyFailureAnalyzer implements FailureAnalyzer, Ordered {
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile("(?i)((?:password|passwd|pwd|secret|token)=)[^&;\\s'\"]*");
  private static final Pattern USER_INFO = Pattern.compile("(//[^/:@\\s]*:)[^@/\\s]*@");

  /** For Boot's failure analysis; applications do not call it. */
  public WatukuyFailureAnalyzer() {}

  /**
   * Before Boot's analyzers, whose report for an unknown key would print its value.
   *
   * @return {@link Ordered#HIGHEST_PRECEDENCE}
   */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  /**
   * The report for a failure that watukuy caused.
   *
   * @param failure the start's failure
   * @return the description and action, or null for a failure that is not watukuy's
   */
  @Override
  public @Nullable FailureAnalysis analyze(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConfigException c) return config(c);
      if (t instanceof StoreException s) return store(s);
      if (t instanceof UnboundConfigurationPropertiesException u) {
        List<ConfigurationProperty> ours =
            u.getUnboundProperties().stream()
                .filter(p -> p.getName().toString().startsWith("watukuy."))
                .toList();
        if (!ours.isEmpty()) return unknownKeys(ours, u);
      }
      if (t.getCause() == t) break;
    }
    return null;
  }

  private static FailureAnalysis config(ConfigException cause) {
    String message = String.valueOf(cause.getMessage());
    return new FailureAnalysis("watukuy could not start: " + message, action(message), cause);
  }

  private static FailureAnalysis unknownKeys(
      List<ConfigurationProperty> keys, UnboundConfigurationPropertiesException cause) {
    StringBuilder description = new StringBuilder("watukuy could not start: ");
    description.append(keys.size() == 1 ? "unknown property " : "unknown properties ");
    for (int i = 0; i < keys.size(); i++) {
      ConfigurationProperty key = keys.get(i);
      if (i > 0) description.append(", ");
      description.append(key.getName());
      if (key.getOrigin() != null)
        description.append(" (from ").append(key.getOrigin()).append(')');
    }
    return new FailureAnalysis(
        description.toString(),
        "Correct or remove "
            + (keys.size() == 1 ? "it" : "them")
            + ": docs/spring-boot.md, \"Properties\" lists every watukuy.* key"
            + " (a misspelt key is refused rather than ignored).",
        cause);
  }

  private static FailureAnalysis store(StoreException cause) {
    StringBuilder message = new StringBuilder(String.valueOf(cause.getMessage()));
    for (Throwable t = cause.getCause(); t != null && t != t.getCause(); t = t.getCause())
      if (t.getMessage() != null && !message.toString().contains(t.getMessage()))
        message.append("; caused by ").append(t.getMessage());
    return new FailureAnalysis(
        "watukuy could not start: the store failed: " + redact(message.toString()),
        "Check watukuy.store.uri (host, port, database, credentials) or, without it, the"
            + " application's DataSource (spring.datasource.*), and that the database is up"
            + " (docs/spring-boot.md, \"Properties\").",
        cause);
  }

  /**
   * {@code text} with the values of password-like URL parameters and a URL's user information
   * hidden as {@code ***}.
   *
   * @param text a message that may quote a JDBC URL
   * @return the text without those values
   */
  static String redact(String text) {
    String out = SECRET_PARAMETER.matcher(text).replaceAll("$1***");
    return USER_INFO.matcher(out).replaceAll("$1***@");
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
