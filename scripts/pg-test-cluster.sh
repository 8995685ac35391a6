#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for the integration tests and for trying the main job on
# PostgreSQL. It is made fresh at each start and holds the databases "outbox", "outbox_crash" (for the
# crash-window suite), "outbox_kafka" (for the Kafka suite) and "outbox_contract" (for the dialect contract kit),
# owned by role "outbox" (password "outbox").
#
#   scripts/pg-test-cluster.sh start  <dir> [port] [durable]   # default port 55432
#   scripts/pg-test-cluster.sh stop   <dir>
#   scripts/pg-test-cluster.sh halt   <dir> immediate|sigkill   # a hard stop, for the database-restart drill
#   scripts/pg-test-cluster.sh resume <dir>          # starts a halted cluster again on its port, its data kept
#
# Test settings: fsync, full_page_writes and synchronous_commit are off (speed, not durability), unless "durable"
# is given: then PostgreSQL's durable defaults, which a drill that halts the database needs (with
# synchronous_commit off, an immediate shutdown loses the last commits it had acknowledged).
# max_prepared_transactions is on for consumers that use XA. wal_level is logical, so the benchmark's
# change-data-capture peer (Debezium) can decode the WAL; the superuser "postgres" (trust on loopback) owns its
# replication slot.
set -euo pipefail

usage="usage: pg-test-cluster.sh start <dir> [port] [durable] | stop|resume <dir> [port] | halt <dir> immediate|sigkill"
cmd=${1:?$usage}
dir=$(realpath -m "${2:?$usage}") # absolute: the server's socket folder (-k) must not depend on where it starts
port=${3:-55432}

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "pg-test-cluster: PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin;" \
       "install them with: apt-get install -y postgresql" >&2
  exit 1
fi

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# As root the server runs as postgres, which must be able to reach <dir>: a checkout under a private folder
# (mktemp -d makes them 0700) would stop initdb with "Permission denied". Grant search (o+x, not read) on each
# ancestor that blocks it, and say so.
grant_search_to_postgres() {
  local path="" part
  local -a parts
  IFS=/ read -r -a parts <<<"$(cd "$1/.." && pwd)"
  # From the root down, so each test runs with every parent already reachable.
  for part in "${parts[@]}"; do
    [ -z "$part" ] && continue
    path="$path/$part"
    if ! runuser -u postgres -- test -x "$path"; then
      chmod o+x "$path"
      echo "pg-test-cluster: granted search permission (o+x) on $path so that postgres reaches the cluster"
    fi
  done
}

# PG_TEST_EXPLAIN=<ms> in the environment (for a benchmark, never in CI): pg_stat_statements, and auto_explain writing
# every statement slower than <ms> with its plan, rows and buffers to <dir>/server.log (issue 44 found the two-worker
# claims' walk this way). It times every statement, so a run's figures come out lower than without it; the
# pg_stat_statements view needs CREATE EXTENSION pg_stat_statements in the database read, as superuser postgres.
diagnostics() {
  [ -n "${PG_TEST_EXPLAIN:-}" ] || return 0
  echo "-c shared_preload_libraries=pg_stat_statements,auto_explain -c pg_stat_statements.track=all" \
       "-c auto_explain.log_min_duration=$PG_TEST_EXPLAIN -c auto_explain.log_analyze=on" \
       "-c auto_explain.log_buffers=on -c auto_explain.log_nested_statements=on"
}

# The port and durability settings chosen at start are kept in the cluster's folder, so that resume uses them again.
run_server() {
  [ -f "$dir/durability" ] || { echo "pg-test-cluster: $dir was not made by this script's start" >&2; exit 1; }
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
    -o "-p $port -h 127.0.0.1 -k $dir -c max_prepared_transactions=50 -c wal_level=logical $(cat "$dir/durability") $(diagnostics)" >/dev/null
}

stop() {
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  fi
}

case "$cmd" in
  start)
    stop
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
      chown postgres:postgres "$dir"
      grant_search_to_postgres "$dir"
    fi
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log"
    echo "$port" >"$dir/port"
    if [ "${4:-}" = durable ]; then
      echo "-c fsync=on -c full_page_writes=on -c synchronous_commit=on" >"$dir/durability"
    else
      echo "-c fsync=off -c full_page_writes=off -c synchronous_commit=off" >"$dir/durability"
    fi
    run_server
    as_postgres "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres \
      -c "CREATE ROLE outbox LOGIN PASSWORD 'outbox'" -c "CREATE DATABASE outbox OWNER outbox" -c "CREATE DATABASE outbox_crash OWNER outbox" -c "CREATE DATABASE outbox_kafka OWNER outbox" -c "CREATE DATABASE outbox_contract OWNER outbox" >/dev/null
    echo "pg-test-cluster: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir ($(cat "$dir/durability"))"
    ;;
  stop)
    stop
    echo "pg-test-cluster: stopped $dir"
    ;;
  halt)
    # immediate: pg_ctl's immediate shutdown (no checkpoint, crash recovery at the next start); sigkill: the
    # postmaster killed with SIGKILL, its backends left to notice and exit.
    case "${3:?$usage}" in
      immediate) as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null ;;
      sigkill)
        [ -f "$dir/data/postmaster.pid" ] || { echo "pg-test-cluster: no server running in $dir" >&2; exit 1; }
        kill -9 "$(head -n 1 "$dir/data/postmaster.pid")" ;;
      *) echo "$usage" >&2; exit 2 ;;
    esac
    echo "pg-test-cluster: halted $dir ($3)"
    ;;
  resume)
    port=$(cat "$dir/port")
    # After a SIGKILL the old backends may hold the shared memory for a moment: try again until they are gone.
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
      if run_server 2>/dev/null; then
        echo "pg-test-cluster: resumed $dir on 127.0.0.1:$port"
        exit 0
      fi
      sleep 1
    done
    echo "pg-test-cluster: could not start $dir again; see $dir/server.log" >&2
    exit 1
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
