#!/usr/bin/env bash
# Builds the example EAR of an earlier commit of this repository, for the rolling upgrade test (R8.4):
#   previous-release-ear.sh <commit> <out.ear> [offline=true|false] [skip=<true|false>[,<true|false>...]]
# The commit's tree is exported with git archive (no worktree, nothing installed into the local Maven repository)
# and packaged without its tests, by the Maven that runs the build (MVN) with its local repository (MAVEN_REPO).
# Older trees built the EAR in liberty-config, newer ones in example-ear. Next to the EAR it writes the commit
# (<out.ear>.commit, so a second build reuses the EAR) and the newest schema version of that tree (<out.ear>.schema).
set -euo pipefail

ref=${1:?usage: previous-release-ear.sh <commit> <out.ear> [offline=true|false] [skip=...]}
out=${2:?usage: previous-release-ear.sh <commit> <out.ear> [offline=true|false] [skip=...]}
offline=${3:-offline=false}
skip=${4:-skip=false}
root=$(cd "$(dirname "$0")/.." && pwd)
mvn=${MVN:-mvn}

# skip=a,b: skipped only when every run that uses the EAR is skipped (no item is false)
case ",${skip#skip=}," in
  *,false,*) ;;
  *) echo "previous-release-ear: skipped ($skip)"; exit 0 ;;
esac
if [ -f "$out" ] && [ -f "$out.schema" ] && [ "$(cat "$out.commit" 2>/dev/null)" = "$ref" ]; then
  echo "previous-release-ear: $out is already the EAR of $ref"
  exit 0
fi
if ! git -C "$root" cat-file -e "$ref^{commit}"; then
  echo "previous-release-ear: commit $ref is not readable in $root (a clone without history? git's own message is" \
       "above); the rolling upgrade test needs the previous release's sources: clone with history (not --depth)," \
       "or leave the PostgreSQL and MariaDB runs out with -Dit.skip.postgresql=true -Dit.skip.mariadb=true" >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
rm -f "$out" "$out.commit" "$out.schema"
src=$(dirname "$out")/previous-release-src
trap 'rm -rf "$src"' EXIT
rm -rf "$src"
mkdir -p "$src"
git -C "$root" archive "$ref" | tar -x -C "$src"
module=example-ear
[ -f "$src/example-ear/pom.xml" ] || module=liberty-config

flags=(-B -q -Dmaven.test.skip=true)
[ "$offline" = offline=true ] && flags+=(-o)
[ -n "${MAVEN_REPO:-}" ] && flags+=("-Dmaven.repo.local=$MAVEN_REPO")
echo "previous-release-ear: building $module of $ref"
(cd "$src" && "$mvn" "${flags[@]}" package -pl "$module" -am)
schema=$(ls "$src"/outbox-jpa/src/main/resources/META-INF/outbox/sql/postgresql/ | sed -n 's/^V\([0-9]*\)__.*/\1/p' \
  | sort -n | tail -1)
cp "$(ls "$src/$module"/target/*.ear)" "$out.tmp"
mv "$out.tmp" "$out"
echo "$schema" > "$out.schema"
echo "$ref" > "$out.commit"
echo "previous-release-ear: $out built from $ref ($module, schema V$schema)"
