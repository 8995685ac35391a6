#!/usr/bin/env bash
# A real single-node Kafka broker (KRaft: broker and controller in one JVM) on loopback, from the Kafka jars
# on Maven Central (module kafka-test-broker). For the integration tests and for the README's Kafka mode.
#
#   scripts/kafka-broker.sh fresh <dir> [port]   # wipe <dir>, format, start (default port 9092)
#   scripts/kafka-broker.sh start <dir> [port]   # start on the data already in <dir> (format it if new)
#   scripts/kafka-broker.sh stop  <dir>          # SIGTERM, wait until the JVM has gone
#
# The controller listens on port+1. Needs the classpath file: mvn -pl kafka-test-broker generate-resources.
# Data survives stop/start, so a test can take the broker away mid-run and bring the same log back.
set -euo pipefail

usage="usage: kafka-broker.sh fresh|start|stop <dir> [port]"
cmd=${1:?$usage}
dir=${2:?$usage}
port=${3:-9092}
cport=$((port + 1))
here=$(cd "$(dirname "$0")/.." && pwd)
cp_file="$here/kafka-test-broker/target/broker-classpath.txt"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java

running_pid() {
  if [ -f "$dir/broker.pid" ]; then
    local pid
    pid=$(cat "$dir/broker.pid")
    if kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
  fi
}

stop() {
  local pid
  pid=$(running_pid || true)
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/broker.pid"
}

start() {
  if [ ! -f "$cp_file" ]; then
    echo "kafka-broker: $cp_file is missing; run: mvn -B -pl kafka-test-broker generate-resources" >&2
    exit 1
  fi
  if [ -n "$(running_pid || true)" ]; then
    echo "kafka-broker: already running (pid $(running_pid)) in $dir" >&2
    exit 1
  fi
  mkdir -p "$dir/logs"
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/logs
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  cat >"$dir/log4j2.properties" <<PROPS
appender.file.type=File
appender.file.name=file
appender.file.fileName=$dir/broker.log
appender.file.layout.type=PatternLayout
appender.file.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=INFO
rootLogger.appenderRef.file.ref=file
logger.kafka.name=kafka
logger.kafka.level=INFO
logger.state.name=state.change.logger
logger.state.level=WARN
PROPS
  local jvm=(-Xmx512m -Dlog4j2.configurationFile="$dir/log4j2.properties" -cp "@$cp_file")
  if [ ! -f "$dir/logs/meta.properties" ]; then
    local uuid
    uuid=$("$java" "${jvm[@]}" kafka.tools.StorageTool random-uuid)
    "$java" "${jvm[@]}" kafka.tools.StorageTool format --standalone --ignore-formatted -t "$uuid" \
      -c "$dir/server.properties" >"$dir/format.log" 2>&1
  fi
  local mark
  mark=$(wc -l <"$dir/broker.log" 2>/dev/null || echo 0)
  nohup "$java" "${jvm[@]}" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 &
  echo $! >"$dir/broker.pid"
  for _ in $(seq 1 300); do
    if tail -n +"$((mark + 1))" "$dir/broker.log" 2>/dev/null | grep -q "Kafka Server started"; then
      echo "kafka-broker: Kafka ${cp_file:+$(basename "$(tr ':' '\n' <"$cp_file" | grep -m1 'kafka_2.13')" .jar)} on 127.0.0.1:$port (pid $(cat "$dir/broker.pid")), data in $dir"
      return 0
    fi
    if ! kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null; then
      echo "kafka-broker: the broker exited while starting; see $dir/broker.log and $dir/stdout.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "kafka-broker: not started within 60 s; see $dir/broker.log" >&2
  stop
  exit 1
}

case "$cmd" in
  fresh) stop; rm -rf "$dir"; start ;;
  start) start ;;
  stop) stop; echo "kafka-broker: stopped $dir" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
