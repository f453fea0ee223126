#!/usr/bin/env bash
# Builds the bench jar and runs the benchmarks; results go to bench/results/.
#
#   bench/run.sh               the JMH suite (about 4 minutes), then bench/results/<date>-jmh.json
#   bench/run.sh jmh [OPTS]    the JMH suite only; OPTS: --smoke, --include REGEX, --forks N,
#                              --warmup N, --iterations N, --time-ms MS
#
# Each benchmark runs beside its physical baseline in the same JVM run; the table's ratio column
# is watukuy / baseline (throughput: 1.0 is as fast as the baseline). The machine's load average
# is printed and recorded with the numbers: on a loaded machine, compare ratios, not scores.
set -euo pipefail
cd "$(dirname "$0")/.."

command=jmh
if [[ $# -gt 0 && $1 != -* ]]; then command=$1; shift; fi
case "$command" in
  jmh) ;;
  *) echo "bench/run.sh: unknown command '$command' (expected jmh)" >&2; exit 2 ;;
esac

# package, never install: the jar is read from the module's target folder.
./mvnw -q -B -pl watukuy-bench -am package -DskipTests
exec java -jar watukuy-bench/target/watukuy-bench.jar "$command" --out bench/results "$@"
