#!/usr/bin/env bash
# Brings Catch2 v3's sources, pinned, into $GAUGE_CATCH2_V3_DIR (default
# .deps-src/catch2-<version>/, which git ignores), so that the tests build gauge's Catch2 matchers
# against v3 as well as against the installed v2 (Debian 12 packages only v2). Nothing is
# downloaded at test time. scripts/install-deps.sh --for test runs it; it needs no root.
#
# Where from: Debian 13's (trixie) source package catch2 $GAUGE_CATCH2_V3_VERSION (scripts/env.sh),
# through apt, with a temporary apt configuration: one deb-src entry for trixie on the Debian
# mirror this machine already uses (read from /etc/apt/sources.list and sources.list.d at run time).
# apt checks the files against trixie's signed index, this script checks the .dsc against the
# SHA-256 pinned below, and dpkg-source checks the tarballs against the .dsc and applies Debian's
# patches. To move to another version: change GAUGE_CATCH2_V3_VERSION and dsc_sha256 together
# (apt-get source --download-only catch2=<version> prints the .dsc; sha256sum it).
set -euo pipefail
source "$(dirname "$0")/env.sh"

version=$GAUGE_CATCH2_V3_VERSION
suite=trixie
dsc=catch2_$version.dsc
dsc_sha256=079a606b35c0d8ee4c2f2cab573bbfeea42933ab201f9993ba930348a8cb27ea
dest=$GAUGE_CATCH2_V3_DIR
stamp="catch2 $version $dsc_sha256"

fail() {
  echo "gauge: cannot bring Catch2 $version's sources into $dest: $*" >&2
  exit 1
}

if [ -f "$dest/.gauge-source" ] && [ "$(cat "$dest/.gauge-source")" = "$stamp" ]; then
  echo "gauge: Catch2 v3 sources: $dest (catch2 $version, there already)"
  exit 0
fi
for tool in apt-get apt-cache dpkg-source sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing (scripts/install-deps.sh --for test installs dpkg-dev)"
done
[ -r /etc/os-release ] || fail "no /etc/os-release: this script needs Debian"
# shellcheck disable=SC1091
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
os_id=$(. /etc/os-release && echo "${ID:-}")
[ "$os_id" = debian ] && [ -n "$codename" ] ||
  fail "this is ${os_id:-an unknown system} ${codename}, not Debian: the source package comes from Debian's archive.
  Unpack a Catch2 v3 source tree (with extras/catch_amalgamated.cpp) and pass it to CMake as
  -DGAUGE_CATCH2_V3_SOURCE_DIR=<folder> instead, or set GAUGE_CATCH2_V3_DIR=<folder> for scripts/test.sh."

# The mirror (and its keyring, where the entry names one) that serves this machine's release: the
# first enabled "deb" entry whose suite is exactly $codename, in one-line or deb822 format.
find_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    awk -v suite="$codename" '
      $1 == "deb" {
        i = 2; opts = ""
        if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) { opts = opts " " $i; i++ }; opts = opts " " $i; i++ }
        if ($(i + 1) == suite) {
          key = ""
          if (match(opts, /signed-by=[^] ]+/)) key = substr(opts, RSTART + 10, RLENGTH - 10)
          print $i "\t" key; exit
        }
      }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk -v suite="$codename" '
      function flush() {
        if (!done && enabled != "no" && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " suite " ") && uris != "") {
          split(uris, u, " "); print u[1] "\t" key; done = 1
        }
        types = suites = uris = key = enabled = ""
      }
      /^#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[A-Za-z-]+:/ {
        field = tolower(substr($0, 1, index($0, ":") - 1)); value = substr($0, index($0, ":") + 1)
        gsub(/^[ \t]+|[ \t]+$/, "", value)
        if (field == "types") types = value; else if (field == "suites") suites = value
        else if (field == "uris") uris = value; else if (field == "enabled") enabled = tolower(value)
        else if (field == "signed-by" && value ~ /^\//) key = value
      }
      END { flush() }' "$f"
  done
}
mirror=$(find_mirror | head -n 1)
[ -n "$mirror" ] || fail "no enabled 'deb' entry for suite $codename in /etc/apt/sources.list or /etc/apt/sources.list.d/"
uri=${mirror%%$'\t'*}
keyring=${mirror#*$'\t'}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/sources.list.d" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/download"
{
  echo "Types: deb-src"
  echo "URIs: $uri"
  echo "Suites: $suite"
  echo "Components: main"
  if [ -n "$keyring" ]; then echo "Signed-By: $keyring"; fi
} > "$tmp/sources.list.d/gauge-catch2-v3.sources"
# As root, apt downloads as its unprivileged user _apt: let it write the download folder.
if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$tmp/download"; fi
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$tmp/sources.list.d"
          -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -q)

echo "gauge: fetching Debian's source package catch2 $version ($suite, from $uri) into $dest"
apt-get "${apt_opts[@]}" update || fail "apt-get update of $suite's source index (deb-src $uri $suite main) failed: see above"
available=$(apt-cache "${apt_opts[@]}" showsrc catch2 | sed -n 's/^Version: //p' | sort -u | tr '\n' ' ')
available=${available% }
case " $available " in
  *" $version "*) ;;
  *) fail "$suite has no catch2 $version any more (it has: ${available:-none}): pin another version and its .dsc's SHA-256 in scripts/env.sh and $0" ;;
esac
(cd "$tmp/download" && apt-get "${apt_opts[@]}" source --download-only "catch2=$version") ||
  fail "apt-get source --download-only catch2=$version failed: see above"
echo "$dsc_sha256  $tmp/download/$dsc" | sha256sum --check --quiet - ||
  fail "$dsc does not have the pinned SHA-256 $dsc_sha256"
# dpkg-source checks the tarballs against the .dsc and applies Debian's patches. It cannot check
# the uploader's OpenPGP signature without the debian-keyring package and may warn about that: the
# files were already checked against the archive's signed index (apt) and the pin (above).
rm -rf "$dest.partial"
mkdir -p "$(dirname "$dest")"
dpkg-source --no-copy --require-strong-checksums -x "$tmp/download/$dsc" "$dest.partial" ||
  fail "dpkg-source -x $dsc failed: see above"
[ -f "$dest.partial/extras/catch_amalgamated.cpp" ] || fail "the source package has no extras/catch_amalgamated.cpp"
echo "$stamp" > "$dest.partial/.gauge-source"
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "gauge: Catch2 v3 sources: $dest (catch2 $version)"
