# Helpers for e2e scenario scripts (tests/e2e/scenarios/*.sh). Source it, then call e2e_start:
#
#   #!/usr/bin/env bash
#   . "$(dirname "$0")/../lib.sh"
#   e2e_start                      # cluster up in a temp dir; torn down on exit, failure, INT, TERM
#   apply_crds                     # or: apply_upstream_crds tests/fixtures/velero-1.18.1
#   e2e_step "create a schedule"
#   kc apply -f "$CW_SOURCE_DIR/tests/e2e/fixtures/velero-schedule.yaml"
#   assert_json "$(kc get schedule -n velero nightly -o json)" .spec.schedule '0 1 * * *'
#   cw migrate --dry-run=server ...   # the cronwarden binary under test ($CW_BINARY)
#
# Environment: CW_BINARY (set by ctest), CW_SOURCE_DIR (defaults to this checkout),
# CRONWARDEN_E2E_KEEP=1 (leave the cluster up and say how to reach it),
# CRONWARDEN_E2E_KUBECONFIG (use an existing cluster), CW_E2E_ARTIFACTS (where logs of a failed
# run are copied; ctest sets it under the build directory). Exit status 77 means "skipped".
# shellcheck shell=bash

set -euo pipefail

E2E_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=cluster.sh
. "$E2E_LIB_DIR/cluster.sh"
# shellcheck source=kcget.sh
. "$E2E_LIB_DIR/kcget.sh"
# shellcheck source=kcwrite.sh
. "$E2E_LIB_DIR/kcwrite.sh"
: "${CW_SOURCE_DIR:=$(cd "$E2E_LIB_DIR/../.." && pwd)}"
export CW_SOURCE_DIR
E2E_NAME=${E2E_NAME:-$(basename "$0" .sh)}
cwc_ms E2E_T0 # cluster.sh's clock: no `date` process (thousands a run)
E2E_DIR=""
E2E_WATCHDOG=""
E2E_CLEANUPS=()
# A scenario registered with ASAN (tests/CMakeLists.txt) runs the ASan/UBSan binary when the run
# names one (scripts/test exports CW_E2E_ASAN_BINARY): one run of the scenario checks both what
# it asserts and that no cronwarden process leaks or misbehaves in memory.
if [ "${CW_E2E_ASAN:-0}" = 1 ] && [ -n "${CW_E2E_ASAN_BINARY:-}" ]; then
  [ -x "$CW_E2E_ASAN_BINARY" ] || { echo "e2e: CW_E2E_ASAN_BINARY=$CW_E2E_ASAN_BINARY is not an executable" >&2; exit 1; }
  CW_BINARY=$CW_E2E_ASAN_BINARY
  export CW_BINARY
fi

e2e__stamp() { local ms; cwc_ms ms; ms=$((ms - E2E_T0)); printf '%d.%03ds' $((ms / 1000)) $((ms % 1000)); }
e2e_log() { printf '[e2e %s +%s] %s\n' "$E2E_NAME" "$(e2e__stamp)" "$*" >&2; }
e2e_step() { printf '\n[e2e %s +%s] == %s\n' "$E2E_NAME" "$(e2e__stamp)" "$*" >&2; }

# Where the failing assertion is (the scenario's file and line; helper libraries are skipped).
e2e__where() {
  local i
  for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
    if [ "${BASH_SOURCE[$i]}" != "${BASH_SOURCE[0]}" ] && [[ ${BASH_SOURCE[$i]} != */lib/assert.sh ]] &&
       [[ ${BASH_SOURCE[$i]} != */prometheus.sh ]]; then
      printf '%s:%s' "$(basename "${BASH_SOURCE[$i]}")" "${BASH_LINENO[$((i - 1))]}"; return
    fi
  done
  printf '?'
}

e2e_fail() {
  printf '[e2e %s +%s] FAIL at %s: %s\n' "$E2E_NAME" "$(e2e__stamp)" "$(e2e__where)" "$*" >&2
  exit 1
}

e2e_skip() { e2e_log "SKIP: $*"; exit 77; }

# e2e_on_exit CMD...: run CMD when the scenario ends (before the cluster goes), last in, first out.
# Once the cluster is up the commands go to a file, so that one registered in a subshell counts
# too: `NS=$(e2e_namespace x)` on an existing cluster registers the namespace's deletion there
# (e2e/existing_cluster found those namespaces left behind when it was an array only).
e2e_on_exit() {
  if [ -n "${E2E_DIR:-}" ] && [ -d "$E2E_DIR" ]; then { printf '%q ' "$@"; echo; } >> "$E2E_DIR/on-exit"
  else E2E_CLEANUPS+=("$(printf '%q ' "$@")"); fi
}

# e2e_on_exit_external CMD...: e2e_on_exit on an existing cluster (CRONWARDEN_E2E_KUBECONFIG) only;
# a harness cluster goes whole. For what would break the user's cluster if left there, such as a
# webhook configuration with failurePolicy Fail calling a port nobody listens on any more.
e2e_on_exit_external() { [ "${CW_E2E_EXTERNAL:-0}" != 1 ] || e2e_on_exit "$@"; }

