package io.watukuy.admin;

import static io.watukuy.admin.Exchanges.JSON;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.PollerKey;
import io.watukuy.admin.EffectRoutes.Reply;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Retry now (docs/effects.md, "Retry now" and "Admin HTTP"): {@code POST
 * /admin/effects/{name}/retry} makes every parked lane of an effect due at once, {@code POST
 * /admin/effects/{name}/retry/{position}} the lane of one failed position. Loaded, like {@link
 * EffectRoutes}, only when the server was given an effects runtime.
 */
final class EffectRetryRoutes {
  private final EffectRoutes routes;

  EffectRetryRoutes(EffectRoutes routes) {
    this.routes = routes;
  }

  /**
   * {@code POST /admin/effects/{name}/retry}: 200 {@code {"action":"retry","effect":..,"lanes":N}},
   * N the lanes made due (0 when none is parked, or another engine runs the effect); 404 for an
   * unknown effect.
   */
  Reply all(String name) {
    if (!routes.effects.names().contains(name)) return routes.unknown(name);
    int lanes = routes.effects.retryNow(name);
    ObjectNode n = JSON.createObjectNode();
    n.put("action", "retry");
    n.put("effect", name);
    n.put("lanes", lanes);
    return new Reply(200, n.toString());
  }

  /**
   * {@code POST /admin/effects/{name}/retry/{position}} ({@code ?partition=} as for skip): 200 with
   * the position's fields, {@code "action":"retry"} and {@code "lanes":1}; 404 for an unknown
   * effect, 400 for a bad position or partition, 409 naming what the position is when it is not a
   * parked failed position.
   */
  Reply one(String name, String positionText, Map<String, String> query) {
    if (!routes.effects.names().contains(name)) return routes.unknown(name);
    long position = EffectRoutes.position(positionText);
    PollerKey source = routes.source(name, query.get("partition"));
    if (source != null && routes.effects.retryNow(name, source, position) > 0) {
      ObjectNode n = JSON.createObjectNode();
      n.put("action", "retry"); // first, as the documented body shows it
      n.setAll(EffectRoutes.positionNode(name, source, position));
      n.put("lanes", 1);
      return new Reply(200, n.toString());
    }
    Optional<InvocationRow> row =
        source == null ? Optional.empty() : routes.effects.invocation(name, source, position);
    return EffectRoutes.notFailed(
        name,
        position,
        source,
        why(row.map(InvocationRow::status).orElse(null)),
        "only a failed position waiting for its retry can be retried now");
  }

  private static String why(@Nullable InvocationStatus status) {
    if (status == null) return EffectRoutes.NO_INVOCATION;
    return switch (status) {
      case RUNNING -> "is running";
      // stored as failed, yet no parked lane holds it: it is being retried, or another engine runs
      // the effect
      case FAILED -> "is failed but not waiting here (being retried, or run by another engine)";
      case DONE -> "is done";
      case TERMINAL -> "is completed by a terminal failure";
      case SKIPPED -> "is already skipped";
    };
  }
}
