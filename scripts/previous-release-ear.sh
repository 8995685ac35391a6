#!/usr/bin/env bash
# Builds the example EAR of an earlier commit of this repository, for the rolling upgrade test (R8.4):
#   previous-release-ear.sh <commit> <out.ear> [offline=true|false]
# The commit's tree is exported with git archive (no worktree, nothing installed into the local Maven repository)
# and packaged without its tests. Older trees built the EAR in liberty-config, newer ones in example-ear.
set -euo pipefail

ref=${1:?usage: previous-release-ear.sh <commit> <out.ear> [offline]}
out=${2:?usage: previous-release-ear.sh <commit> <out.ear> [offline]}
offline=${3:-offline=false}
root=$(cd "$(dirname "$0")/.." && pwd)

if [ -f "$out" ] && [ "$(cat "$out.commit" 2>/dev/null)" = "$ref" ]; then
  echo "previous-release-ear: $out is already the EAR of $ref"
  exit 0
fi
if ! git -C "$root" cat-file -e "$ref^{commit}" 2>/dev/null; then
  echo "previous-release-ear: commit $ref is not in this clone ($root); the rolling upgrade test needs the" \
       "previous release's sources: clone with history (not --depth), or name another commit with" \
       "-Dit.upgrade.previous=<commit>" >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
src=$(dirname "$out")/previous-release-src
rm -rf "$src"
mkdir -p "$src"
git -C "$root" archive "$ref" | tar -x -C "$src"
module=example-ear
[ -f "$src/example-ear/pom.xml" ] || module=liberty-config

flags=(-B -q -Dmaven.test.skip=true)
[ "$offline" = offline=true ] && flags+=(-o)
echo "previous-release-ear: building $module of $ref"
(cd "$src" && mvn "${flags[@]}" package -pl "$module" -am)
ear=$(ls "$src/$module"/target/*.ear)
cp "$ear" "$out"
echo "$ref" > "$out.commit"
rm -rf "$src"
echo "previous-release-ear: $out built from $ref ($module)"
