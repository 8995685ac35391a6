#!/usr/bin/env bash
# A throwaway MariaDB server on loopback, for the integration tests and for trying the outbox on MariaDB. It is
# made fresh at each start (never the system service, never its data) and holds the databases "outbox",
# "outbox_crash", "outbox_kafka" and "outbox_contract" (for the dialect contract), with user "outbox" (password
# "outbox").
#
#   scripts/mariadb-test-instance.sh start  <dir> [port] [durable]   # default port 53306
#   scripts/mariadb-test-instance.sh stop   <dir>
#   scripts/mariadb-test-instance.sh halt   <dir> [sigkill]   # SIGKILL of the server, for the database-restart drill
#   scripts/mariadb-test-instance.sh resume <dir>   # starts a halted server again on its port, its data kept
#
# Test settings: the redo log is flushed once a second, not at each commit (speed, not durability), unless "durable"
# is given: then it is flushed at each commit, MariaDB's durable default, which a drill that halts the server needs
# (otherwise it loses the last second of acknowledged commits). The server's time zone is UTC, as the outbox's
# MariaDB dialect requires of every session (docs/settings.md).
set -euo pipefail
usage="usage: mariadb-test-instance.sh start <dir> [port] [durable] | stop|resume <dir> | halt <dir> [sigkill]"
cmd=${1:?$usage}
dir=${2:?$usage}
port=${3:-53306}

if ! command -v mariadbd >/dev/null && [ ! -x /usr/sbin/mariadbd ]; then
  echo "mariadb-test-instance: mariadbd not found; install it with: apt-get install -y mariadb-server" >&2
  exit 1
fi
server=$(command -v mariadbd || echo /usr/sbin/mariadbd)

# As root the server runs as mysql, which must be able to reach <dir>: grant search (o+x, not read) on each
# ancestor that blocks it, and say so.
grant_search_to_mysql() {
  local path="" part
  local -a parts
  IFS=/ read -r -a parts <<<"$(cd "$1/.." && pwd)"
  for part in "${parts[@]}"; do
    [ -z "$part" ] && continue
    path="$path/$part"
    if ! runuser -u mysql -- test -x "$path"; then
      chmod o+x "$path"
      echo "mariadb-test-instance: granted search permission (o+x) on $path so that mysql reaches the data"
    fi
  done
}

# The port and durability chosen at start are kept in the server's folder, so that resume uses them again.
run_server() {
  [ -f "$dir/flush-at-commit" ] || { echo "mariadb-test-instance: $dir was not made by this script's start" >&2; exit 1; }
  local user_option=()
  [ "$(id -u)" = 0 ] && user_option=(--user=mysql)
  setsid "$server" --no-defaults --datadir="$dir/data" "${user_option[@]}" --port="$(cat "$dir/port")" \
    --bind-address=127.0.0.1 --socket="$dir/mariadbd.sock" --pid-file="$dir/mariadbd.pid" \
    --log-error="$dir/server.log" --default-time-zone=+00:00 --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_unicode_ci --innodb-flush-log-at-trx-commit="$(cat "$dir/flush-at-commit")" \
    --skip-log-bin --max-connections=300 </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 120); do
    if mariadb-admin --no-defaults --socket="$dir/mariadbd.sock" -u root ping >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.5
  done
  echo "mariadb-test-instance: the server in $dir did not answer within 60 s; see $dir/server.log" >&2
  exit 1
}

stop() {
  if [ -f "$dir/mariadbd.pid" ]; then
    local pid
    pid=$(cat "$dir/mariadbd.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/mariadbd.pid"
  fi
}

case "$cmd" in
  start)
    stop
    rm -rf "$dir"
    mkdir -p "$dir/data"
    user_option=()
    if [ "$(id -u)" = 0 ]; then
      chown -R mysql:mysql "$dir"
      grant_search_to_mysql "$dir"
      user_option=(--user=mysql)
    fi
    mariadb-install-db --no-defaults --datadir="$dir/data" "${user_option[@]}" --skip-test-db \
      --auth-root-authentication-method=normal >"$dir/install.log" 2>&1
    echo "$port" >"$dir/port"
    if [ "${4:-}" = durable ]; then echo 1 >"$dir/flush-at-commit"; else echo 2 >"$dir/flush-at-commit"; fi
    run_server
    mariadb --no-defaults --socket="$dir/mariadbd.sock" -u root -e "
      CREATE USER 'outbox'@'%' IDENTIFIED BY 'outbox';
      CREATE USER 'outbox'@'localhost' IDENTIFIED BY 'outbox';
      GRANT ALL PRIVILEGES ON *.* TO 'outbox'@'%';
      GRANT ALL PRIVILEGES ON *.* TO 'outbox'@'localhost';
      CREATE DATABASE outbox; CREATE DATABASE outbox_crash; CREATE DATABASE outbox_kafka;
      CREATE DATABASE outbox_contract;"
    echo "mariadb-test-instance: MariaDB $("$server" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir"
    ;;
  stop)
    stop
    echo "mariadb-test-instance: stopped $dir"
    ;;
  halt)
    # MariaDB has no immediate shutdown mode: SIGKILL is the hard stop (InnoDB crash recovery at the next start).
    [ "${3:-sigkill}" = sigkill ] || { echo "$usage" >&2; exit 2; }
    [ -f "$dir/mariadbd.pid" ] || { echo "mariadb-test-instance: no server running in $dir" >&2; exit 1; }
    pid=$(cat "$dir/mariadbd.pid")
    kill -9 "$pid"
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "mariadb-test-instance: the server in $dir (pid $pid) is still alive 10 s after SIGKILL" >&2
      exit 1
    fi
    # A stale pid file would make a later stop signal whatever process has that pid by then.
    rm -f "$dir/mariadbd.pid"
    echo "mariadb-test-instance: halted $dir (sigkill)"
    ;;
  resume)
    run_server
    echo "mariadb-test-instance: resumed $dir on 127.0.0.1:$(cat "$dir/port")"
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
