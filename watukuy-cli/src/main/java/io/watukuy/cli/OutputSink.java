package io.watukuy.cli;

import io.watukuy.ChangeEvent;
import io.watukuy.Handler;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.Sink;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code stdout} and {@code file} sinks (docs/sinks.md, "stdout and file"): one JSON line per
 * event, the envelope or the CloudEvents structured form, written through {@link Output} so its
 * promises hold: whole lines only (a failed write is cut back to where its batch started), the
 * batch flushed (a file forced to disk) once before it is acknowledged, SIGHUP reopens a file.
 * {@link #inSequenceOrder()} is true: one stream for every key, so one batch of a key at a time and
 * the lines keep outbox order per key.
 */
final class OutputSink implements Sink {
  private final @Nullable Path file;
  private final EventFormat format;
  private volatile PrintStream stdout = System.out;
  private volatile @Nullable Output output;

  private OutputSink(@Nullable Path file, EventFormat format) {
    this.file = file;
    this.format = format;
  }

  /** Standard output ({@link System#out} until {@link #writeTo} names another stream). */
  static OutputSink stdout(EventFormat format) {
    return new OutputSink(null, format);
  }

  /** Appends to {@code file}, created at {@link #open()} when missing. */
  static OutputSink file(Path file, EventFormat format) {
    return new OutputSink(file, format);
  }

  /** The stream a {@code stdout} sink writes to: the command's own, which tests capture. */
  void writeTo(PrintStream out) {
    this.stdout = out;
  }

  /** The file, or null for standard output. */
  @Nullable Path file() {
    return file;
  }

  /** The open output, or null before {@link #open()} succeeded. */
  @Nullable Output output() {
    return output;
  }

  @Override
  public String name() {
    return file == null ? "stdout" : "file " + file;
  }

  /**
   * Opens the stream or the file (cutting an incomplete last line, see {@link Output}). Does
   * nothing when already open: the command opens its outputs before the engine's other sinks, to
   * say which file it created first.
   *
   * @throws IOException when the file cannot be opened, as {@code output FILE: cannot open: WHY}
   */
  @Override
  public synchronized void open() throws IOException {
    if (output != null) return;
    if (file == null) {
      output = Output.stdout(stdout);
      return;
    }
    try {
      output = Output.file(file);
    } catch (IOException e) {
      String why =
          e instanceof java.nio.file.AccessDeniedException
              ? "permission denied"
              : e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null
                  ? fs.getReason()
                  : e.getMessage();
      throw new IOException("output " + file + ": cannot open: " + why, e);
    }
  }

  /**
   * Writes the batch as lines and returns once they are flushed (a file forced to disk); the lease
   * is checked right before the first byte goes out (G5).
   *
   * @throws HandlerUnavailableException when the write fails (a closed pipe, a full disk): the
   *     output is down, not the events, which stay pending and are never parked
   */
  @Override
  public BatchResult handle(List<ChangeEvent<Object>> events) {
    Output o = output;
    if (o == null) throw new HandlerUnavailableException("output " + name() + " is not open", null);
    List<String> lines = new ArrayList<>(events.size());
    for (ChangeEvent<Object> e : events) lines.add(format.json(e));
    try {
      o.writeAll(lines, Handler::checkLease);
    } catch (IOException e) {
      throw new HandlerUnavailableException(e.getMessage(), e);
    }
    return BatchResult.ok();
  }

  /** Whether {@code error} is this kind of sink's failed write, which the command reports once. */
  static boolean isWriteFailure(@Nullable Throwable error) {
    return error instanceof HandlerUnavailableException
        && error.getCause() instanceof OutputFailedException;
  }

  @Override
  public boolean inSequenceOrder() {
    return true;
  }

  @Override
  public synchronized void close() throws IOException {
    Output o = output;
    if (o != null) o.close();
  }
}
