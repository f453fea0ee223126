package io.watukuy.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The file sink ({@code type: file}) into a file per round in a temporary folder, beside a {@link
 * FileChannel} appending the same envelope lines, one write and one {@code force(false)} per batch:
 * what the sink does before a batch counts as delivered.
 */
final class FileTarget implements SinkTarget {
  private final Path dir = Files.createTempDirectory("watukuy-bench-file");

  FileTarget() throws IOException {}

  @Override
  public String name() {
    return "file";
  }

  @Override
  public String store() {
    return "memory";
  }

  @Override
  public String rawWhat() {
    return "FileChannel: the batch's envelope lines in one write, then force(false), per batch";
  }

  @Override
  public Map<String, Object> sink(int round, BenchStore store) {
    return Map.of("type", "file", "path", file("sink", round).toString());
  }

  @Override
  public Raw raw(int round, BenchStore store) throws IOException {
    FileChannel ch =
        FileChannel.open(
            file("raw", round),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND);
    return new Raw() {
      @Override
      public void write(List<SinkRecord> batch) throws IOException {
        int size = 0;
        for (SinkRecord r : batch) size += r.envelope().length + 1;
        ByteBuffer buffer = ByteBuffer.allocate(size);
        for (SinkRecord r : batch) buffer.put(r.envelope()).put((byte) '\n');
        buffer.flip();
        while (buffer.hasRemaining()) ch.write(buffer);
        ch.force(false);
      }

      @Override
      public void close() throws IOException {
        ch.close();
      }
    };
  }

  @Override
  public Long delivered(int round) throws IOException {
    try (Stream<String> lines = Files.lines(file("sink", round))) {
      return lines.count();
    }
  }

  private Path file(String pass, int round) {
    return dir.resolve(pass + "-" + round + ".jsonl");
  }

  @Override
  public void close() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }
}
