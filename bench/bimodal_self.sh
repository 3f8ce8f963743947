#!/usr/bin/env bash
# A bimodal host step against its own baseline, through this tree's rules and another's on the
# same reports (bench/bimodal_self.cpp):
#   bash bench/bimodal_self.sh [OLD_INCLUDE_DIR]
# Shares 0.05 0.08 0.1 0.12 0.2 0.3 0.5, six quick runs each (~3 s a share); prints one line a share.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
old=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cxx=(g++ -std=c++17 -O2 -DGAUGE_NO_CUDA)
"${cxx[@]}" -I"$root/include" "$here/bimodal_self.cpp" -o "$tmp/new" -lfmt -ldl -pthread
[ -n "$old" ] && "${cxx[@]}" -I"$old" "$here/bimodal_self.cpp" -o "$tmp/old" -lfmt -ldl -pthread
for s in 0.05 0.08 0.1 0.12 0.2 0.3 0.5; do
  "$tmp/new" gen "$s" 6 "$tmp/s$s-"
  line="share $s: this tree $("$tmp/new" check "$tmp/s$s-"*.json)"
  [ -n "$old" ] && line="$line; old tree $("$tmp/old" check "$tmp/s$s-"*.json)"
  echo "$line"
done
