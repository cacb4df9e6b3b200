#!/bin/sh
# build.sh OUTDIR: builds OUTDIR/cron-oracle against Debian's robfig/cron v3 in GOPATH mode.
# Exits 77 (ctest's skip code) when Go or the package is not installed.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
gopath=/usr/share/gocode
# Debian's Go (golang-go, 1.19) in GOPATH mode; the Go in /usr/local/go, first on PATH, is for
# the module-built control plane (tests/k8s) only.
PATH=/usr/lib/go/bin:$PATH
if ! command -v go >/dev/null 2>&1; then
  echo "cron-oracle: go is not installed (Debian: golang-go)" >&2; exit 77
fi
if [ ! -f "$gopath/src/github.com/robfig/cron/parser.go" ]; then
  echo "cron-oracle: robfig/cron is not installed (Debian: golang-github-robfig-cron-dev)" >&2
  exit 77
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Rebuild only when the source changed; concurrent callers each write their own temp file.
if [ ! -x "$out/cron-oracle" ] || [ "$here/main.go" -nt "$out/cron-oracle" ]; then
  tmp="$out/cron-oracle.$$"
  env GOPATH="$gopath" GO111MODULE=off GOCACHE="$out/gocache" GOENV=off GOFLAGS= CGO_ENABLED=0 \
    go build -o "$tmp" "$here/main.go"
  mv -f "$tmp" "$out/cron-oracle"
fi
