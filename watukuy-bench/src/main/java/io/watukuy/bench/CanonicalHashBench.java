package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.internal.diff.Jcs;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The content hash of one item (RFC 8785 canonical bytes, then SHA-256 as hex), each beside its
 * physical baseline on the same bytes. Two pairs:
 *
 * <ul>
 *   <li>{@code parseAndHash}: from the bytes on the wire, as a fetch that parses JSON and the diff
 *       together do; baseline {@code parseAndHashBaseline}: Jackson parse + serialize of the same
 *       bytes, and a plain SHA-256 of the same bytes.
 *   <li>{@code hashTree}: from the parsed tree, which is what the engine does per item (the fetch
 *       already parsed it); baseline {@code hashTreeBaseline}: Jackson serialize of the same tree,
 *       then a plain SHA-256 of what it wrote.
 * </ul>
 *
 * Throughput in operations (items) per second; {@code ratio = watukuy / baseline}, so 1.0 means as
 * fast as the baseline and the target is at least 0.7.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CanonicalHashBench {

  /** Which recorded item; see {@link Items#NAMES}. */
  @Param({"user", "issue", "repository", "repository-with-issues"})
  public String item;

  private byte[] bytes;
  private JsonNode tree;

  /** Loads the item and checks that its canonical form is what both sides hash. */
  @Setup
  public void load() throws IOException {
    bytes = Items.bytes(item);
    tree = Items.MAPPER.readTree(bytes);
    if (Jcs.hash(tree).length() != 64) throw new IllegalStateException("hash of " + item);
  }

  /** Parse, canonicalize, SHA-256, hex: watukuy's hash from the bytes on the wire. */
  @Benchmark
  public String parseAndHash() throws IOException {
    return Jcs.hash(Items.MAPPER.readTree(bytes));
  }

  /** Jackson parse + serialize of the same bytes, plus a plain SHA-256 of them as hex. */
  @Benchmark
  public void parseAndHashBaseline(Blackhole bh) throws IOException {
    bh.consume(Items.MAPPER.writeValueAsBytes(Items.MAPPER.readTree(bytes)));
    bh.consume(Digests.sha256Hex(bytes));
  }

  /** Canonicalize, SHA-256, hex of a parsed tree: the engine's per-item hash. */
  @Benchmark
  public String hashTree() {
    return Jcs.hash(tree);
  }

  /** Jackson serialize of the same tree, then a plain SHA-256 of what it wrote, as hex. */
  @Benchmark
  public String hashTreeBaseline() throws IOException {
    return Digests.sha256Hex(Items.MAPPER.writeValueAsBytes(tree));
  }
}