e2e__dump_logs() {
  local f
  [ -n "$E2E_DIR" ] && [ -d "$E2E_DIR/logs" ] || return 0
  for f in "$E2E_DIR"/logs/*.log; do
    [ -s "$f" ] || continue
    case $(basename "$f") in
      etcd.log) cwc_tail_log "$f" 15 ;;
      *) cwc_tail_log "$f" 40 ;;
    esac
  done
  if [ -n "${CW_E2E_ARTIFACTS:-}" ]; then
    rm -rf "$CW_E2E_ARTIFACTS"; mkdir -p "$CW_E2E_ARTIFACTS"
    cp -r "$E2E_DIR/logs" "$CW_E2E_ARTIFACTS/" 2>/dev/null || true
    e2e_log "full logs copied to $CW_E2E_ARTIFACTS/logs"
  fi
}

# Fails (1) when a sanitizer wrote a report (see e2e_start); prints them and keeps a copy.
e2e__sanitizer_reports() {
  local f found=0
  [ -n "$E2E_DIR" ] && [ -d "$E2E_DIR/sanitizer" ] || return 0
  for f in "$E2E_DIR"/sanitizer/*; do
    [ -s "$f" ] || continue
    found=1
    e2e_log "sanitizer report $(basename "$f"):"
    head -c 20000 "$f" >&2
  done
  [ "$found" = 0 ] && return 0
  if [ -n "${CW_E2E_ARTIFACTS:-}" ]; then
    mkdir -p "$CW_E2E_ARTIFACTS" && cp -r "$E2E_DIR/sanitizer" "$CW_E2E_ARTIFACTS/" 2>/dev/null
  fi
  e2e_log "FAIL: sanitizer reports above (leaks or memory errors in cronwarden)"
  return 1
}

e2e__on_exit() {
  local rc=$? i
  trap - EXIT INT TERM HUP
  set +e
  if [ -n "$E2E_DIR" ] && [ -s "$E2E_DIR/on-exit" ]; then
    while IFS= read -r i; do eval "$i" >/dev/null 2>&1; done < <(tac "$E2E_DIR/on-exit")
  fi
  for ((i = ${#E2E_CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${E2E_CLEANUPS[$i]}" >/dev/null 2>&1; done
  e2e__sanitizer_reports || { [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] || rc=1; }
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    e2e_log "FAILED (exit $rc); component logs follow"
    e2e__dump_logs
  fi
  if [ -n "$E2E_WATCHDOG" ]; then kill "$E2E_WATCHDOG" 2>/dev/null; wait "$E2E_WATCHDOG" 2>/dev/null; fi
  if [ -n "$E2E_DIR" ]; then
    if [ "${CRONWARDEN_E2E_KEEP:-0}" = 1 ]; then
      cat >&2 <<EOF

[e2e $E2E_NAME] CRONWARDEN_E2E_KEEP=1: the cluster stays up.
  reach it:     . $E2E_DIR/env && "\$CW_KUBECTL" get crds
                (KUBECONFIG=$E2E_DIR/kubeconfig; users' kubeconfigs: $E2E_DIR/kubeconfig-<user>)
  logs:         $E2E_DIR/logs/
  tear it down: $E2E_LIB_DIR/cluster.sh down $E2E_DIR && rm -rf $E2E_DIR
EOF
    else
      cwc_down "$E2E_DIR" >/dev/null 2>&1
      rm -rf "$E2E_DIR"
    fi
  fi
  if [ "$rc" = 0 ]; then e2e_log "PASS in $(e2e__stamp)"
  elif [ "$rc" = 77 ]; then e2e_log "SKIPPED after $(e2e__stamp)"
  else e2e_log "FAIL (exit $rc) after $(e2e__stamp)"; fi
  exit "$rc"
}

# CW_E2E_DEADLINE=SECONDS (ctest's TIMEOUT less 30, tests/CMakeLists.txt): when the scenario runs
# that long, say so with the commands it is waiting for, then end them and TERM the scenario, whose
# trap prints the components' logs. ctest's own timeout kills outright, and nothing is printed.
e2e__deadline() {
  [ -n "${CW_E2E_DEADLINE:-}" ] || return 0
  (
    trap - EXIT INT TERM HUP
    sleep "$CW_E2E_DEADLINE" </dev/null >/dev/null 2>&1 & wait $!
    e2e_log "FAIL: still running after the deadline ($CW_E2E_DEADLINE s, CW_E2E_DEADLINE); waiting for:"
    # The cluster's and e2e_bg's daemons (run/*.pid) and the watchdog stay: their logs follow.
    keep=" $BASHPID ${E2E_WATCHDOG:-} $(cat "$E2E_DIR"/run/*.pid 2>/dev/null | tr '\n' ' ')"
    mapfile -t pids < <(e2e__descendants "$$" "$keep")
    [ "${#pids[@]}" = 0 ] || ps -o pid=,etime=,args= -p "$(IFS=,; echo "${pids[*]}")" | cut -c1-300 >&2
    kill -TERM "${pids[@]}" 2>/dev/null
    kill -TERM "$$"
  ) &
  E2E_CLEANUPS+=("pkill -P $!; kill $!")
}

# e2e__descendants PID " KEEP... ": every process under PID, children before theirs, less those
# in KEEP and theirs.
e2e__descendants() {
  local c
  for c in $(pgrep -P "$1"); do
    [[ $2 == *" $c "* ]] && continue
    echo "$c"; e2e__descendants "$c" "$2"
  done
}

# e2e_start [current|1.20]: a cluster of that Kubernetes (default current: 1.37) for this
# scenario in a fresh temp dir, its env sourced, and teardown guaranteed: a trap for normal exit,
# failure, INT, TERM and HUP, plus a watchdog in its own session that stops the daemons if this
# script is killed outright (SIGKILL, ctest timeout). The scenario names the version its users
# run (tests/README.md, "Which Kubernetes"); ctest's registration (CW_E2E_K8S_FIXTURE, the build
# it waits for) must agree.
e2e_start() {
  local k8s=${1:-current}
  command -v jq >/dev/null || e2e_fail "jq is missing (Debian package jq)"
  case $k8s in current|1.20) ;; *) e2e_fail "e2e_start: unknown Kubernetes '$k8s' (current or 1.20)" ;; esac
  if [ -n "${CW_E2E_K8S_FIXTURE:-}" ] && [ "$CW_E2E_K8S_FIXTURE" != "$k8s" ]; then
    e2e_fail "registered in tests/e2e/CMakeLists.txt for Kubernetes $CW_E2E_K8S_FIXTURE, but the scenario starts $k8s"
  fi
  export CW_E2E_K8S=$k8s
  E2E_DIR=$(mktemp -d "${CW_E2E_TMPDIR:-${TMPDIR:-/tmp}}/cw-e2e-$E2E_NAME.XXXXXX")
  # With an ASan/UBSan build as CW_BINARY (build-asan/cmd/cronwarden), sanitizer reports go to
  # files here, so leaks and errors of background processes and of commands expected to fail
  # count too: any report fails the scenario (e2e__on_exit). Other binaries ignore these.
  mkdir -p "$E2E_DIR/sanitizer"
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}:log_path=$E2E_DIR/sanitizer/asan"
  export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}:log_path=$E2E_DIR/sanitizer/ubsan"
  trap e2e__on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  e2e_step "cluster up in $E2E_DIR"
  cwc_up "$E2E_DIR" || e2e_fail "the cluster did not start (logs above)"
  # shellcheck disable=SC1091
  . "$E2E_DIR/env"
  if [ "${CRONWARDEN_E2E_KEEP:-0}" != 1 ] && [ "$CW_E2E_EXTERNAL" != 1 ]; then
    setsid bash -c '
      owner=$1 dir=$2 lib=$3
      while kill -0 "$owner" 2>/dev/null; do sleep 1; done
      "$lib/cluster.sh" down "$dir"; rm -rf "$dir"' e2e-watchdog "$$" "$E2E_DIR" "$E2E_LIB_DIR" \
      </dev/null >/dev/null 2>&1 &
    E2E_WATCHDOG=$!
  fi
  e2e__deadline
  e2e_log "cluster ready: $CW_E2E_API_URL, Kubernetes $CW_E2E_K8S_VERSION"
  if [ -n "${CW_BINARY:-}" ] && [ "$CW_BINARY" = "${CW_E2E_ASAN_BINARY:-}" ]; then
    e2e_log "cronwarden under test: the ASan/UBSan build $CW_BINARY"
  fi
  # scripts/test prints which Kubernetes each scenario ran on from this file.
  if [ -n "${CW_E2E_VERSIONS_FILE:-}" ]; then
    printf '%s %s\n' "$E2E_NAME" "$CW_E2E_K8S_VERSION" >> "$CW_E2E_VERSIONS_FILE"
  fi
}

# kc ARGS...: the built kubectl as admin. kc_as USER ARGS...: as one of the extra users.
# kubectl's discovery cache lives in the scenario's directory, not in ~/.kube. Reads whose answer
# the API defines alone (`get --raw`, `get ... -o json`) and the common writes (patch, replace
# --raw, create namespace, create -f of plain YAML) go through curl (kcget.sh, kcwrite.sh: a
# fifth of a kubectl start's CPU; e2e/kc_curl compares both).
kc() {
  local rc=0
  e2e__kcget "$@" || rc=$?
  [ "$rc" = 125 ] || return "$rc"
  rc=0
  e2e__kcwrite "$@" || rc=$?
  [ "$rc" = 125 ] || return "$rc"
  "$CW_KUBECTL" --cache-dir "$CW_E2E_DIR/kube-cache" "$@"
}
# For the commands wait_for runs through `bash -c "... kc get ..."`.
export -f kc e2e__kcget e2e__kcget_fetch e2e__kcget_resolve e2e__kcget_map e2e__kcget_discover e2e__kcget_uri \
  e2e__kcwrite e2e__kcwrite_patch e2e__kcwrite_create e2e__kcwrite_row e2e__kcwrite_kind e2e__kcwrite_send
kc_as() {
  local user=$1; shift
  [ -f "$CW_E2E_DIR/kubeconfig-$user" ] || e2e_fail "no user '$user' in this cluster (CW_E2E_USERS='$CW_E2E_USERS')"
  "$CW_KUBECTL" --cache-dir "$CW_E2E_DIR/kube-cache" --kubeconfig "$CW_E2E_DIR/kubeconfig-$user" "$@"
}

# e2e_resource_versions ARGS...: "Kind/name resourceVersion" of every object `kc get ARGS` names,
# as one JSON array: equal before and after a change that stored nothing.
e2e_resource_versions() {
  kc get "$@" -o json | jq -c '[(.items // [.])[] | "\(.kind)/\(.metadata.name) \(.metadata.resourceVersion)"]'
}

# Scenarios that need the static-token users (RBAC proofs) call this first; an existing cluster
# (CRONWARDEN_E2E_KUBECONFIG) has none, so they skip there.
e2e_require_users() {
  local u
  for u in "$@"; do
    [ -f "$CW_E2E_DIR/kubeconfig-$u" ] || e2e_skip "needs the harness's user '$u' (not available on an existing cluster)"
  done
}

# cw ARGS...: the cronwarden binary under test.
cw() {
  local bin=${CW_BINARY:-}
  if [ -z "$bin" ]; then
    for bin in "$CW_SOURCE_DIR"/build/cmd/cronwarden "$CW_SOURCE_DIR"/build*/cmd/cronwarden ""; do
      [ -x "$bin" ] && break
    done
    [ -n "$bin" ] || e2e_fail "CW_BINARY is not set and no build*/cmd/cronwarden exists (ctest sets it)"
  fi
  "$bin" "$@"
}

