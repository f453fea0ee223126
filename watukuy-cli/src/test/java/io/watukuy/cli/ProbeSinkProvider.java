package io.watukuy.cli;

import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A sink type for tests of the {@code sink:} configuration, {@code type: probe}: {@code id} names
 * it in {@link #RECORDS}, which count its instances and opens and keep the delivery keys it was
 * handed; {@code open: ok | config | unreachable} makes {@link Sink#open()} work, fail as a config
 * problem or fail as an unreachable destination (until the file {@code until} exists, when set);
 * {@code secret} is a credential the failures quote, to prove the command hides it; {@code refuse:
 * true} fails the first event of each batch as that event's own failure; {@code log} is a file each
 * delivery key is appended to, for a probe in a process of its own.
 */
public final class ProbeSinkProvider implements SinkProvider {
  /** What each probe id saw. */
  record Record(
      AtomicInteger created,
      AtomicInteger opened,
      AtomicInteger closed,
      List<String> deliveryKeys,
      List<String> settings) {}

  static final Map<String, Record> RECORDS = new ConcurrentHashMap<>();

  static Record record(String id) {
    return RECORDS.computeIfAbsent(
        id,
        k ->
            new Record(
                new AtomicInteger(),
                new AtomicInteger(),
                new AtomicInteger(),
                new CopyOnWriteArrayList<>(),
                new CopyOnWriteArrayList<>()));
  }

  public ProbeSinkProvider() {}

  @Override
  public String type() {
    return "probe";
  }

  @Override
  public Sink create(SinkConfig config) {
    config.only("id", "open", "secret", "nested", "until", "log", "refuse");
    // For a probe in a process of its own: unreachable until the file "until" exists, and each
    // delivery key appended to the file "log".
    Path until = config.path("until");
    Path log = config.path("log");
    String id = config.required("id", "the probe's name in RECORDS");
    String open = config.string("open") == null ? "ok" : config.string("open");
    if (!List.of("ok", "config", "unreachable").contains(open))
      throw config.error("open", "'" + open + "' is not ok, config or unreachable");
    String secret = config.string("secret");
    // Refuses the first event of each batch as a failure of that event (retry, then park).
    boolean refuse = config.bool("refuse", false);
    Record r = record(id);
    r.created().incrementAndGet();
    r.settings().add(config.node().toString());
    return new Sink() {
      @Override
      public String name() {
        return "probe " + id;
      }

      @Override
      public void open() throws Exception {
        if (open.equals("config"))
          throw new ConfigException(
              "sink probe " + id + ": credentials refused" + (secret == null ? "" : ": " + secret));
        if (open.equals("unreachable") && (until == null || !Files.exists(until)))
          throw new ConnectException("connection refused to probe:" + secret);
        r.opened().incrementAndGet();
      }

      @Override
      public BatchResult handle(List<ChangeEvent<Object>> events) {
        for (ChangeEvent<Object> e : events)
          r.deliveryKeys().add(e.source() + ":" + e.deliveryKey());
        if (log != null) {
          StringBuilder lines = new StringBuilder();
          for (ChangeEvent<Object> e : events) lines.append(e.deliveryKey()).append('\n');
          try {
            Files.writeString(log, lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
        if (refuse && !events.isEmpty())
          return BatchResult.failed(
              events.get(0), new IllegalStateException("probe refused it: " + secret));
        return BatchResult.ok();
      }

      @Override
      public void close() {
        r.closed().incrementAndGet();
      }
    };
  }
}
