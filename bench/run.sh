#!/usr/bin/env bash
# Builds the bench jar and runs the benchmarks; results go to bench/results/.
#
#   bench/run.sh                  everything: the JMH suite, then the end-to-end bench on every store
#   bench/run.sh jmh [OPTS]       the JMH suite (about 5 minutes) -> bench/results/<date>-jmh.json
#                                 OPTS: --smoke, --include REGEX, --forks N, --warmup N,
#                                       --iterations N, --time-ms MS
#   bench/run.sh e2e [OPTS]       the end-to-end bench, one JVM per store under -Xmx256m
#                                 -> bench/results/<date>-<store>.json
#                                 OPTS: --stores memory,sqlite,postgres,redis (default: all four)
#                                       --items N (default 100000; 1000000 for the G10 check)
#                                       --phases snapshot,timestamp,live,idle (default: all four)
#                                         snapshot   snapshotDiff: first sync, idle re-scan, 1% changed
#                                         timestamp  the same listing by updated_at: first sync, idle
#                                                    poll, 1% changed (only those come back)
#                                         live       change -> handler latency on a running daemon,
#                                                    schedule.min 200 ms (200 changes, at most 75 s)
#                                         idle       10 000 idle keys on one engine: CPU per wall
#                                                    second (about 65 s on memory, 1-2 min elsewhere)
#                                       --live-samples N (default 200)
#                                       --idle-keys N (default 10000), --idle-seconds S (default 30),
#                                       --idle-shape partitions|pollers (default partitions)
#                                       --concurrency N: delivery.concurrency of the snapshot and
#                                         timestamp engines (default 8; acks of up to N/2 handled
#                                         events share one store write)
#                                       --tiny (2000 items, 5 live changes, 200 idle keys for 1 s:
#                                         a smoke pass)
#                                       --postgres-url JDBC-URL, --redis-uri URI
#
# Each benchmark runs beside its physical baseline in the same run; the ratio column is
# watukuy / baseline in throughput (1.0 is as fast as the baseline). The machine's load average
# is printed and recorded with the numbers: on a loaded machine, compare ratios, not scores.
# PostgreSQL and Redis are the local ones the tests use (scripts/services starts them).
set -euo pipefail
cd "$(dirname "$0")/.."

command=all
if [[ $# -gt 0 && $1 != -* ]]; then command=$1; shift; fi
case "$command" in
  all|jmh|e2e) ;;
  *) echo "bench/run.sh: unknown command '$command' (expected jmh or e2e)" >&2; exit 2 ;;
esac

# package, never install: the jar is read from the module's target folder.
./mvnw -q -B -pl watukuy-bench -am package -DskipTests
jar=watukuy-bench/target/watukuy-bench.jar

run_e2e() {
  local stores=memory,sqlite,postgres,redis args=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --stores) stores=$2; shift 2 ;;
      *) args+=("$1"); shift ;;
    esac
  done
  local store
  for store in ${stores//,/ }; do
    # One JVM per store, so that each peak heap is its own; 256 MB shows memory flat in N (G10).
    java -Xmx256m -jar "$jar" e2e --store "$store" --out bench/results ${args[@]+"${args[@]}"}
  done
}

case "$command" in
  jmh) java -jar "$jar" jmh --out bench/results "$@" ;;
  e2e) run_e2e "$@" ;;
  all)
    java -jar "$jar" jmh --out bench/results
    run_e2e ;;
esac