# e2e_bg NAME CMD...: run CMD in the background for the rest of the scenario (a webhook, the
# controller), output in $CW_E2E_DIR/logs/NAME.log; stopped by PID (TERM, then KILL) at the end.
# e2e_stop NAME stops it earlier; e2e_bg_pid NAME prints its PID.
e2e_bg() {
  local name=$1; shift
  mkdir -p "$CW_E2E_DIR/run" "$CW_E2E_DIR/logs"
  cwc_spawn "$CW_E2E_DIR" "$name" "$@"
  e2e_on_exit cwc_stop_pid "$CW_E2E_DIR" "$name"
  e2e_log "started $name (pid $(cat "$CW_E2E_DIR/run/$name.pid")), log $CW_E2E_DIR/logs/$name.log"
}
e2e_stop() { cwc_stop_pid "$CW_E2E_DIR" "$1"; }
e2e_bg_pid() { cat "$CW_E2E_DIR/run/$1.pid"; }

# A cronwarden controller started with e2e_bg NAME ... --metrics-listen 127.0.0.1:0: log_of NAME
# prints its log file, port_of NAME its metrics port (from the log), metric_sum NAME FAMILY
# [FILTER] the sum of the family's samples whose labels contain FILTER — "missing" when the
# process does not export the family at all (a renamed or unregistered metric is no zero).
log_of() { printf '%s/logs/%s.log' "$CW_E2E_DIR" "$1"; }
port_of() { grep -o 'metrics_port=[0-9]*' "$(log_of "$1")" | sed -n 1p | cut -d= -f2; }
metric_sum() { curl -fsS "http://127.0.0.1:$(port_of "$1")/metrics" | awk -v m="$2" -v f="${3:-}" '$1 == "#" && $2 == "TYPE" && $3 == m {seen = 1} index($1, m) == 1 && index($1, f) {s += $2} END {if (seen) print s + 0; else print "missing"}'; }

