#!/usr/bin/env bash
# Configures an unpacked WildFly from the versioned CLI scripts (wildfly-config/src/main/cli), offline
# (embed-server), starting each time from the distribution's own standalone-full.xml, so a re-run never meets
# its own earlier changes.
#
#   scripts/wildfly-configure.sh <wildfly-home> <script.cli>... [-Dname=value ...] [--user name:password:group[,group]]...
#
# -D arguments go to every CLI script (postgresql.cli needs -Dpostgresql.jar=<path of the driver jar>).
# --user adds a user of the ApplicationRealm (bin/add-user.sh) whose groups are the roles the admin API asks
# for (outbox-operator, outbox-approver); the users files, too, start from the distribution's each time.
set -euo pipefail

home=${1:?usage: wildfly-configure.sh <wildfly-home> <script.cli>... [-Dname=value ...] [--user name:password:groups]...}
shift
conf=$home/standalone/configuration
for file in standalone-full.xml application-users.properties application-roles.properties; do
  if [ ! -f "$conf/$file.pristine" ]; then
    cp "$conf/$file" "$conf/$file.pristine"
  fi
  cp "$conf/$file.pristine" "$conf/$file"
done
rm -rf "$home/modules/org/postgresql" "$conf/standalone_xml_history"

props=()
scripts=()
users=()
while [ $# -gt 0 ]; do
  case $1 in
    -D*) props+=("$1") ;;
    --user) users+=("${2:?--user needs name:password:groups}"); shift ;;
    *) scripts+=("$1") ;;
  esac
  shift
done

for script in "${scripts[@]}"; do
  log=$home/configure-$(basename "$script" .cli).log
  if ! "$home/bin/jboss-cli.sh" "${props[@]}" --file="$script" >"$log" 2>&1; then
    echo "wildfly-configure: $script failed; its output ($log):" >&2
    grep -v ' INFO ' "$log" >&2 || true
    exit 1
  fi
  echo "wildfly-configure: applied $(basename "$script") to $home"
done

for user in "${users[@]}"; do
  IFS=: read -r name password groups <<<"$user"
  "$home/bin/add-user.sh" -s -a -u "$name" -p "$password" -g "$groups" >/dev/null
  echo "wildfly-configure: application user $name in $groups"
done
