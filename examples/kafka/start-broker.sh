#!/usr/bin/env bash
# Starts a one-node Kafka broker in KRaft mode on 127.0.0.1 for the README's Kafka sink example:
# the broker the watukuy-sink-kafka tests start (org.apache.kafka:kafka_2.13, the client's version,
# on a class path of its own), with 512 MB of heap. It creates topics on first use, so the example
# needs no set-up; the tests turn that off. Data lives in examples/kafka/data: delete that folder
# to start afresh. Ctrl-C stops the broker.
#
# Usage: examples/kafka/start-broker.sh            # 127.0.0.1:9092 (controller on 9093)
#        KAFKA_PORT=19092 KAFKA_CONTROLLER_PORT=19093 examples/kafka/start-broker.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
port=${KAFKA_PORT:-9092}
controller=${KAFKA_CONTROLLER_PORT:-9093}
classpath="$root/watukuy-sink-kafka/target/kafka-broker"
data="$here/data"

if [ ! -d "$classpath" ]; then
  # The same copy the module's build makes before its tests, from the same pom.
  version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$root/pom.xml" | head -1)
  echo "copying the Kafka $version broker's class path to $classpath" >&2
  (cd "$root" && ./mvnw -B -ntp -q -f watukuy-sink-kafka/src/test/kafka-broker/pom.xml \
    -Dkafka.version="$version" -DoutputDirectory="$classpath" -DincludeScope=runtime \
    dependency:copy-dependencies)
fi

mkdir -p "$data"
properties="$data/server.properties"
cat > "$properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$data/logs
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPERTIES

if [ ! -f "$data/logs/meta.properties" ]; then
  # What kafka-storage.sh format --standalone does: a cluster id, then the storage.
  java -Xmx256m -cp "$classpath/*" kafka.tools.StorageTool format --standalone \
    -t d2F0dWt1eS1leGFtcGxlLQ -c "$properties"
fi
echo "Kafka broker on 127.0.0.1:$port (Ctrl-C stops it)" >&2
exec java -Xmx512m -cp "$classpath/*" kafka.Kafka "$properties"