# ---- assertions: tests/lib/assert.sh (shared with the CLI tests), failing through e2e_fail ------
# shellcheck source=../lib/assert.sh
. "$E2E_LIB_DIR/../lib/assert.sh"
CW_ASSERT_FAIL=e2e_fail

# assert_ok CMD...: CMD must succeed; its output is kept in E2E_OUT.
assert_ok() {
  E2E_OUT=$("$@" 2>&1) || e2e_fail "command failed (exit $?): $*
$E2E_OUT"
}

# assert_fails [--match TEXT] CMD...: CMD must fail (and its output contain TEXT); output in E2E_OUT.
assert_fails() {
  local match=""
  if [ "${1:-}" = --match ]; then match=$2; shift 2; fi
  if E2E_OUT=$("$@" 2>&1); then e2e_fail "expected failure, but it succeeded: $*
$E2E_OUT"; fi
  if [ -n "$match" ]; then
    case $E2E_OUT in *"$match"*) ;; *) e2e_fail "failed as expected, but without '$match': $*
$E2E_OUT" ;; esac
  fi
}

# wait_for SECONDS WHAT CMD...: poll CMD until it succeeds: every CW_E2E_POLL seconds (default
# 0.5) for the first 5 seconds, then every second, from 20 seconds on every 2. A poll is most often
# a kubectl, whose start alone costs ~0.2 CPU-seconds here: a minute's wait for a cron tick at 0.5 s
# kept a core 40 % busy (and two scenarios run at once), for an answer 2 s sooner at most.
wait_for() {
  local secs=$1 what=$2 out="" start now poll
  shift 2
  cwc_ms start
  while :; do
    if out=$("$@" 2>&1); then return 0; fi
    cwc_ms now
    [ "$now" -lt $((start + secs * 1000)) ] || e2e_fail "timed out after ${secs}s waiting for $what; last output: $out"
    poll=${CW_E2E_POLL:-0.5}
    if [ $((now - start)) -ge 20000 ]; then poll=2; elif [ $((now - start)) -ge 5000 ]; then poll=1; fi
    sleep "$poll"
  done
}

