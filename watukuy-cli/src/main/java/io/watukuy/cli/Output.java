package io.watukuy.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Where events go, one JSON line each. A line is flushed (and, for a file, forced to disk) before
 * {@link #write} returns, because the handler that calls it acknowledges the event by returning.
 */
final class Output implements AutoCloseable {
  private final @Nullable PrintStream stream;
  private @Nullable FileChannel channel;
  private final @Nullable Path file;
  private final String name;
  private volatile @Nullable IOException failure;
  private final AtomicLong written = new AtomicLong();

  private Output(
      @Nullable PrintStream stream,
      @Nullable FileChannel channel,
      @Nullable Path file,
      String name) {
    this.stream = stream;
    this.channel = channel;
    this.file = file;
    this.name = name;
  }

  static Output stdout(PrintStream out) {
    return new Output(out, null, null, "standard output");
  }

  /** Opens {@code file} for appending, creating it when missing. */
  static Output file(Path file) throws IOException {
    return new Output(null, open(file), file, file.toString());
  }

  private static FileChannel open(Path file) throws IOException {
    return FileChannel.open(
        file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
  }

  /**
   * Closes the file and opens its path again, creating it when missing: what logrotate's {@code
   * postrotate} asks for with SIGHUP, so lines go to the new file and none is lost between. Does
   * nothing for standard output. Called from the signal's thread; {@link #write} waits for it.
   *
   * @throws IOException when the path cannot be opened again; writes then fail and the daemon stops
   *     with the events pending
   */
  synchronized void reopen() throws IOException {
    if (file == null || channel == null) return;
    channel.close();
    try {
      channel = open(file);
    } catch (IOException e) {
      channel = null;
      IOException named =
          new IOException("output " + name + ": cannot reopen: " + e.getMessage(), e);
      if (failure == null) failure = named;
      throw named;
    }
  }

  /**
   * Writes one line and makes it durable as far as the target allows.
   *
   * @throws IOException when the write fails; the event then stays pending
   */
  void write(String json) throws IOException {
    write(json, () -> {});
  }

  /**
   * Writes one line, with {@code beforeWrite} run right before the bytes go out (after the lock and
   * the encoding), so that what it checks holds as late as it can (docs/guarantees.md, G5).
   *
   * @throws IOException when the write fails; the event then stays pending
   * @throws RuntimeException what {@code beforeWrite} throws; nothing is written
   */
  synchronized void write(String json, Runnable beforeWrite) throws IOException {
    try {
      if (file != null && channel == null) throw new IOException("closed after a failed reopen");
      if (channel != null) {
        ByteBuffer buf = ByteBuffer.wrap((json + "\n").getBytes(StandardCharsets.UTF_8));
        beforeWrite.run();
        while (buf.hasRemaining()) channel.write(buf);
        channel.force(false);
      } else if (stream != null) {
        beforeWrite.run();
        stream.print(json + "\n");
        stream.flush();
        // PrintStream swallows I/O errors (a closed pipe); checkError surfaces them.
        if (stream.checkError()) throw new IOException("write failed (closed pipe?)");
      }
      written.incrementAndGet();
    } catch (IOException e) {
      IOException named = new IOException("output " + name + ": " + e.getMessage(), e);
      if (failure == null) failure = named;
      throw named;
    }
  }

  /** Lines written (and so events delivered) so far. */
  long written() {
    return written.get();
  }

  /** The first write failure, or null. */
  @Nullable IOException failure() {
    return failure;
  }

  @Override
  public synchronized void close() throws IOException {
    if (channel != null) channel.close();
  }
}
