package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed write to {@code output: file:} leaves the file as it was before it, so every line is one
 * whole event (issue 16, §3): the write is made to fail part way through a seam, as a full disk
 * does ({@link FullDiskTest} does it on a real full file system).
 */
class OutputFileTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** A file channel that, when armed, writes {@code partial} bytes of a write and then fails. */
  static final class FullDisk extends FileChannel {
    private final FileChannel real;
    volatile int partial = -1;
    volatile int forces;

    FullDisk(FileChannel real) {
      this.real = real;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int p = partial;
      if (p < 0) return real.write(src);
      if (p == 0) throw new IOException("No space left on device");
      partial = 0;
      ByteBuffer some = src.duplicate();
      some.limit(Math.min(src.limit(), src.position() + p));
      int n = real.write(some);
      src.position(src.position() + n);
      return n;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return real.read(dsts, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      throw new UnsupportedOperationException();
    }

    @Override
    public long position() throws IOException {
      return real.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      real.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return real.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      real.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      forces++;
      real.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return real.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      return real.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return real.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      throw new UnsupportedOperationException();
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return real.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return real.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return real.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      real.close();
    }
  }

  private static String event(int id) {
    return "{\"id\":\"e"
        + id
        + "\",\"type\":\"created\",\"data\":{\"name\":\""
        + "x".repeat(300)
        + "\"}}";
  }

  /** Each line of {@code file} parsed: fails when one is not a JSON object. */
  private static List<String> ids(Path file) throws IOException {
    String text = Files.readString(file);
    assertThat(text)
        .satisfiesAnyOf(t -> assertThat(t).isEmpty(), t -> assertThat(t).endsWith("\n"));
    List<String> ids = new ArrayList<>();
    for (String line : text.lines().toList()) {
      JsonNode n = JSON.readTree(line);
      assertThat(n.isObject()).as(line).isTrue();
      ids.add(n.get("id").asText());
    }
    return ids;
  }

  @Test
  void aWriteThatFailsPartWayLeavesTheFileAsBeforeAndTheEventComesBackWhole() throws Exception {
    Path file = dir.resolve("events.jsonl");
    List<FullDisk> channels = new ArrayList<>();
    Output.Opener opener =
        p -> {
          FullDisk c =
              new FullDisk(
                  FileChannel.open(
                      p,
                      StandardOpenOption.CREATE,
                      StandardOpenOption.WRITE,
                      StandardOpenOption.APPEND));
          channels.add(c);
          return c;
        };
    List<String> changes = new CopyOnWriteArrayList<>();
    try (Output out = Output.file(file, opener)) {
      out.onChange(changes::add);
      out.write(event(1));
      out.write(event(2));
      byte[] before = Files.readAllBytes(file);

      channels.get(0).partial = 100; // 100 bytes of the line reach the disk, then it is full
      assertThatThrownBy(() -> out.write(event(3)))
          .isInstanceOf(IOException.class)
          .hasMessage("output " + file + ": No space left on device");
      assertThat(Files.readAllBytes(file)).isEqualTo(before);
      assertThatThrownBy(() -> out.write(event(3))).isInstanceOf(IOException.class);
      assertThat(Files.readAllBytes(file)).isEqualTo(before);

      channels.get(0).partial = -1; // space returns: the pending event is delivered again
      out.write(event(3));
      out.write(event(4));
    }

    assertThat(ids(file)).containsExactly("e1", "e2", "e3", "e4");
    // One line when writes start failing, one when they work again; not one per failed write.
    assertThat(changes)
        .containsExactly(
            "output " + file + ": No space left on device", "output " + file + " recovered");
  }

  @Test
  void aFileEndingInAnIncompleteLineIsCutBackWhenOpened() throws Exception {
    Path file = dir.resolve("events.jsonl");
    // A process killed during a write left 40 bytes of its line.
    Files.writeString(file, event(1) + "\n" + event(2).substring(0, 40));

    try (Output out = Output.file(file)) {
      assertThat(out.trimmed()).isEqualTo(40);
      out.write(event(2));
    }

    assertThat(ids(file)).containsExactly("e1", "e2");
    assertThat(Files.readString(file, StandardCharsets.UTF_8))
        .isEqualTo(event(1) + "\n" + event(2) + "\n");
  }

  /** Opens channels that can be made to fail, and keeps them for the test. */
  private static Output.Opener fullDisks(List<FullDisk> channels) {
    return p -> {
      FullDisk c =
          new FullDisk(
              FileChannel.open(
                  p,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE,
                  StandardOpenOption.APPEND));
      channels.add(c);
      return c;
    };
  }

  @Test
  void aBatchIsWrittenWithOneLeaseCheckAndForcedToDiskOnce() throws Exception {
    Path file = dir.resolve("events.jsonl");
    List<FullDisk> channels = new ArrayList<>();
    int[] checks = {0};
    try (Output out = Output.file(file, fullDisks(channels))) {
      int opened = channels.get(0).forces; // an open that cut nothing forces nothing
      out.writeAll(List.of(event(1), event(2), event(3), event(4), event(5)), () -> checks[0]++);
      out.writeAll(List.of(event(6), event(7)), () -> checks[0]++);

      assertThat(channels.get(0).forces - opened).as("one fsync per batch").isEqualTo(2);
      assertThat(out.forces()).isEqualTo(2);
      assertThat(out.written()).isEqualTo(7);
    }
    assertThat(checks[0]).as("Handler.checkLease once per batch").isEqualTo(2);
    assertThat(ids(file)).containsExactly("e1", "e2", "e3", "e4", "e5", "e6", "e7");
  }

  @Test
  void aBatchWhoseWriteFailsPartWayIsCutBackToWhereTheBatchStarted() throws Exception {
    Path file = dir.resolve("events.jsonl");
    List<FullDisk> channels = new ArrayList<>();
    try (Output out = Output.file(file, fullDisks(channels))) {
      out.writeAll(List.of(event(1), event(2)), () -> {});
      byte[] before = Files.readAllBytes(file);

      // The first line of the batch and part of the second reach the disk, then it is full.
      channels.get(0).partial = event(3).length() + 1 + 100;
      assertThatThrownBy(() -> out.writeAll(List.of(event(3), event(4), event(5)), () -> {}))
          .isInstanceOf(IOException.class)
          .hasMessage("output " + file + ": No space left on device");
      assertThat(Files.readAllBytes(file)).as("not even the complete line 3").isEqualTo(before);
      assertThat(out.written()).isEqualTo(2);

      channels.get(0).partial = -1; // the batch stays pending and comes again whole
      out.writeAll(List.of(event(3), event(4), event(5)), () -> {});
    }
    assertThat(ids(file)).containsExactly("e1", "e2", "e3", "e4", "e5");
  }

  @Test
  void aLeaseRefusedBeforeABatchWritesNothing() throws Exception {
    Path file = dir.resolve("events.jsonl");
    try (Output out = Output.file(file)) {
      assertThatThrownBy(
              () ->
                  out.writeAll(
                      List.of(event(1), event(2)),
                      () -> {
                        throw new IllegalStateException("lease lost");
                      }))
          .hasMessage("lease lost");
      assertThat(out.written()).isZero();
    }
    assertThat(Files.readString(file)).isEmpty();
  }
}
