#!/usr/bin/env bash
# Real Kafka brokers (KRaft, each node broker and controller in one JVM) on loopback, from the Kafka jars on Maven
# Central (module kafka-test-broker). For the integration tests and for the README's Kafka mode.
#
#   scripts/kafka-broker.sh fresh <dir> [port] [nodes]  # wipe <dir>, format, start (default port 9092, one node)
#   scripts/kafka-broker.sh start <dir> [port] [nodes]  # start the nodes not running, on the data already in <dir>
#   scripts/kafka-broker.sh stop  <dir>                 # SIGTERM every node, wait until the JVMs have gone
#
# One node: data in <dir>, the controller on port+1. A cluster of N nodes (N >= 3): node i in <dir>/node-i, its
# broker on port+2(i-1) and its controller on the port after, every internal topic replicated 3 times and
# min.insync.replicas=2, the settings docs/settings.md asks of a production cluster. Each node's pid is in its
# folder's broker.pid, so a test can SIGKILL one and start it again with `start`.
# Needs the classpath file: mvn -pl kafka-test-broker generate-resources.
set -euo pipefail

usage="usage: kafka-broker.sh fresh|start|stop <dir> [port] [nodes]"
cmd=${1:?$usage}
root_dir=${2:?$usage}
base_port=${3:-9092}
nodes=${4:-1}
if [ "$nodes" -ne 1 ] && [ "$nodes" -lt 3 ]; then
  echo "kafka-broker: a cluster has 3 nodes or more (its internal topics are replicated 3 times), not $nodes" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
cp_file="$here/kafka-test-broker/target/broker-classpath.txt"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java

running_pid() {
  if [ -f "$dir/broker.pid" ]; then
    local pid
    pid=$(cat "$dir/broker.pid")
    # A SIGKILLed JVM nobody has reaped yet is a zombie: gone for our purposes
    if kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
      echo "$pid"
    fi
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

# Node $1 of the cluster: sets dir, node, port, cport.
node_at() {
  node=$1
  if [ "$nodes" -eq 1 ]; then
    dir=$root_dir
  else
    dir=$root_dir/node-$node
  fi
  port=$((base_port + 2 * (node - 1)))
  cport=$((port + 1))
}

# Writes the node's configuration and launches its JVM (formatting its folder first if new); sets mark.
launch() {
  mkdir -p "$dir/logs"
  local quorum replicas rebalance=true
  if [ "$nodes" -eq 1 ]; then
    quorum="controller.quorum.bootstrap.servers=127.0.0.1:$cport"
    replicas=1
  else
    # Leaderships stay where a failover put them, so a test names the leader it kills and it stays so
    rebalance=false
    quorum="controller.quorum.voters=$(for i in $(seq 1 "$nodes"); do
      printf '%s%s@127.0.0.1:%s' "$([ "$i" -gt 1 ] && echo ,)" "$i" $((base_port + 2 * (i - 1) + 1)); done)"
    replicas=3
  fi
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=$node
$quorum
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/logs
num.partitions=3
auto.create.topics.enable=true
default.replication.factor=$replicas
min.insync.replicas=$(( replicas > 1 ? 2 : 1 ))
unclean.leader.election.enable=false
auto.leader.rebalance.enable=$rebalance
offsets.topic.replication.factor=$replicas
transaction.state.log.replication.factor=$replicas
transaction.state.log.min.isr=$(( replicas > 1 ? 2 : 1 ))
share.coordinator.state.topic.replication.factor=$replicas
share.coordinator.state.topic.min.isr=$(( replicas > 1 ? 2 : 1 ))
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
    # One cluster id for every node of the cluster
    if [ ! -s "$root_dir/cluster.id" ]; then
      "$java" "${jvm[@]}" kafka.tools.StorageTool random-uuid >"$root_dir/cluster.id.new"
      mv "$root_dir/cluster.id.new" "$root_dir/cluster.id"
    fi
    local standalone=()
    [ "$nodes" -eq 1 ] && standalone=(--standalone)
    "$java" "${jvm[@]}" kafka.tools.StorageTool format "${standalone[@]}" --ignore-formatted \
      -t "$(cat "$root_dir/cluster.id")" -c "$dir/server.properties" >"$dir/format.log" 2>&1
  fi
  mark=$(wc -l <"$dir/broker.log" 2>/dev/null || echo 0)
  nohup "$java" "${jvm[@]}" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 &
  echo $! >"$dir/broker.pid"
}

# Waits until the node launched last (dir, mark) says it started.
await_started() {
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
  stop_all
  exit 1
}

# Launches every node that is not running, then waits for each: a cluster's nodes need each other's quorum to start.
start_all() {
  if [ ! -f "$cp_file" ]; then
    echo "kafka-broker: $cp_file is missing; run: mvn -B -pl kafka-test-broker generate-resources" >&2
    exit 1
  fi
  mkdir -p "$root_dir"
  local launched=() marks=() i
  for i in $(seq 1 "$nodes"); do
    node_at "$i"
    if [ -n "$(running_pid || true)" ]; then
      if [ "$nodes" -eq 1 ]; then
        echo "kafka-broker: already running (pid $(running_pid)) in $dir" >&2
        exit 1
      fi
      continue
    fi
    launch
    launched+=("$i")
    marks+=("$mark")
  done
  for i in "${!launched[@]}"; do
    node_at "${launched[$i]}"
    mark=${marks[$i]}
    await_started
  done
}

# Every node folder under root_dir: the single node's own, or node-1..node-N.
stop_all() {
  local d
  for d in "$root_dir" "$root_dir"/node-*; do
    if [ -d "$d" ]; then
      dir=$d
      stop
    fi
  done
}

case "$cmd" in
  fresh) stop_all; rm -rf "$root_dir"; start_all ;;
  start) start_all ;;
  stop) stop_all; echo "kafka-broker: stopped $root_dir" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