# ---- CRDs and namespaces ------------------------------------------------------------------------

# The CRD names in crds/ (from the files, so new ones are picked up).
crd_names() {
  local f
  for f in "$CW_SOURCE_DIR"/crds/*.yaml; do
    [ "$(basename "$f")" = kustomization.yaml ] && continue
    awk '/^kind: CustomResourceDefinition/{c=1} c && /^  name: /{print $2; exit}' "$f"
  done
}

# apply_crds: kubectl apply -k crds/ and wait until every CRD is Established. On an existing
# cluster (CRONWARDEN_E2E_KUBECONFIG) a CRD that is there already and is not one of these copies
# (label app.kubernetes.io/part-of=cronwarden) is left alone: it belongs to Longhorn/Velero/OADP.
apply_crds() {
  local names n foreign=()
  mapfile -t names < <(crd_names)
  if [ "${CW_E2E_EXTERNAL:-0}" = 1 ]; then
    for n in "${names[@]}"; do
      if kc get crd "$n" >/dev/null 2>&1 &&
         [ "$(kc get crd "$n" -o 'jsonpath={.metadata.labels.app\.kubernetes\.io/part-of}')" != cronwarden ]; then
        foreign+=("$n")
      fi
    done
  fi
  if [ ${#foreign[@]} -eq 0 ]; then
    assert_ok kc apply -k "$CW_SOURCE_DIR/crds"
  else
    e2e_log "keeping the cluster's own CRDs: ${foreign[*]}"
    for n in "$CW_SOURCE_DIR"/crds/*.yaml; do
      [ "$(basename "$n")" = kustomization.yaml ] && continue
      local name
      name=$(awk '/^kind: CustomResourceDefinition/{c=1} c && /^  name: /{print $2; exit}' "$n")
      case " ${foreign[*]} " in *" $name "*) continue ;; esac
      assert_ok kc apply -f "$n"
    done
  fi
  e2e__crds_ready "${names[@]}"
}

# apply_upstream_crds DIR...: the CRDs upstream ships, kept verbatim under DIR (relative to the
# source tree, e.g. tests/fixtures/velero-1.18.1; its README names the repository, tag and path),
# applied and waited for as apply_crds does: the scenarios that prove behaviour against Velero and
# OADP use these, not crds/. On an existing cluster a CRD that is there already is left alone.
apply_upstream_crds() {
  local d f name names=()
  for d in "$@"; do
    for f in "$CW_SOURCE_DIR/$d"/*.yaml; do
      name=$(awk '/^kind: CustomResourceDefinition/{c=1} c && /^  name: /{print $2; exit}' "$f")
      [ -n "$name" ] || e2e_fail "$f holds no CustomResourceDefinition"
      names+=("$name")
      if [ "${CW_E2E_EXTERNAL:-0}" = 1 ] && kc get crd "$name" >/dev/null 2>&1; then
        e2e_log "keeping the cluster's own CRD $name"
        continue
      fi
      assert_ok kc apply -f "$f"
    done
  done
  e2e__crds_ready "${names[@]}"
}

# e2e__crds_ready NAME...: Established, and listed by discovery.
e2e__crds_ready() {
  local n
  assert_ok kc wait --for condition=established --timeout=60s "${@/#/crd/}"
  # Discovery may lag a moment behind Established, and kubectl keeps what it discovered for ten
  # minutes (short names like lhrj are not refreshed on a miss): wait until every resource is
  # listed, then drop kubectl's cache.
  for n in "$@"; do
    wait_for 30 "discovery of $n" e2e__discovered "$n"
  done
  rm -rf "$CW_E2E_DIR/kube-cache/discovery" "$CW_E2E_DIR/kcget-resources.tsv"
}

# e2e__discovered CRD-NAME: the CRD's plural is listed under its group's preferred version.
e2e__discovered() {
  local plural=${1%%.*} group=${1#*.} gv
  gv=$(kc get --raw "/apis/$group" | jq -er .preferredVersion.groupVersion) || return 1
  kc get --raw "/apis/$gv" | jq -e --arg r "$plural" '[.resources[].name] | index($r) != null' >/dev/null
}

# ---- Longhorn's own CRDs, per release (tests/fixtures/longhorn-<version>/) -------------------------

# The five longhorn.io CRDs cronwarden's tests use (every fixture has all of its release's CRDs).
LH_CRDS=(backups.longhorn.io backupvolumes.longhorn.io recurringjobs.longhorn.io settings.longhorn.io volumes.longhorn.io)

# lh_crds_file VERSION: tests/fixtures/longhorn-VERSION/crds.yaml, every CustomResourceDefinition of
# longhorn/longhorn's deploy/longhorn.yaml at that tag, verbatim (the fixture's README says which).
lh_crds_file() { printf '%s/tests/fixtures/longhorn-%s/crds.yaml\n' "$CW_SOURCE_DIR" "$1"; }

# lh_crd_names VERSION: the name of every CRD of Longhorn VERSION, in the file's order.
lh_crd_names() {
  awk '/^kind: CustomResourceDefinition$/ {c = 1} c && /^  name: / {print $2; c = 0}' "$(lh_crds_file "$1")"
}

# lh_crd_doc VERSION NAME: the one CRD document NAME (e.g. settings.longhorn.io) of Longhorn
# VERSION, to create it again after a test removed it.
lh_crd_doc() {
  awk -v n="$2" '
    function flush() { if (index(doc, "\n  name: " n "\n")) printf "%s", substr(doc, 2); doc = "\n" }
    BEGIN { doc = "\n" } /^---/ { flush(); next } { doc = doc $0 "\n" } END { flush() }' "$(lh_crds_file "$1")"
}

# lh__discovered_all NAME...: the longhorn.io group's preferred version lists every plural (every
# CRD of each release serves it: v1beta1 in 1.2, v1beta2 from 1.3). One discovery read for all.
lh__discovered_all() {
  local gv list n
  gv=$(kc get --raw /apis/longhorn.io | jq -er .preferredVersion.groupVersion) || return 1
  list=$(kc get --raw "/apis/$gv" | jq -r '.resources[].name') || return 1
  for n in "$@"; do
    grep -qx "${n%%.*}" <<<"$list" || { echo "${n%%.*} not yet in $gv"; return 1; }
  done
}

# lh_apply_crds VERSION: Longhorn VERSION's CRDs, all of them, replace every longhorn.io CRD of the
# cluster (deleted first, with every object of theirs: another release's would stay behind, and
# an older release's CRD cannot replace one whose stored version it does not declare); then wait
# until all are Established and discovered. On the current Kubernetes they are applied as users
# apply them: `kubectl apply --validate=strict` (its stderr in LH_APPLY_WARNINGS); 1.11+'s CEL
# rules are then enforced. On 1.20 (1.2.6 and 1.3.3 only) they are created the same way,
# `kubectl create --validate=true`, kubectl 1.20's own schema check. Volumes of 1.3-1.9 declare a
# conversion webhook (a Service of Longhorn's that the harness does not run): use their storage
# version, longhorn.io/v1beta2, so that the apiserver never calls it. Not on an existing cluster.
lh_apply_crds() {
  [ "${CW_E2E_EXTERNAL:-0}" != 1 ] || e2e_skip "lh_apply_crds replaces the cluster's longhorn.io CRDs"
  local old t0=$SECONDS
  old=$(kc get crd -o json | jq -r '.items[] | select(.spec.group == "longhorn.io") | .metadata.name')
  # shellcheck disable=SC2086 # one name a line
  [ -z "$old" ] || assert_ok kc delete crd $old --wait=true
  lh__apply "$1" "$t0" "old ones deleted"
}

# lh_upgrade_crds VERSION: Longhorn VERSION's CRDs applied over the cluster's, as an upgrade applies
# them (kubectl apply of the install manifest; a release's CRDs not in VERSION's deleted, as helm
# deletes what a chart no longer holds): every object stays, in the storage version. Upgrades go
# one release after another, oldest first; an older release's CRD that does not declare a stored
# version is refused by the apiserver (lh_apply_crds is the way down). Cheaper than replacing:
# nothing waits for the apiserver's CRD finalizer, which deletes every instance before the CRD.
lh_upgrade_crds() {
  [ "${CW_E2E_EXTERNAL:-0}" != 1 ] || e2e_skip "lh_upgrade_crds changes the cluster's longhorn.io CRDs"
  local gone t0=$SECONDS
  gone=$(kc get crd -o json | jq -r --argjson keep "$(lh_crd_names "$1" | jq -R . | jq -s .)" \
    '.items[] | select(.spec.group == "longhorn.io" and (.metadata.name | IN($keep[]) | not)) | .metadata.name')
  # shellcheck disable=SC2086 # one name a line
  [ -z "$gone" ] || assert_ok kc delete crd $gone --wait=true
  lh__apply "$1" "$t0" "applied over the cluster's, $(wc -w <<<"$gone") deleted"
}

# lh__apply VERSION T0 HOW: kubectl applies (or, on 1.20, creates) Longhorn VERSION's CRDs, waits
# until all are Established and discovered, and says so.
lh__apply() {
  local f
  local -a names
  f=$(lh_crds_file "$1")
  [ -f "$f" ] || e2e_fail "no CRDs for Longhorn $1 ($f)"
  mapfile -t names < <(lh_crd_names "$1")
  if [ "$CW_E2E_K8S" = 1.20 ]; then
    kc create --validate=true -f "$f" >/dev/null || e2e_fail "Longhorn $1's CRDs were refused"
  else
    # What kubectl prints on stderr (the apiserver's warnings) goes to LH_APPLY_WARNINGS, for
    # the scenario to assert exactly.
    LH_APPLY_WARNINGS=$(kc apply --validate=strict -f "$f" 2>&1 >/dev/null) ||
      e2e_fail "Longhorn $1's CRDs were refused: $LH_APPLY_WARNINGS"
  fi
  assert_ok kc wait --for condition=established --timeout=60s "${names[@]/#/crd/}"
  wait_for 30 "discovery of Longhorn $1's ${#names[@]} CRDs" lh__discovered_all "${names[@]}"
  rm -rf "$CW_E2E_DIR/kube-cache/discovery" "$CW_E2E_DIR/kcget-resources.tsv"
  e2e_log "Longhorn $1's ${#names[@]} CRDs in place after $((SECONDS - $2)) s ($3, applied, Established, discovered)"
}

# lh_manager IMAGE: the longhorn-manager DaemonSet of tests/e2e/fixtures/longhorn-manager.yaml in
# longhorn-system, running IMAGE (its image and --manager-image): created, or changed in place.
lh_manager() {
  sed "s|\"longhornio/longhorn-manager:v1.2.6\"|\"$1\"|" "$CW_SOURCE_DIR/tests/e2e/fixtures/longhorn-manager.yaml" |
    kc apply -n longhorn-system -f - >/dev/null || e2e_fail "cannot apply the longhorn-manager DaemonSet ($1)"
}

# lh_like_fixture VERSION NAMESPACE NAME [IMAGE]: CronJob NAMESPACE/NAME is what Longhorn VERSION's
# manager writes (tests/fixtures/longhorn-VERSION/cronjob-NAME.json): the last-applied annotation byte for
# byte, the labels, the owner, and the spec less what the apiserver fills in. The object is read in
# the version the server prefers: batch/v1 on the current Kubernetes, as Longhorn 1.4+ writes it;
# batch/v1beta1 on 1.20, whatever the release writes. The apiserver's defaults: the pod template's
# (dnsPolicy, schedulerName, ...), suspend, and the history limits a release leaves out (1.2 and
# 1.3 leave failedJobsHistoryLimit out); creationTimestamp, printed as null by 1.20 where 1.10+'s
# libraries leave it out.
LH_ANN='.metadata.annotations["longhorn.io/last-applied-cronjob-spec"]'
lh_like_fixture() {
  local src=$CW_SOURCE_DIR/tests/fixtures/longhorn-$1/cronjob-$3.json got f
  # IMAGE (the manager's --manager-image, e.g. docker.io/longhornio/longhorn-manager:v1.12.1 as
  # current charts write it) is an input: the fixtures were made with the short form.
  f=$CW_E2E_DIR/expected-$1-$3.json
  [ -f "$src" ] || e2e_fail "no fixture $src"
  jq --arg from "longhornio/longhorn-manager:v$1" --arg to "${4:-longhornio/longhorn-manager:v$1}" \
    'walk(if type == "string" then (split($from) | join($to)) else . end)' "$src" > "$f"
  local spec='.spec | del(.suspend, .jobTemplate.spec.template.spec.dnsPolicy, .jobTemplate.spec.template.spec.schedulerName,
    .jobTemplate.spec.template.spec.securityContext, .jobTemplate.spec.template.spec.terminationGracePeriodSeconds,
    .jobTemplate.spec.template.spec.containers[0].terminationMessagePath, .jobTemplate.spec.template.spec.containers[0].terminationMessagePolicy,
    .jobTemplate.spec.template.spec.containers[0].imagePullPolicy, .jobTemplate.spec.template.spec.volumes[0].hostPath.type,
    .jobTemplate.spec.template.spec.serviceAccount, .jobTemplate.spec.template.spec.containers[0].env[0].valueFrom.fieldRef.apiVersion)
    | del(.. | .creationTimestamp?)'
  got=$(kc get cronjobs.batch -n "$2" "$3" -o json) || e2e_fail "no CronJob $2/$3"
  if [ "$CW_E2E_K8S" = current ]; then
    assert_eq "$(jq -r .apiVersion <<<"$got")" batch/v1 "Longhorn $1, $3: stored and served as"
    assert_eq "$(jq -r .apiVersion "$f")" batch/v1 "Longhorn $1, $3: the release writes"
  fi
  assert_eq "$(jq -r "$LH_ANN" <<<"$got")" "$(jq -r "$LH_ANN" "$f")" "Longhorn $1, $3: last-applied annotation"
  assert_eq "$(jq -cS .metadata.labels <<<"$got")" "$(jq -cS .metadata.labels "$f")" "Longhorn $1, $3: labels"
  assert_eq "$(jq -r '.metadata.ownerReferences[0] | "\(.apiVersion) \(.kind) \(.name)"' <<<"$got")" \
    "$(jq -r '.metadata.ownerReferences[0] | "\(.apiVersion) \(.kind) \(.name)"' "$f")" "Longhorn $1, $3: owner"
  assert_eq "$(jq -cS --argjson f "$(jq .spec "$f")" \
      "$spec"' | reduce ("failedJobsHistoryLimit", "successfulJobsHistoryLimit") as $k (.;
        if $f | has($k) then . else del(.[$k]) end)' <<<"$got")" \
    "$(jq -cS "$spec" "$f")" "Longhorn $1, $3: spec (less the apiserver's defaults)"
}

# e2e_register_webhook URL CA_BUNDLE: cronwarden's mutating and validating configurations (both
# named cronwarden) for Longhorn's RecurringJobs and Volumes in both versions, CREATE and UPDATE,
# calling URL/mutate and URL/validate (failurePolicy Fail, sideEffects None, as deploy/ does).
e2e_register_webhook() {
  local kind path
  e2e_on_exit_external kc delete mutatingwebhookconfiguration,validatingwebhookconfiguration cronwarden --ignore-not-found
  for kind in Mutating Validating; do
    path=${kind,,}; path=${path%ing}e
    assert_ok kc apply -f - <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata: {name: cronwarden}
webhooks:
  - name: ${path}.cronwarden.io
    clientConfig: {url: "$1/$path", caBundle: "$2"}
    rules:
    - {apiGroups: ["longhorn.io"], apiVersions: ["v1beta1", "v1beta2"], operations: ["CREATE", "UPDATE"], resources: ["recurringjobs", "volumes"], scope: Namespaced}
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
EOF
  done
}

# e2e_schedule_skip_run NS INCLUDED: a Velero Schedule e2e-skip in NS (@every 5s, skipImmediately,
# backing up namespace INCLUDED), then waits until a schedule reconciler consumed skipImmediately
# (status.lastSkipped) and submitted a Backup of it: the proof that a deployed controller acts.
e2e_schedule_skip_run() {
  assert_ok kc create -f - <<EOF
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: e2e-skip, namespace: $1}
spec: {schedule: "@every 5s", skipImmediately: true, template: {includedNamespaces: ["$2"]}}
EOF
  wait_for 30 "skipImmediately consumed" eval "kc get schedules.velero.io -n '$1' e2e-skip -o json |
    jq -e '.spec.skipImmediately == false and .status.lastSkipped != null' >/dev/null"
  wait_for 30 "a Backup of e2e-skip" eval "kc get backups.velero.io -n '$1' -l velero.io/schedule-name=e2e-skip -o json |
    jq -e '.items | length > 0' >/dev/null"
}

# e2e_legacy_volume_refused NS: the deployed validating webhook refuses a Volume with legacy
# spec.recurringJobs in NS, naming its webhook and the policy's message.
e2e_legacy_volume_refused() {
  assert_fails --match 'admission webhook "volumes.validate.cronwarden.io" denied the request: spec.recurringJobs: legacy per-volume recurring jobs are not accepted' \
    kc create -f - <<EOF
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: e2e-legacy, namespace: $1}
spec: {size: "1073741824", recurringJobs: [{name: snap, task: snapshot, cron: "0 1 * * *", retain: 2}]}
EOF
}

# e2e_certmanager_crds: stand-in Certificate and Issuer CRDs (cert-manager.io/v1, open specs):
# cert-manager is not part of the test clusters; deploy/cert-manager's objects need their kinds.
e2e_certmanager_crds() {
  local kind plural
  for kind in Certificate Issuer; do
    plural=$(tr '[:upper:]' '[:lower:]' <<<"$kind")s
    assert_ok kc apply -f - <<EOF
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: $plural.cert-manager.io}
spec:
  group: cert-manager.io
  scope: Namespaced
  names: {kind: $kind, plural: $plural, singular: ${plural%s}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
EOF
  done
  e2e__crds_ready certificates.cert-manager.io issuers.cert-manager.io
}

# e2e_namespace NAME: create a namespace for the scenario. On an existing cluster the name gets a
# random suffix and the namespace is deleted at the end; prints the name.
e2e_namespace() {
  local ns=$1
  if [ "${CW_E2E_EXTERNAL:-0}" = 1 ]; then
    ns="$1-$(openssl rand -hex 3)"
    e2e_on_exit kc delete namespace "$ns" --wait=false
  fi
  kc create namespace "$ns" >/dev/null || e2e_fail "cannot create namespace $ns"
  printf '%s\n' "$ns"
}

# e2e_issue_cert NAME [SAN...]: a serving certificate for NAME signed by a test CA, written to
# $CW_E2E_DIR/pki/NAME.{crt,key}; SANs default to IP:127.0.0.1,DNS:localhost. The CA is
# $CW_E2E_SIGNING_CA (the cluster's own CA on a harness cluster); use it as a webhook's caBundle:
#   base64 -w0 < "$CW_E2E_SIGNING_CA"
e2e_issue_cert() {
  local name=$1 pki=$CW_E2E_DIR/pki sans
  shift
  sans=$(IFS=,; echo "${*:-IP:127.0.0.1,DNS:localhost}")
  mkdir -p "$pki"
  if [ -n "${CW_E2E_CA_KEY:-}" ] && [ -r "$CW_E2E_CA_KEY" ]; then
    CW_E2E_SIGNING_CA=$CW_E2E_CA; CW_E2E_SIGNING_CA_KEY=$CW_E2E_CA_KEY
  else
    CW_E2E_SIGNING_CA=$pki/test-ca.crt; CW_E2E_SIGNING_CA_KEY=$pki/test-ca.key
    [ -s "$CW_E2E_SIGNING_CA" ] || openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 2 \
      -keyout "$CW_E2E_SIGNING_CA_KEY" -out "$CW_E2E_SIGNING_CA" -subj "/CN=cronwarden-e2e-test-ca" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  fi
  export CW_E2E_SIGNING_CA CW_E2E_SIGNING_CA_KEY
  openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$pki/$name.key" -out "$pki/$name.csr" \
    -subj "/CN=$name" 2>/dev/null || e2e_fail "openssl req for $name failed"
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" "subjectAltName=$sans" > "$pki/$name.ext"
  openssl x509 -req -in "$pki/$name.csr" -CA "$CW_E2E_SIGNING_CA" -CAkey "$CW_E2E_SIGNING_CA_KEY" \
    -CAcreateserial -days 2 -sha256 -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null ||
    e2e_fail "openssl x509 for $name failed"
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}
