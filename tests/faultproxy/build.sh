#!/bin/sh
# build.sh OUTDIR: builds the fault-injecting proxy with Debian's Go (standard library only).
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
# Debian's Go (golang-go, 1.19) in GOPATH mode; the Go in /usr/local/go, first on PATH, is for
# the module-built control plane (tests/k8s) only.
PATH=/usr/lib/go/bin:$PATH
command -v go >/dev/null || { echo "go is missing (Debian package golang-go)" >&2; exit 77; }
mkdir -p "$out/gocache"
if [ ! -x "$out/faultproxy" ] || [ "$here/main.go" -nt "$out/faultproxy" ]; then
  GOCACHE="$out/gocache" GO111MODULE=off CGO_ENABLED=0 HOME="$out" go build -o "$out/faultproxy" "$here/main.go"
fi
