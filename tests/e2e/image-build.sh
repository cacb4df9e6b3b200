#!/usr/bin/env bash
# tests/e2e/image-build.sh [TAG]: builds the container image (Dockerfile) with podman as
# e2e/image does — from a bookworm base made by mmdebstrap from Debian's packages (no registry is
# reachable), OCI format, chroot isolation, nothing pulled — into the layer store under
# ${XDG_CACHE_HOME:-~/.cache}/cronwarden/image, tagged TAG (default localhost/cronwarden:e2e).
# scripts/test runs it in the background from its first second, so that e2e/image finds the base
# and the build stage's packages made; the scenario runs it again (layers cached: seconds).
# A lock lets one build run at a time. Exit 0 built, 77 this machine cannot (the reason on
# stderr: no podman or mmdebstrap, no Debian mirror, podman not allowed to build here), 1 the
# image did not build (the end of the build log on stderr). The log: $CW_IMAGE_BUILD_LOG, else
# beside the store.
set -euo pipefail
tag=${1:-localhost/cronwarden:e2e}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf 'image-build: %s\n' "$*" >&2; }
command -v podman >/dev/null && command -v mmdebstrap >/dev/null ||
  { log "podman or mmdebstrap is not installed (scripts/test installs both)"; exit 77; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden/image
mkdir -p "$cache"
run=$(mktemp -d "${TMPDIR:-/tmp}/cw-image-run.XXXXXX")
trap 'rm -rf "$run"' EXIT
export CONTAINERS_STORAGE_CONF=$run/storage.conf
printf '[storage]\ndriver = "vfs"\ngraphroot = "%s"\nrunroot = "%s"\n' "$cache/storage" "$run/podman-run" \
  > "$CONTAINERS_STORAGE_CONF"
pod() { podman --log-level=error "$@"; }
build_log=${CW_IMAGE_BUILD_LOG:-$cache/build.log}

exec 9>"$cache/.lock"
flock -n 9 || { log "another image build is running; waiting for it"; flock 9; }
if ! pod image exists localhost/debian:bookworm; then
  if [ ! -s "$cache/bookworm-minbase.tar" ]; then
    log "making the bookworm base with mmdebstrap (once per machine)"
    mmdebstrap --variant=minbase --format=tar --quiet bookworm "$cache/bookworm-minbase.tar.part" >&2 ||
      { log "mmdebstrap could not make a bookworm root (no Debian mirror?)"; exit 77; }
    mv "$cache/bookworm-minbase.tar.part" "$cache/bookworm-minbase.tar"
  fi
  pod import "$cache/bookworm-minbase.tar" localhost/debian:bookworm >/dev/null
fi
t0=$(date +%s)
if ! pod build --isolation chroot --pull=never -t "$tag" "$src" > "$build_log" 2>&1; then
  if grep -qi 'setrlimit\|operation not permitted\|cannot clone' "$build_log"; then
    log "podman cannot build on this machine: $(tail -1 "$build_log")"; exit 77
  fi
  log "the image did not build:"; tail -20 "$build_log" >&2; exit 1
fi
# The build stage's image is tagged too (the last "--> ID" before the second stage's steps): the
# older builds' layers are then all that is untagged, and the prune drops them. The vfs driver
# stores every layer as a whole copy of its root, so each build of a changed tree adds about 2 GB
# that nothing would use again (31 GB seen after a few weeks of test runs). An untagged image
# whose child went in one pass is dangling in the next.
stage=$(awk '/^\[2\/2\]/ { print id; exit } /^--> [0-9a-f]+$/ { id = $2 }' "$build_log")
if [ -n "$stage" ] && pod tag "$stage" "$tag-build" 2>>"$build_log"; then
  for _ in 1 2 3 4 5 6; do
    [ -n "$(pod image prune -f 2>>"$build_log")" ] || break
  done
fi
log "built $tag in $(($(date +%s) - t0))s; store $(du -sh "$cache/storage" 2>/dev/null | cut -f1) (log: $build_log)"
