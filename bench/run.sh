#!/usr/bin/env bash
# Builds the bench jar and runs the benchmarks; results go to bench/results/.
#
#   bench/run.sh                  everything: the JMH suite, then the end-to-end bench on every store
#   bench/run.sh -h | --help      this text (also: bench/run.sh jmh --help, bench/run.sh e2e --help,
#                                 bench/run.sh sinks --help)
#
#   bench/run.sh jmh [OPTS]       the JMH suite (about 5 minutes) -> bench/results/<date>-jmh.json
#     --smoke                       each benchmark once: 1 fork, no warm-up, one 100 ms iteration
#                                   (numbers mean nothing) -> <date>-jmh-smoke.json
#     --include REGEX               only the benchmarks whose Class.method matches (default: all)
#     --forks N                     JMH forks (default 1)
#     --warmup N                    warm-up iterations (default 3)
#     --iterations N                measured iterations (default 5)
#     --time-ms MS                  length of each iteration (default 1000)
#     --out DIR                     where the JSON goes (default bench/results)
#
#   bench/run.sh e2e [OPTS]       the end-to-end bench, one JVM per store under -Xmx256m
#                                 -> bench/results/<date>-<store>.json
#     --stores LIST                 comma-separated, of memory,sqlite,postgres,mariadb,redis (default:
#                                   all five; with --items above 200000, the four persistent ones:
#                                   MemoryStore keeps every item on the heap by design, so 256 MB
#                                   cannot hold 1 M; name memory in --stores to run it anyway)
#     --items N                     items of the snapshot and timestamp listing (default 100000,
#                                   at least 1000; 1000000 for the G10 memory check)
#     --tiny                        a smoke pass: 2000 items, 5 live changes over 1000 items at
#                                   schedule.min 100 ms, 200 idle keys for 1 s (not with --items)
#     --phases LIST                 comma-separated, of (default: all four):
#                                     snapshot   snapshotDiff: first sync, idle re-scan, 1% changed
#                                     timestamp  the same listing by updated_at: first sync, idle
#                                                poll, 1% changed (only those come back)
#                                     live       change -> handler latency on a running daemon, its
#                                                own listing of 10000 items, schedule.min 200 ms
#                                                (200 changes, at most 75 s)
#                                     idle       10000 idle keys on one engine: CPU per wall second
#                                                (about 65 s on memory, 1-2 min elsewhere)
#     --live-samples N              changes the live phase times (default 200, at least 1)
#     --idle-keys N                 keys of the idle phase (default 10000)
#     --idle-seconds S              the idle phase's measured window (default 30)
#     --idle-shape partitions|pollers
#                                   the idle keys as partitions of one poller (default) or one
#                                   poller each
#     --concurrency N               delivery.concurrency of the snapshot and timestamp engines
#                                   (default 8; acks of up to N/2 handled events share one store write)
#     --handler single|batch        how the snapshot and timestamp engines deliver to their
#                                   counting handler (default batch): a BatchHandler of
#                                   --batch-size events acked in one store write, or a Handler per
#                                   event (a run with single writes <date>-<store>-single.json)
#     --batch-size N                delivery.batchSize with --handler batch (default 100)
#     --postgres-url JDBC-URL       default jdbc:postgresql://127.0.0.1:5432/test?user=postgres
#     --mariadb-url JDBC-URL        default jdbc:mariadb://127.0.0.1:3306/test?user=root (tables
#                                   with a fresh prefix in that database)
#     --redis-uri URI               default redis://127.0.0.1:6379/0
#     --out DIR                     where the JSON goes (default bench/results)
#     --runs N                      each store's bench JVM (and its Camel peer with --peer camel)
#                                   N times back to back (default 1); with N >= 2 the runs' files
#                                   are merged into one, <the one-run name>-best-of-<N>.json (such
#                                   as <date>-sqlite-snapshot-idle-best-of-3.json, never a one-run
#                                   file's name): every run's figures under "everyRun", and per
#                                   phase the best run's under "phases", "idle" and "live"
#                                   ("bestRun" names it; highest items/s, lowest CPU % for the
#                                   idle keys, lowest overhead p99 for live) with that run's
#                                   ratios to the floor, the commit floor and Camel; a "best of N"
#                                   table marks the best run of each phase with *
#     --peer camel                  after each store's run, the Apache Camel route a Java engineer
#                                   would write instead (bench/camel, Camel 4.22, its own JVM under
#                                   -Xmx256m, right after the bench's): the same listing on the same
#                                   database (sqlite, postgres, mariadb; none on memory and redis),
#                                   first sync and idle re-scan, items/s and process CPU; printed
#                                   beside watukuy and written into the store's results file (a
#                                   "peer" section with the ratios, what the route does not do and
#                                   its source; "camelRatio" in the two phases). Needs the snapshot
#                                   phases. Installs watukuy-bench into the local Maven repository
#                                   (the peer's pom depends on it; bench/camel is no module of the
#                                   root pom, so Camel stays out of ./mvnw verify). The bench's JVM
#                                   names its results file in a temporary file
#                                   (-Dwatukuy.bench.resultPathFile), which the peer then updates
#
#   bench/run.sh sinks [OPTS]     the sink bench, one JVM under -Xmx256m -> bench/results/<date>-sinks.json:
#                                 per sink, events/s through the whole engine path (one tick polls a
#                                 local listing served from memory, commits N created events to the
#                                 outbox, delivers them in batches of 100 through the real sink, the
#                                 destination acks, the store acks) beside the sink's own client
#                                 writing the same records (same envelope bytes and keys) with the
#                                 same durability, in batches of 100, in the same run; and the engine
#                                 alone (a handler that keeps the events). ratio = sink / raw
#     --sinks LIST                  comma-separated, of kafka,table,rabbitmq,nats,webhook,file (default:
#                                   all). table is four rows: table-postgres, table-postgres-same,
#                                   table-sqlite, table-sqlite-same (-same: sameDatabase true, the
#                                   engine on that SQL store; without it, the memory store); each may
#                                   be named alone
#     --events N                    events per pass (default 20000, at least 100)
#     --runs N                      rounds per sink in the one JVM, the order of the passes
#                                   alternating; the best round of each pass is reported (default 3)
#     --tiny                        a smoke pass: 500 events, 1 round (-> <date>-sinks-tiny.json)
#     --kafka-bootstrap HOST:PORT   a running broker to use; by default the run starts a KRaft broker
#                                   (the one watukuy-sink-kafka's tests start, its class path copied
#                                   to watukuy-sink-kafka/target/kafka-broker when missing) on free
#                                   127.0.0.1 ports and stops it at the end
#     --postgres-url JDBC-URL       default jdbc:postgresql://127.0.0.1:5432/test?user=postgres
#     --rabbitmq-uri URI            default amqp://guest:guest@127.0.0.1:5672/%2F
#     --nats-url URL                default nats://127.0.0.1:4222 (JetStream on)
#     --out DIR                     where the JSON goes (default bench/results)
#
# A run with anything but the defaults writes <date>-<store>-<what differs>.json (such as
# <date>-memory-live-idle.json, <date>-sqlite-1000000items.json, <date>-redis-tiny.json), so that
# it never overwrites the full run's file; -tiny and -smoke files are not committed. With --runs N
# (N >= 2) only the merged <that name>-best-of-<N>.json is written.
#
# Each benchmark runs beside its physical baseline in the same run; the ratio column is
# watukuy / baseline in throughput (1.0 is as fast as the baseline). The machine's load average
# is printed and recorded with the numbers: on a loaded machine, compare ratios, not scores.
# PostgreSQL, MariaDB and Redis are the local ones the tests use (scripts/services starts them);
# each one a run needs is checked before the first store runs. Ctrl-C removes what the run left
# (schema, tables, keys, files). Exit code 0 on success, 1 on a failure, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^[^#]/{/^#/{s/^# \{0,1\}//;p}}' bench/run.sh; }
fail() {
  echo "bench/run.sh: $*" >&2
  echo "bench/run.sh --help lists the options" >&2
  exit 2
}
# An option's value: present, not empty, and not the next option.
need_value() { [[ $# -ge 2 && -n $2 && $2 != --* ]] || fail "$1 needs a value"; }

all_stores=memory,sqlite,postgres,mariadb,redis
command=all
if [[ $# -gt 0 ]]; then
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -*) fail "unknown option '$1' (expected a command, jmh, e2e or sinks, or --help)" ;;
    *) command=$1; shift ;;
  esac
fi
case "$command" in
  jmh|e2e|sinks) ;;
  all) [[ $# -eq 0 ]] || fail "options go after a command (jmh, e2e or sinks), not after all" ;;
  *) fail "unknown command '$command' (expected jmh, e2e or sinks)" ;;
esac

out=bench/results
jmh_args=()
e2e_args=()
peer=
peer_args=()
stores=
runs=1
if [[ $command == jmh ]]; then
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --smoke) jmh_args+=("$1"); shift ;;
      --out) need_value "$@"; out=$2; shift 2 ;;
      --include|--forks|--warmup|--iterations|--time-ms) need_value "$@"; jmh_args+=("$1" "$2"); shift 2 ;;
      *) fail "unknown option '$1' for jmh" ;;
    esac
  done
