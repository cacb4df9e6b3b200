#!/usr/bin/env bash
# Build kube-apiserver, kube-controller-manager and kubectl from Debian's `kubernetes` source package,
# once, and cache them keyed by the package version. Prints the cache directory on stdout.
# Recipe and reasons: ../shared/notes/real-apiserver.md (reflect2/json-iterator swap, GOPATH-mode make).
set -euo pipefail

log() { printf 'build-k8s: %s\n' "$*" >&2; }

cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden
need_root() { [ "$(id -u)" = 0 ] || { log "need root to install Debian packages ($*)"; exit 1; }; }

ensure_pkgs() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  need_root "${missing[*]}"
  log "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 || {
    apt-get update -q >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2; }
}

ensure_pkgs etcd-server golang-go rsync jq openssl dpkg-dev \
  golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev

ensure_deb_src() {
  if apt-cache showsrc kubernetes 2>/dev/null | grep -q '^Version:'; then return 0; fi
  need_root "deb-src entry"
  log "adding a deb-src entry for bookworm"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/cronwarden-src.sources
  else
    grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > /etc/apt/sources.list.d/cronwarden-src.list
  fi
  apt-get update -q >&2
}
ensure_deb_src

version=$(apt-cache showsrc kubernetes | awk '/^Version:/{print $2; exit}')
[ -n "$version" ] || { log "cannot find the kubernetes source package"; exit 1; }
out="$cache_root/k8s-$version"
if [ -x "$out/kube-apiserver" ] && [ -x "$out/kube-controller-manager" ] && [ -x "$out/kubectl" ]; then
  echo "$out"; exit 0
fi

log "building Kubernetes $version from Debian's source package (one-off, about 7-15 minutes on 2 cores)"
work="$cache_root/build-$version"
rm -rf "$work"; mkdir -p "$work"
( cd "$work" && apt-get source -q --download-only kubernetes >&2 && dpkg-source -x --skip-patches ./*.dsc src >&2 ) || {
  log "apt-get source failed"; exit 1; }
src="$work/src"

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

mkdir -p "$work/.go/src/k8s.io" "$work/home"
ln -sfn "$src" "$work/.go/src/k8s.io/kubernetes"
(
  cd "$work/.go/src/k8s.io/kubernetes"
  export GOPATH="$work/.go" CGO_ENABLED=0 HOME="$work/home" GO111MODULE=off GOFLAGS=
  make WHAT="cmd/kube-apiserver cmd/kubectl cmd/kube-controller-manager" >&2
)
mkdir -p "$out.tmp"
for b in kube-apiserver kube-controller-manager kubectl; do
  cp "$src/_output/bin/$b" "$out.tmp/$b" 2>/dev/null || cp "$src"/_output/local/bin/*/*/"$b" "$out.tmp/$b"
done
rm -rf "$out"; mv "$out.tmp" "$out"
rm -rf "$work"
log "cached in $out"
echo "$out"
