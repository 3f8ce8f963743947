#!/bin/sh
# Compiler launcher for the header-isolation objects (tests/CMakeLists.txt): runs the compile
# command it is given with -fsyntax-only (the header is parsed, its templates instantiated and its
# warnings reported, but no code is generated), then leaves an empty file where the command's
# -o names the object, so that the build tool sees the object as built.
out=
prev=
for arg in "$@"; do
  [ "$prev" = "-o" ] && out=$arg
  prev=$arg
done
"$@" -fsyntax-only || exit $?
if [ -n "$out" ]; then : > "$out"; fi
