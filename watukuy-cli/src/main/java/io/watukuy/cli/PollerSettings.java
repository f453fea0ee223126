package io.watukuy.cli;

import io.watukuy.Backoff;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventLog;
import io.watukuy.PoisonPolicy;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.cli.CliConfig.DeletesSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a poller that are maps of their own in the YAML ({@code schedule}, {@code
 * delivery}, {@code log}, {@code deletes}, {@code schema}; docs/config.md, "A poller"): each read
 * and checked here, its errors naming the file, line, poller and key through {@link
 * ConfigReader.At}. Apart from {@link ConfigReader}, which reads the config's shape.
 */
final class PollerSettings {
  private PollerSettings() {}

  /**
   * {@code schema:} a JSON Schema file, relative to the config's folder, or the schema inline as a
   * map (docs/config.md, "A poller").
   */
  static @Nullable ItemSchema schema(ConfigReader.At at, Path dir) {
    if (at.missing()) return null;
    String text;
    String where;
    if (at.node.isTextual()) {
      Path file = dir.resolve(at.node.textValue()).normalize();
      where = "file " + file;
      try {
        text = Files.readString(file);
      } catch (IOException e) {
        throw at.error(
            "cannot read "
                + file
                + ": "
                + (e instanceof NoSuchFileException ? "no such file" : e.getMessage()));
      }
    } else if (at.node.isObject()) {
      text = at.node.toString();
      where = "the inline schema";
    } else {
      throw at.error("must be a file name or a map (an inline JSON Schema)");
    }
    try {
      return ItemSchema.of(text);
    } catch (IllegalArgumentException e) {
      throw at.error(where + " is not a JSON Schema: " + e.getMessage());
    }
  }

  /** The delete guard: {@code {maxRatio, minCount}}, each optional (0.5 and 10). */
  static DeletesSpec deletes(ConfigReader.At at) {
    if (at.missing()) return DeletesSpec.DEFAULT;
    at.object("maxRatio", "minCount");
    ConfigReader.At ratio = at.child("maxRatio");
    double maxRatio = DeletesSpec.DEFAULT.maxRatio();
    if (!ratio.missing()) {
      if (!ratio.node.isNumber() || !(ratio.node.doubleValue() > 0) || ratio.node.doubleValue() > 1)
        throw ratio.error("'" + ratio.node.asText() + "' is not a number above 0 and at most 1");
      maxRatio = ratio.node.doubleValue();
    }
    return new DeletesSpec(
        maxRatio, at.child("minCount").integer(DeletesSpec.DEFAULT.minCount(), 0));
  }

  static Schedule schedule(ConfigReader.At at) {
    if (at.missing()) return Schedule.DEFAULT;
    at.object("min", "max", "jitter", "adaptive");
    Duration min = at.child("min").duration(Schedule.DEFAULT_MIN);
    Duration max =
        at.child("max")
            .duration(min.compareTo(Schedule.DEFAULT_MAX) > 0 ? min : Schedule.DEFAULT_MAX);
    if (max.compareTo(min) < 0) throw at.child("max").error("must not be shorter than min");
    ConfigReader.At jitterAt = at.child("jitter");
    double jitter = Schedule.DEFAULT_JITTER;
    if (!jitterAt.missing()) {
      if (!jitterAt.node.isNumber()
          || jitterAt.node.doubleValue() < 0
          || jitterAt.node.doubleValue() > 1) {
        throw jitterAt.error("'" + jitterAt.node.asText() + "' is not a number from 0 to 1");
      }
      jitter = jitterAt.node.doubleValue();
    }
    boolean adaptive = at.child("adaptive").bool(Schedule.DEFAULT_ADAPTIVE);
    return new Schedule(min, max, jitter, adaptive, Backoff.DEFAULT_POLL);
  }

  /**
   * The event log that {@code replay} copies from: {@code {enabled, retention}}, off by default.
   */
  static EventLog log(ConfigReader.At at) {
    if (at.missing()) return EventLog.DISABLED;
    at.object("enabled", "retention");
    if (!at.child("enabled").bool(false)) return EventLog.DISABLED;
    return EventLog.keep(at.child("retention").duration(EventLog.DEFAULT_RETENTION));
  }

  static DeliveryPolicy delivery(ConfigReader.At at) {
    if (at.missing()) return DeliveryPolicy.DEFAULT;
    at.object("retry", "poison");
    RetryPolicy retry = RetryPolicy.DEFAULT;
    ConfigReader.At r = at.child("retry");
    if (!r.missing()) {
      r.object("attempts", "base", "max");
      Backoff d = RetryPolicy.DEFAULT_BACKOFF;
      Duration base = r.child("base").duration(d.base());
      Duration max = r.child("max").duration(d.max());
      if (max.compareTo(base) < 0) throw r.child("max").error("must not be shorter than base");
      retry =
          new RetryPolicy(
              r.child("attempts").integer(RetryPolicy.DEFAULT_ATTEMPTS, 1),
              new Backoff(base, d.factor(), max));
    }
    PoisonPolicy poison = PoisonPolicy.DEFAULT;
    ConfigReader.At q = at.child("poison");
    if (!q.missing()) {
      q.object("action", "holdKey");
      PoisonPolicy.Action action = PoisonPolicy.DEFAULT.action();
      ConfigReader.At a = q.child("action");
      if (!a.missing()) {
        String s = a.string("");
        action =
            switch (s) {
              case "park" -> PoisonPolicy.Action.PARK;
              case "halt" -> PoisonPolicy.Action.HALT;
              default -> throw a.error("'" + s + "' is not park or halt");
            };
      }
      poison = new PoisonPolicy(action, q.child("holdKey").bool(PoisonPolicy.DEFAULT.holdKey()));
    }
    return new DeliveryPolicy(retry, poison);
  }
}