elif [[ $command == sinks ]]; then
  sinks_args=()
  kafka_given=
  sinks_list=all
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --tiny) sinks_args+=("$1"); shift ;;
      --out) need_value "$@"; out=$2; shift 2 ;;
      --sinks) need_value "$@"; sinks_list=$2; sinks_args+=("$1" "$2"); shift 2 ;;
      --kafka-bootstrap) need_value "$@"; kafka_given=$2; sinks_args+=("$1" "$2"); shift 2 ;;
      --events|--runs|--postgres-url|--rabbitmq-uri|--nats-url)
        need_value "$@"; sinks_args+=("$1" "$2"); shift 2 ;;
      *) fail "unknown option '$1' for sinks" ;;
    esac
  done
elif [[ $command == e2e ]]; then
  items=
  phases=
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -h|--help) usage; exit 0 ;;
      --store) fail "--store is not an option of bench/run.sh; use --stores (a comma-separated list)" ;;
      --stores)
        [[ $# -ge 2 && -n $2 && $2 != --* ]] || fail "--stores needs a comma-separated list of $all_stores"
        stores=$2; shift 2 ;;
      --tiny) e2e_args+=("$1"); shift ;;
      --peer)
        need_value "$@"
        [[ $2 == camel ]] || fail "--peer: unknown peer '$2' (expected camel)"
        peer=$2; shift 2 ;;
      --out) need_value "$@"; out=$2; shift 2 ;;
      --runs)
        need_value "$@"
        [[ $2 =~ ^[1-9][0-9]{0,2}$ ]] || fail "--runs must be a whole number from 1 to 999, but was '$2'"
        runs=$((10#$2)); shift 2 ;;
      --items) need_value "$@"; items=$2; e2e_args+=("$1" "$2"); shift 2 ;;
      --postgres-url|--mariadb-url) need_value "$@"; e2e_args+=("$1" "$2"); peer_args+=("$1" "$2"); shift 2 ;;
      --phases) need_value "$@"; phases=$2; e2e_args+=("$1" "$2"); shift 2 ;;
      --live-samples|--idle-keys|--idle-seconds|--idle-shape|--concurrency|--handler|--batch-size|--redis-uri)
        need_value "$@"; e2e_args+=("$1" "$2"); shift 2 ;;
      *) fail "unknown option '$1' for e2e" ;;
    esac
  done
  if [[ -n $stores ]]; then
    listed=()
    for store in ${stores//,/ }; do
      [[ ,$all_stores, == *,"$store",* ]] || fail "--stores: unknown store '$store' (expected some of $all_stores)"
      listed+=("$store")
    done
    [[ ${#listed[@]} -gt 0 ]] || fail "--stores needs a comma-separated list of $all_stores"
  elif [[ $items =~ ^[0-9]+$ ]] && (( 10#$items > 200000 )); then
    # MemoryStore keeps every item on the heap by design: 1 M items cannot fit in 256 MB.
    stores=sqlite,postgres,mariadb,redis
    echo "bench/run.sh: --items $items: skipping the memory store (it keeps every item on the heap, which" \
      "-Xmx256m cannot hold); pass --stores memory to run it anyway" >&2
  else
    stores=$all_stores
  fi
else
  stores=$all_stores
fi

if [[ -n $peer && -n $phases && ,${phases// /}, != *,snapshot,* ]]; then
  fail "--peer $peer compares with the snapshot phases: add snapshot to --phases"
fi

if [[ -z $peer ]]; then
  # package, never install: the jar is read from the module's target folder.
  ./mvnw -q -B -pl watukuy-bench -am package -DskipTests
else
  # The peer's pom depends on the installed watukuy-bench; its class path is its classes and lib/.
  ./mvnw -q -B -pl watukuy-bench -am install -DskipTests
  ./mvnw -q -B -f bench/camel/pom.xml package -DskipTests
fi
jar=watukuy-bench/target/watukuy-bench.jar

# The sink bench's Kafka broker: the class path watukuy-sink-kafka's build copies for its tests,
# copied here the same way (examples/kafka/start-broker.sh does too) when it is missing.
if [[ $command == sinks && -z $kafka_given && ( $sinks_list == all || ,$sinks_list, == *,kafka,* ) ]]; then
  broker_cp=watukuy-sink-kafka/target/kafka-broker
  if [[ ! -d $broker_cp ]]; then
    version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' pom.xml | head -1)
    echo "bench/run.sh: copying the Kafka $version broker's class path to $broker_cp" >&2
    ./mvnw -B -ntp -q -f watukuy-sink-kafka/src/test/kafka-broker/pom.xml \
      -Dkafka.version="$version" -DoutputDirectory="$PWD/$broker_cp" -DincludeScope=runtime \
      dependency:copy-dependencies
  fi
fi

# The options and every server a store needs, before anything runs: a run does not fail an hour in.
if [[ $command != jmh && $command != sinks ]]; then
  for store in ${stores//,/ }; do
    java -jar "$jar" e2e --check --store "$store" ${e2e_args[@]+"${e2e_args[@]}"}
  done
fi

# The commit measured, in every results file: HEAD, and "-dirty" when tracked files differ from it
# (what is measured is then not exactly that commit).
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]] && ! git diff --quiet HEAD -- . ':!bench/results' 2>/dev/null; then
  commit="$commit-dirty"
fi

# Runs java in the background and waits, so that a SIGTERM or SIGINT sent to this script reaches
# the JVM (as SIGTERM: a background job of a script ignores SIGINT), whose shutdown hook removes
# what the run left in its store; the script then stops with the signal's status.
run_java() {
  java -Dwatukuy.bench.commit="$commit" "$@" &
  local pid=$! rc=0
  trap 'kill -TERM $pid 2>/dev/null; wait $pid; exit 143' TERM
  trap 'kill -TERM $pid 2>/dev/null; wait $pid; exit 130' INT
  wait $pid || rc=$?
  trap - TERM INT
  return $rc
}

# One run of store $1: the bench's JVM, then the Camel peer's when asked; writes into folder $2 and
# leaves the results file's path in $wrote.
run_store_once() {
  local store=$1 dir=$2
  # One JVM per store, so that each peak heap is its own; 256 MB shows memory flat in N (G10).
  run_java -Xmx256m -Dwatukuy.bench.resultPathFile="$wrote" -jar "$jar" e2e --store "$store" \
    --out "$dir" ${e2e_args[@]+"${e2e_args[@]}"}
  if [[ $peer == camel ]]; then
    case "$store" in
      sqlite|postgres|mariadb)
        # Right after the bench's JVM, on the same machine, database and items; it adds its
        # numbers to the file the bench just wrote.
        run_java -Xmx256m -cp "bench/camel/target/classes:bench/camel/target/lib/*" \
          io.watukuy.bench.camel.CamelPeer --results "$(cat "$wrote")" \
          ${peer_args[@]+"${peer_args[@]}"} ;;
      *) echo "bench/run.sh: no Camel peer on $store: its JdbcMessageIdRepository needs a JDBC database" >&2 ;;
    esac
  fi
}

run_e2e() {
  local store run files runs_dir=
  wrote=$(mktemp)
  if (( runs > 1 )); then
    # Each run writes into its own folder; only the merged file reaches $out. The trap names the
    # folder now: it runs at exit, after this function's locals are gone.
    runs_dir=$(mktemp -d)
    trap "rm -rf '$runs_dir' '$wrote'" EXIT
  fi
  for store in ${stores//,/ }; do
    if (( runs == 1 )); then
      run_store_once "$store" "$out"
      continue
    fi
    files=()
    for (( run = 1; run <= runs; run++ )); do
      echo "bench/run.sh: $store, run $run of $runs"
      run_store_once "$store" "$runs_dir/$store-$run"
      files+=("$(cat "$wrote")")
    done
    run_java -jar "$jar" best-of --out "$out" "${files[@]}"
  done
  rm -f "$wrote"
}

case "$command" in
  jmh) run_java -jar "$jar" jmh --out "$out" ${jmh_args[@]+"${jmh_args[@]}"} ;;
  sinks) run_java -Xmx256m -jar "$jar" sinks --out "$out" ${sinks_args[@]+"${sinks_args[@]}"} ;;
  e2e) run_e2e ;;
  all)
    run_java -jar "$jar" jmh --out "$out"
    run_e2e ;;
esac
