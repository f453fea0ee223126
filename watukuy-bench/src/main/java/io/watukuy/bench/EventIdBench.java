package io.watukuy.bench;

import io.watukuy.internal.diff.EventIds;
import io.watukuy.internal.diff.Jcs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The event id ({@link EventIds#eventId}) beside its physical baseline: a plain SHA-256, as hex, of
 * the UTF-8 bytes of the very text the id hashes, built once in set-up. The difference is what the
 * rule itself costs: building the text, escaping, encoding.
 *
 * <p>{@code versionOrHash}: {@code version} for a poller with a version function (an ISO
 * timestamp), {@code hash} for one without (the item's 64-hex content hash).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EventIdBench {

  /** What stands in the version-or-hash part. */
  @Param({"version", "hash"})
  public String versionOrHash;

  private String value;
  private byte[] text;

  /** Builds the inputs and the baseline's text, and checks both hash the same text. */
  @Setup
  public void build() throws IOException {
    value =
        versionOrHash.equals("version")
            ? "2022-07-19T04:39:16Z"
            : Jcs.hash(Items.MAPPER.readTree(Items.bytes("issue")));
    text = ("watukuy|v1|issues||1000012|" + value + "|1|updated").getBytes(StandardCharsets.UTF_8);
    if (!eventId().equals(eventIdBaseline()))
      throw new IllegalStateException("event id text drifted");
  }

  /** The event id of an {@code updated} event of issue 1000012, unpartitioned, schema 1. */
  @Benchmark
  public String eventId() {
    return EventIds.eventId("issues", "", "1000012", value, 1, "updated");
  }

  /** Plain SHA-256 of the same text's UTF-8 bytes, as hex. */
  @Benchmark
  public String eventIdBaseline() {
    return Digests.sha256Hex(text);
  }
}
