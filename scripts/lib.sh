# Shared by the project's scripts: package installation and build helpers. Source it.
# shellcheck shell=bash

CW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

cw_log() { printf '[cronwarden] %s\n' "$*" >&2; }

# Debian packages every build and test needs; the e2e harness installs its own extra ones.
# (prometheus: promtool for unit/monitoring_rules; the server for the schedule-health e2e.
# python3-yaml: cli/helm_chart and e2e/helm read the rendered manifests with it.)
CW_BUILD_PKGS=(build-essential cmake pkg-config clang-format libjson-c-dev libyaml-dev libxxhash-dev
  libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libgnutls28-dev libcmocka-dev tzdata openssl
  ca-certificates)
CW_TEST_PKGS=(golang-go golang-github-robfig-cron-dev jq wrk valgrind clang libclang-rt-14-dev
  procps time ninja-build
  etcd-server curl iproute2 rsync dpkg-dev make golang-github-modern-go-reflect2-dev
  golang-github-json-iterator-go-dev librsvg2-bin libxml2-utils python3 python3-yaml
  podman mmdebstrap uidmap
  prometheus)

cw_missing_pkgs() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || printf '%s\n' "$p"
  done
}

# Installs whichever of the given packages are missing (apt-get update only when needed).
cw_ensure_pkgs() {
  local missing
  mapfile -t missing < <(cw_missing_pkgs "$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    cw_log "missing Debian packages: ${missing[*]} (run as root, or install them)"; return 1
  fi
  cw_log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || {
    apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
}

# cw_build DIR [cmake args...]: configure once, then build incrementally.
cw_build() {
  local dir=$1; shift
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cw_log "configuring $dir"
    # Ninja where there is one: the Makefiles generator starts cmake processes per object and
    # target (about 2,000 in a run of scripts/test). build/ from nothing on 2 cores: 148
    # CPU-seconds in 79 s with Makefiles, 100 in 53 s with Ninja. A configured tree keeps its own.
    local gen=()
    command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
    cmake -S "$CW_ROOT" -B "$dir" ${gen[@]+"${gen[@]}"} -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >&2 # later -D wins
  fi
  cmake --build "$dir" -j "$(nproc)" >&2
}
