#!/usr/bin/env bash
# Build kube-apiserver, kube-controller-manager and kubectl from Debian's `kubernetes` source package,
# once, and cache them keyed by the package version (plus a recipe stamp, so a changed recipe
# rebuilds). Prints the cache directory on stdout; progress goes to stderr.
# Recipe and reasons: tests/README.md, "The Kubernetes binaries" (reflect2/json-iterator swap, GOPATH-mode make).
#
# The cache is ${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden/k8s-<debian-version>/. A cold build takes
# about 5-15 minutes on 2 cores and prints a heartbeat every minute; later runs return at once.
# Installing packages and adding a deb-src entry need root; a valid cache needs neither the
# source entry nor the build tools.
set -euo pipefail
# The whole script is one brace group, so bash parses it before running it: editing or updating
# this file while a (long) build runs cannot derail that build.
{

log() { printf 'build-k8s: %s\n' "$*" >&2; }
t0=$(date +%s)
elapsed() { local s=$(( $(date +%s) - t0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# Bump when the recipe changes what the binaries do; a cache with another stamp is rebuilt.
#  r2: vendored go-openapi/kube-openapi type validator fixed for Go >= 1.19 (empty strings in
#      custom resources were rejected as null).
#  r6: providerless (no in-tree cloud providers).
RECIPE="r6 reflect2+json-iterator from Debian; openapi empty-string fix; no inlining outside std; only the OpenAPI generator; providerless"

cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden
need_root() { [ "$(id -u)" = 0 ] || { log "need root to install Debian packages ($*)"; exit 1; }; }

ensure_pkgs() {
  local missing=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  need_root "${missing[*]}"
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || {
    apt-get update -q >&2; apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
}

ensure_deb_src() {
  if apt-cache showsrc kubernetes 2>/dev/null | grep -q '^Version:'; then return 0; fi
  need_root "deb-src entry"
  log "adding a deb-src entry for bookworm (to fetch the kubernetes source package)"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/cronwarden-src.sources
  else
    grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > /etc/apt/sources.list.d/cronwarden-src.list
  fi
  apt-get update -q >&2
}

# What the harness needs at run time, cached build or not.
ensure_pkgs etcd-server jq openssl curl iproute2 ca-certificates

pkg_version() {
  local v
  v=$(apt-cache showsrc kubernetes 2>/dev/null | awk '/^Version:/{print $2; exit}')
  # Without a deb-src entry, the binary package built from the same source gives the version.
  [ -n "$v" ] || v=$(apt-cache show kubernetes-client 2>/dev/null | awk '/^Version:/{print $2; exit}')
  printf '%s\n' "${v%+b[0-9]*}"
}

cache_ok() {
  local d=$1 b
  for b in kube-apiserver kube-controller-manager kubectl; do [ -x "$d/$b" ] || return 1; done
  [ "$(cat "$d/RECIPE" 2>/dev/null)" = "$RECIPE" ] || return 1
  "$d/kubectl" version --client >/dev/null 2>&1
}

version=$(pkg_version)
if [ -n "$version" ] && cache_ok "$cache_root/k8s-$version"; then
  echo "$cache_root/k8s-$version"; exit 0
fi

# Only one build at a time per cache (parallel test runs, several build directories).
mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
if ! flock -n 9; then
  log "another build-k8s.sh is building already; waiting for it (lock $cache_root/.build.lock)"
  flock 9
fi

log "[1/5] build tools and the source package entry"
ensure_pkgs golang-go rsync dpkg-dev make golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev
ensure_deb_src
version=$(apt-cache showsrc kubernetes | awk '/^Version:/{print $2; exit}')
[ -n "$version" ] || { log "cannot find the kubernetes source package"; exit 1; }
out="$cache_root/k8s-$version"
if cache_ok "$out"; then log "built meanwhile by another run"; echo "$out"; exit 0; fi
if [ -d "$out" ]; then log "cache $out is from another recipe or incomplete; rebuilding"; fi

avail_kb=$(df -Pk "$cache_root" | awk 'NR==2{print $4}')
if [ "${avail_kb:-0}" -lt $((4 * 1024 * 1024)) ]; then
  log "less than 4 GiB free under $cache_root; the build may run out of space"
fi

log "Building Kubernetes $version (kube-apiserver, kube-controller-manager, kubectl) from Debian's"
log "source package for cronwarden's end-to-end tests. One-off: about 5-15 minutes on 2 cores;"
log "later runs reuse $out"
work="$cache_root/build-$version"
rm -rf "$work"; mkdir -p "$work"
log "[2/5] fetching and unpacking the source ($(elapsed))"
( cd "$work" && apt-get source -q --download-only kubernetes >&2 && dpkg-source -x --skip-patches ./*.dsc src >&2 ) || {
  log "apt-get source failed"; exit 1; }
src="$work/src"

# Kubernetes 1.20 builds with Debian's Go 1.19 (GOPATH mode, its vendored tree); the Go in
# /usr/local/go, first on PATH on the project's machines, is too new for it.
export PATH=/usr/lib/go/bin:$PATH
log "[3/5] patching the vendored tree for Go $(go env GOVERSION 2>/dev/null || echo '>= 1.18') ($(elapsed))"
# Kubernetes 1.20's vendored reflect2 1.0.1 crashes under Go >= 1.18; use Debian's packaged copies.
swap() {
  local pkg=$1 from=/usr/share/gocode/src/$1 to="$src/vendor/$1"
  [ -d "$from" ] || { log "missing $from"; exit 1; }
  find "$to" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) -delete
  find "$from" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) ! -name '*_test.go' -exec cp {} "$to"/ \;
  log "vendored $pkg replaced by Debian's copy"
}
swap github.com/modern-go/reflect2
swap github.com/json-iterator/go

# The OpenAPI type validator that checks custom resources treats a value as null when
# reflect.DeepEqual(reflect.Zero(T), reflect.ValueOf(v)) holds. Since Go 1.19 both sides of an
# empty string point at the runtime's shared zero value, so "" in any string field of a custom
# resource was rejected as "must be of type string: null". Kubernetes built with its own Go
# accepts "": only nil is null there. Upstream kube-openapi later changed the test to data == nil.
for f in "$src/vendor/k8s.io/kube-openapi/pkg/validation/validate/type.go" \
         "$src/vendor/github.com/go-openapi/validate/type.go"; do
  [ -f "$f" ] || continue
  grep -qF 'if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {' "$f" || {
    log "expected zero-value test not found in $f; the recipe needs a look"; exit 1; }
  sed -i 's/if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {/if data == nil {/' "$f"
  log "patched ${f#"$src/"} (empty strings are not null)"
done

mkdir -p "$work/.go/src/k8s.io" "$work/home"
ln -sfn "$src" "$work/.go/src/k8s.io/kubernetes"
log "[4/5] compiling; go prints little until it links, so a heartbeat follows every minute ($(elapsed))"
( while sleep 60 </dev/null >/dev/null 2>&1; do
    log "still compiling ($(elapsed) elapsed; usually done within 15 minutes on 2 cores)"
  done ) &
heartbeat=$!
trap 'kill "$heartbeat" 2>/dev/null || true' EXIT
(
  cd "$work/.go/src/k8s.io/kubernetes"
  export GOPATH="$work/.go" CGO_ENABLED=0 HOME="$work/home" GO111MODULE=off
  # The compiler's CPU is the largest part of a cold test run (tests/README.md, "Cold run"):
  # - hack/lib/golang.sh hands arguments of WHAT that start with "-" to `go install` before its own
  #   -gcflags (which name only the main packages), so these reach every package: no DWARF (make
  #   links with -s -w anyway) and no inlining outside the standard library (the later std=
  #   pattern wins there, so the runtime, reflect and encoding/json keep theirs) — about a quarter
  #   less compiler CPU, for a little more CPU in the test clusters; what the binaries do is the same;
  # - GOGC=400: fewer collections in the compilers (short-lived, memory to spare; Go 1.19's
  #   compiler does not size its own heap yet).
  # - only the generator whose output the source package lacks: `make WHAT=...` first regenerates
  #   every generated file (deepcopy, defaults, conversions, prerelease lifecycles, bindata), each
  #   generator type-checking the whole tree (about 2 CPU-minutes), although the package ships all
  #   of them but the OpenAPI definitions (pkg/generated/openapi). build.sh is what `make` runs next.
  # - one thread per compiler (GOMAXPROCS=1), packages still compiled $(nproc) at a time
  #   (GOFLAGS=-p): about a tenth less compiler CPU than one compiler spread over every core
  #   (tests/k8s/build.sh says why). The binaries are the same.
  # - without the in-tree cloud providers (-tags=providerless, which hack/lib/golang.sh passes on
  #   from GOFLAGS): their SDKs (AWS, Azure, GCE, vSphere, OpenStack) are 43 % of the Go source the
  #   three commands import (2.51 million lines, 1.43 without; `go list -deps`), and a test cluster
  #   runs no cloud. The flags and volume plugins of those providers are all that goes.
  export GOGC=400 GOMAXPROCS=1 GOFLAGS="-p=$(nproc) -tags=providerless"
  make gen_openapi >&2
  hack/make-rules/build.sh cmd/kube-apiserver cmd/kubectl cmd/kube-controller-manager \
    '-gcflags=all=-dwarf=false -l' -gcflags=std=-dwarf=false >&2
) || { log "the build failed after $(elapsed); the work tree stays in $work for a look"; exit 1; }
kill "$heartbeat" 2>/dev/null || true

log "[5/5] caching the binaries ($(elapsed))"
rm -rf "$out.tmp"; mkdir -p "$out.tmp"
for b in kube-apiserver kube-controller-manager kubectl; do
  cp "$src/_output/bin/$b" "$out.tmp/$b" 2>/dev/null || cp "$src"/_output/local/bin/*/*/"$b" "$out.tmp/$b"
  "$out.tmp/$b" --version >/dev/null 2>&1 || [ "$b" = kubectl ] || { log "$b does not run"; exit 1; }
done
"$out.tmp/kubectl" version --client >/dev/null || { log "kubectl does not run"; exit 1; }
printf '%s\n' "$RECIPE" > "$out.tmp/RECIPE"
# Running clusters keep the old files open; replacing the directory does not disturb them.
rm -rf "$out.old"; [ -d "$out" ] && mv "$out" "$out.old"
mv "$out.tmp" "$out"; rm -rf "$out.old"
log "built and cached in $out in $(elapsed)"
# The cache is usable now: let waiting runs go before the (slow) removal of the build tree.
exec 9>&-
rm -rf "$work"
echo "$out"
exit 0
}
