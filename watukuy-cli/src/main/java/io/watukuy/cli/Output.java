package io.watukuy.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Where events go, one JSON line each, a batch at a time. A batch is flushed (and, for a file,
 * forced to disk) once, before {@link #writeAll} returns, because the batch handler that calls it
 * acknowledges the batch by returning.
 *
 * <p>Every line of a file is one whole event: a write that fails part way (a full disk, an I/O
 * error) truncates the file back to where the batch started before it reports the failure, so the
 * batch, which stays pending, is appended whole when it is delivered again (issue 16, §3). A file
 * found ending in an incomplete line (a process killed during a write) is cut back the same way
 * when it is opened.
 */
final class Output implements AutoCloseable {
  /** Opens the file of an output; a seam for tests that make writes fail. */
  interface Opener {
    FileChannel open(Path file) throws IOException;
  }

  private static final Opener APPEND =
      file ->
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);

  private final @Nullable PrintStream stream;
  private @Nullable FileChannel channel;
  private final @Nullable Path file;
  private final Opener opener;
  private final String name;
  private volatile @Nullable IOException failure;
  // Guarded by this: the failure of the last write, cleared by a write that succeeds
  private @Nullable IOException failing;
  // Guarded by this: the file's length after the last complete line
  private long end;
  // Guarded by this: bytes of an incomplete last line removed when the file was opened
  private long trimmed;
  private volatile Consumer<String> onChange = line -> {};
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong forces = new AtomicLong();

  private Output(@Nullable PrintStream stream, @Nullable Path file, Opener opener, String name) {
    this.stream = stream;
    this.file = file;
    this.opener = opener;
    this.name = name;
  }

  static Output stdout(PrintStream out) {
    return new Output(out, null, APPEND, "standard output");
  }

  /** Opens {@code file} for appending, creating it when missing. */
  static Output file(Path file) throws IOException {
    return file(file, APPEND);
  }

  /** The same, with the file's channel opened by {@code opener}. */
  static Output file(Path file, Opener opener) throws IOException {
    Output o = new Output(null, file, opener, file.toString());
    synchronized (o) {
      o.channel = o.open();
    }
    return o;
  }

  /**
   * Opens the path and cuts an incomplete last line: the write that left it never returned, so its
   * event is pending and comes again whole; a reader would find the two run together.
   */
  private FileChannel open() throws IOException {
    FileChannel ch = opener.open(file);
    try {
      long size = ch.size();
      // A channel that appends cannot read: the tail is read through a channel of its own.
      try (FileChannel read = FileChannel.open(file, StandardOpenOption.READ)) {
        end = lastLineEnd(read, size);
      }
      if (end < size) {
        ch.truncate(end);
        ch.force(false);
        trimmed += size - end;
      }
      return ch;
    } catch (IOException e) {
      ch.close();
      throw e;
    }
  }

  /** The length of {@code ch} up to and with its last newline, 0 when it has none. */
  private static long lastLineEnd(FileChannel ch, long size) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(8192);
    long to = size;
    while (to > 0) {
      long from = Math.max(0, to - buf.capacity());
      buf.clear().limit((int) (to - from));
      while (buf.hasRemaining()) {
        if (ch.read(buf, from + buf.position()) < 0) break;
      }
      for (int i = buf.position() - 1; i >= 0; i--) {
        if (buf.get(i) == '\n') return from + i + 1;
      }
      to = from;
    }
    return 0;
  }

  /**
   * Bytes of an incomplete last line cut when the file was opened (or reopened), so the command can
   * say so; 0 for standard output.
   */
  synchronized long trimmed() {
    return trimmed;
  }

  /**
   * Receives one line when writes start failing ({@code output NAME: WHY}) and one when a write
   * succeeds again ({@code output NAME recovered}), not one per failed write: for the daemon, which
   * retries with backoff.
   */
  void onChange(Consumer<String> listener) {
    this.onChange = listener;
  }

  /** Whether this is standard output, whose failure (a closed pipe) does not pass. */
  boolean isStdout() {
    return file == null;
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
      channel = open();
    } catch (IOException e) {
      channel = null;
      IOException named =
          new OutputFailedException("output " + name + ": cannot reopen: " + e.getMessage(), e);
      if (failure == null) failure = named;
      throw named;
    }
  }

  /**
   * Writes one line and makes it durable as far as the target allows. When the write or the force
   * fails, a file is truncated back to its length before the write, so that it holds only whole
   * lines.
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
  void write(String json, Runnable beforeWrite) throws IOException {
    writeAll(List.of(json), beforeWrite);
  }

  /**
   * Writes a batch of lines, then flushes (for a file, forces it to disk) once: the batch handler
   * that calls it acknowledges the whole batch by returning (docs/guarantees.md, "Batches"). {@code
   * beforeWrite} runs once, right before the first byte goes out. When the write or the force
   * fails, a file is truncated back to its length before the batch, so it holds only whole lines
   * and none of the batch, which stays pending and is written again whole.
   *
   * @param jsons the lines, without their newlines; an empty list writes nothing
   * @throws IOException when the write fails; the batch then stays pending
   * @throws RuntimeException what {@code beforeWrite} throws; nothing is written
   */
  synchronized void writeAll(List<String> jsons, Runnable beforeWrite) throws IOException {
    if (jsons.isEmpty()) return;
    try {
      if (file != null && channel == null) throw new IOException("closed after a failed reopen");
      StringBuilder text = new StringBuilder(jsons.size() * 512);
      for (String json : jsons) text.append(json).append('\n');
      if (channel != null) {
        ByteBuffer buf = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        beforeWrite.run();
        try {
          while (buf.hasRemaining()) channel.write(buf);
          channel.force(false);
          forces.incrementAndGet();
        } catch (IOException e) {
          throw rollBack(channel, e);
        }
        end += buf.capacity();
      } else if (stream != null) {
        beforeWrite.run();
        stream.print(text);
        stream.flush();
        // PrintStream swallows I/O errors (a closed pipe); checkError surfaces them.
        if (stream.checkError()) throw new IOException("write failed (closed pipe?)");
      }
      written.addAndGet(jsons.size());
      if (failing != null) {
        failing = null;
        onChange.accept("output " + name + " recovered");
      }
    } catch (IOException e) {
      IOException named = new OutputFailedException("output " + name + ": " + reason(e), e);
      if (failure == null) failure = named;
      if (failing == null) onChange.accept(named.getMessage());
      failing = named;
      throw named;
    }
  }

  /**
   * Cuts what a failed write left after the last complete line; {@code e}, with a note when even
   * that fails (the file then ends in a partial line, which the next open cuts).
   */
  private IOException rollBack(FileChannel ch, IOException e) {
    try {
      ch.truncate(end);
      ch.force(false);
      return e;
    } catch (IOException t) {
      IOException both =
          new IOException(
              reason(e) + "; and the partial line could not be removed: " + reason(t), e);
      both.addSuppressed(t);
      return both;
    }
  }

  /** What failed, in words: an exception from the file system names the reason, not the class. */
  private static String reason(IOException e) {
    if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null)
      return fs.getReason();
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }

  /** Lines written (and so events delivered) so far. */
  long written() {
    return written.get();
  }

  /** Times a file was forced to disk after a write (one per batch); 0 for standard output. */
  long forces() {
    return forces.get();
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
