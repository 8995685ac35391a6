#!/usr/bin/env bash
# Configures an unpacked WildFly from the versioned CLI scripts (wildfly-config/src/main/cli), offline
# (embed-server), starting each time from the distribution's own standalone-full.xml, so a re-run never meets
# its own earlier changes.
#
#   scripts/wildfly-configure.sh <wildfly-home> <script.cli>... [-Dname=value ...]
#
# -D arguments go to every CLI script (postgresql.cli needs -Dpostgresql.jar=<path of the driver jar>).
set -euo pipefail

home=${1:?usage: wildfly-configure.sh <wildfly-home> <script.cli>... [-Dname=value ...]}
shift
conf=$home/standalone/configuration
if [ ! -f "$conf/standalone-full.xml.pristine" ]; then
  cp "$conf/standalone-full.xml" "$conf/standalone-full.xml.pristine"
fi
cp "$conf/standalone-full.xml.pristine" "$conf/standalone-full.xml"
rm -rf "$home/modules/org/postgresql" "$conf/standalone_xml_history"

props=()
scripts=()
for arg in "$@"; do
  case $arg in
    -D*) props+=("$arg") ;;
    *) scripts+=("$arg") ;;
  esac
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
