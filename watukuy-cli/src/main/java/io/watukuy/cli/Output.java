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
  private final @Nullable FileChannel channel;
  private final String name;
  private volatile @Nullable IOException failure;
  private final AtomicLong written = new AtomicLong();

  private Output(@Nullable PrintStream stream, @Nullable FileChannel channel, String name) {
    this.stream = stream;
    this.channel = channel;
    this.name = name;
  }

  static Output stdout(PrintStream out) {
    return new Output(out, null, "standard output");
  }

  /** Opens {@code file} for appending, creating it when missing. */
  static Output file(Path file) throws IOException {
    FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    return new Output(null, ch, file.toString());
  }

  /**
   * Writes one line and makes it durable as far as the target allows.
   *
   * @throws IOException when the write fails; the event then stays pending
   */
  synchronized void write(String json) throws IOException {
    try {
      if (channel != null) {
        ByteBuffer buf = ByteBuffer.wrap((json + "\n").getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) channel.write(buf);
        channel.force(false);
      } else if (stream != null) {
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
  public void close() throws IOException {
    if (channel != null) channel.close();
  }
}
