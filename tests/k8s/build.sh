#!/usr/bin/env bash
# tests/k8s/build.sh [control-plane|helm]: builds the current Kubernetes control plane of the e2e
# tests (kube-apiserver, kube-controller-manager, kubectl, etcd) and helm from the Go modules
# pinned in tests/k8s/go.mod, once, and caches them keyed by the pins. Prints the cache directory
# on stdout (the same for both arguments: helm is built with the control plane, in one `go build`
# whose packages the two share — client-go, apimachinery, kubectl's libraries); progress goes to
# stderr.
#
# The cache is ${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden/<what>-<version>-<hash of the pins and
# this recipe>/; a changed go.mod, go.sum or recipe builds anew, later runs return at once. Go comes
# from the Go module proxy's toolchain in /usr/local/go (Go >= the go.mod's; never downloaded:
# GOTOOLCHAIN=local), the modules from the proxy through the go.sum committed beside go.mod.
# A cold build takes about 8 minutes on the project's 2-core machine (15 on the one before; tests/README.md).
set -euo pipefail
{
what=${1:-control-plane}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log() { printf 'build-k8s-current: %s\n' "$*" >&2; }
t0=$(date +%s)
elapsed() { local s=$(( $(date +%s) - t0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# Bump when the recipe changes what the binaries do.
RECIPE="r3 trimpath, version stamped, CGO off, helm beside the control plane, no inlining outside std"

case $what in
  control-plane | helm) mod=$here; label=kube-current ;;
  *) log "usage: build.sh [control-plane|helm]"; exit 2 ;;
esac

# The toolchain: the newest go among /usr/local/go and PATH; the go.mod's go line is the floor.
gonum() { sed -n 's/^\(go\)\{0,1\}\([0-9]*\)\.\([0-9]*\).*/\2 \3/p' | awk '{print $1 * 1000 + $2}'; }
pick_go() {
  local g best='' bestv=0 v need
  for g in /usr/local/go/bin/go "$(command -v go 2>/dev/null || true)"; do
    [ -x "$g" ] || continue
    v=$(GOTOOLCHAIN=local "$g" env GOVERSION 2>/dev/null | gonum)
    [ -n "$v" ] && [ "$v" -gt "$bestv" ] && { best=$g; bestv=$v; }
  done
  need=$(awk '/^go /{print $2}' "$mod/go.mod" | gonum)
  if [ -z "$best" ] || [ "$bestv" -lt "$need" ]; then
    log "needs Go >= $(awk '/^go /{print $2}' "$mod/go.mod") (the toolchain in /usr/local/go); found ${best:-none}"
    exit 1
  fi
  printf '%s\n' "$best"
}
GO=$(pick_go)
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0

key=$( { cat "$mod/go.mod" "$mod/go.sum" "$mod/etcd/main.go"; echo "$RECIPE";
         "$GO" env GOVERSION; } | sha256sum | cut -c1-12)
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden
bins=(kube-apiserver kube-controller-manager kubectl etcd helm)

cache_ok() {
  local d=$1 b
  for b in "${bins[@]}"; do [ -x "$d/$b" ] || return 1; done
  [ -f "$d/DONE" ]
}
# The directory name needs the version, which needs the module graph: read it from go.mod first
# (no network), so that a warm cache answers at once.
ver=$(awk '$1=="k8s.io/kubernetes"{print $2}' "$mod/go.mod")
helm_ver=$(awk '$1=="helm.sh/helm/v4"{print $2}' "$mod/go.mod")
[ -n "$ver" ] && [ -n "$helm_ver" ] || { log "no version of Kubernetes or helm pinned in $mod/go.mod"; exit 1; }
out="$cache_root/$label-$ver-$key"
if cache_ok "$out"; then echo "$out"; exit 0; fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.build-$label.lock"
if ! flock -n 9; then
  log "another build of $label is running; waiting for it (lock $cache_root/.build-$label.lock)"
  flock 9
fi
if cache_ok "$out"; then log "built meanwhile by another run"; echo "$out"; exit 0; fi

log "building $label $ver with $("$GO" env GOVERSION) from the modules pinned in ${mod#"$here/../../"}/go.mod"
log "into $out (one-off; a heartbeat follows every minute)"
( while sleep 60 </dev/null >/dev/null 2>&1; do log "still building $label ($(elapsed))"; done ) &
heartbeat=$!
trap 'kill "$heartbeat" 2>/dev/null || true' EXIT

rm -rf "$out.tmp"; mkdir -p "$out.tmp"
build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# What `make` stamps into a release: the apiserver's /version, kubectl's client version and
# every version check (helm's kubeVersion, kubectl's skew warning) read these; helm's own likewise.
minor=$(printf '%s' "$ver" | cut -d. -f2)
stamp=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  stamp+=" -X $p.gitVersion=$ver -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  stamp+=" -X $p.gitTreeState=clean -X $p.buildDate=$build_date -X $p.gitCommit=module-$ver"
done
stamp+=" -X helm.sh/helm/v4/internal/version.version=$helm_ver -X helm.sh/helm/v4/internal/version.gitTreeState=clean"
# One `go build` for the five: each shared package is compiled once, and the two cores stay busy.
# The compiler's CPU is the largest part of a cold test run (tests/README.md, "Cold run"), so:
# - linked without DWARF (-w), so none is made in the first place (-dwarf=false: about a tenth of
#   the compiler's CPU; the binaries are the same);
# - no inlining outside the standard library (-l; the later std= pattern wins for std's packages,
#   so the runtime, reflect and encoding/json keep theirs): this build's compilers took about 27
#   CPU-minutes with it and about 42 without it in two cold runs of 2026-11-28 (tests/README.md,
#   "Cold run"), for a few percent more CPU in the test clusters' processes; what the binaries do
#   is the same;
# - GOGC=400 for the compilers: fewer collections in short-lived processes with memory to spare;
# - one thread per compiler (GOMAXPROCS=1), the packages still compiled $(nproc) at a time (-p):
#   `go build` otherwise also splits each package's back end over every core (-c), which the
#   other compilers keep busy anyway. `go build -a std`, empty cache, 2 cores: 98 CPU-seconds
#   in 51 s by default, 88 in 46 s so (tests/README.md, "Cold run"). The binaries are the same.
(cd "$mod" && GOGC=400 GOMAXPROCS=1 "$GO" build -p "$(nproc)" -trimpath -gcflags='all=-dwarf=false -l' -gcflags=std=-dwarf=false \
   -ldflags "-s -w$stamp" -o "$out.tmp/" \
   k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
   k8s.io/kubernetes/cmd/kubectl helm.sh/helm/v4/cmd/helm ./etcd) ||
  { log "the build failed after $(elapsed)"; exit 1; }
for b in "${bins[@]}"; do
  case $b in
    kubectl) "$out.tmp/$b" version --client >/dev/null ;;
    helm) "$out.tmp/$b" version >/dev/null ;;
    *) "$out.tmp/$b" --version >/dev/null ;;
  esac || { log "$b does not run"; exit 1; }
done
{ echo "$RECIPE"; echo "$ver"; "$GO" env GOVERSION; } > "$out.tmp/DONE"
rm -rf "$out.old"; [ -d "$out" ] && mv "$out" "$out.old"
mv "$out.tmp" "$out"; rm -rf "$out.old"
# Older builds (other pins; helm-current-*: helm's own build before 2026-11-28) are dropped: each
# is several hundred MB.
for d in "$cache_root/$label-"* "$cache_root/helm-current-"*; do
  [ -e "$d" ] && [ "$d" != "$out" ] || continue
  case $d in *.lock) ;; *) rm -rf "$d" ;; esac
done
log "built and cached in $out in $(elapsed)"
echo "$out"
exit 0
}
