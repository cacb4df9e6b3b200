#!/bin/sh
# build.sh OUTDIR: builds the fault-injecting proxy with Debian's Go (standard library only).
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || { echo "go is missing (Debian package golang-go)" >&2; exit 77; }
mkdir -p "$out/gocache"
if [ ! -x "$out/faultproxy" ] || [ "$here/main.go" -nt "$out/faultproxy" ]; then
  GOCACHE="$out/gocache" GO111MODULE=off CGO_ENABLED=0 HOME="$out" go build -o "$out/faultproxy" "$here/main.go"
fi
