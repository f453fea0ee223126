package io.watukuy.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The CPU a store's server process spends, read from {@code /proc}: the sum of {@code utime} and
 * {@code stime} of every process whose command name is one of the server's ({@code postgres} for
 * PostgreSQL, its postmaster and every backend; {@code mariadbd} or {@code mysqld}; {@code
 * redis-server}), so that a phase can show what moving work into the database costs there. On a
 * shared machine this counts the server's work for every client, not only the bench's. The
 * in-process stores (memory, SQLite) have no server: their work is in the engine's own CPU.
 */
final class ServerCpu {
  /** Clock ticks per second of {@code /proc/<pid>/stat}: 100 on every Linux the bench runs on. */
  private static final double TICKS_PER_SECOND = 100;

  private final @Nullable Set<String> names;
  private final String what;

  private ServerCpu(@Nullable Set<String> names, String what) {
    this.names = names;
    this.what = what;
  }

  /**
   * The server of a store kind.
   *
   * @param kind memory, sqlite, postgres, mariadb or redis
   * @return the sampler; one that reads nothing for an in-process store
   */
  static ServerCpu of(String kind) {
    return switch (kind) {
      case "postgres" ->
          new ServerCpu(Set.of("postgres"), "every postgres process (postmaster and backends)");
      case "mariadb" -> new ServerCpu(Set.of("mariadbd", "mysqld"), "the mariadbd process");
      case "redis" -> new ServerCpu(Set.of("redis-server"), "the redis-server process");
      default -> new ServerCpu(null, kind + ": in-process, its work is in the engine's CPU");
    };
  }

  /** What is counted, for the report. */
  String what() {
    return what;
  }

  /** Whether there is a server process to read. */
  boolean measured() {
    return names != null;
  }

  /**
   * The CPU ticks each of the server's processes has used so far, by process id; empty for an
   * in-process store or a machine without {@code /proc}.
   */
  Map<Long, Long> sample() {
    Set<String> wanted = names;
    Map<Long, Long> out = new HashMap<>();
    if (wanted == null) return out;
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        long t = ticks(proc, wanted);
        if (t >= 0) out.put(Long.parseLong(proc.getFileName().toString()), t);
      }
    } catch (IOException | RuntimeException e) {
      return Map.of();
    }
    return out;
  }

  /**
   * The CPU seconds the server's processes used between two samples: per process, its growth, or
   * all of it for one that started in between. A process that ended in between (a backend of
   * another client closing) takes its share with it: it is not counted, rather than counted
   * negative. NaN when there is no server to read.
   */
  double seconds(Map<Long, Long> before, Map<Long, Long> after) {
    if (names == null || after.isEmpty()) return Double.NaN;
    long ticks = 0;
    for (Map.Entry<Long, Long> e : after.entrySet())
      ticks += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
    return ticks / TICKS_PER_SECOND;
  }

  /** utime + stime of one process when its name is wanted, else -1 (also when it just ended). */
  private static long ticks(Path proc, Set<String> wanted) {
    String stat;
    try {
      stat = Files.readString(proc.resolve("stat"));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    // pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) return -1;
    if (!wanted.contains(stat.substring(open + 1, close))) return -1;
    List<String> f = List.of(stat.substring(close + 2).split(" "));
    // After comm: state is field 3 of the man page, utime 14 and stime 15: indexes 11 and 12 here.
    if (f.size() < 13) return -1;
    return Long.parseLong(f.get(11)) + Long.parseLong(f.get(12));
  }
}
