#!/usr/bin/env bash
# A throwaway Kubernetes control plane on loopback: etcd, kube-apiserver and
# kube-controller-manager, no kubelet, no scheduler, no containers. Pods never run; objects are
# stored, validated, admitted and garbage-collected as in any cluster. Two versions:
#   current  Kubernetes 1.37 and etcd 3.7, built from the Go modules pinned in tests/k8s/go.mod
#            (tests/k8s/build.sh): every scenario but the Longhorn 1.1/1.2/1.3 ones
#   1.20     Kubernetes 1.20.2 from Debian's source package (build-k8s.sh) and Debian's etcd 3.4:
#            the Longhorn 1.1 -> 1.2 upgrade flow and Longhorn 1.2/1.3, whose clusters ran there
#
#   tests/e2e/cluster.sh up DIR [current|1.20]   start (or confirm running) a cluster in DIR
#                                                (default: $CW_E2E_K8S, else current)
#   tests/e2e/cluster.sh down DIR     stop it by PID (TERM, then KILL) and remove its data
#   tests/e2e/cluster.sh status DIR   exit 0 when it is up and ready
#
# After `up`, `. DIR/env` gives KUBECONFIG, CW_KUBECTL, CW_E2E_API_URL, CW_E2E_CA, tokens...
# DIR/kubeconfig is the admin (system:masters); DIR/kubeconfig-<user> exist for the extra users
# (CRONWARDEN_E2E_USERS, default "migrator webhook controller nobody": no groups, no rights until a
# test binds some). CRONWARDEN_E2E_APISERVER_ARGS adds kube-apiserver flags (word-split).
# CRONWARDEN_E2E_AUDIT_POLICY=<file> (an audit.k8s.io/v1 Policy) makes the apiserver record the
# requests it selects in DIR/logs/audit.jsonl, one JSON event a line, written before the answer.
# CRONWARDEN_E2E_KUBECONFIG=<file> points at an existing cluster instead: `up` then only writes
# DIR/env for it and `down` leaves that cluster alone.
#
# The e2e helpers (lib.sh) source this file and call cwc_up/cwc_down directly so the daemons are
# children of the test process. Recipe and reasons: tests/README.md, "The Kubernetes binaries".
# shellcheck shell=bash

CWC_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CWC_DEFAULT_USERS="migrator webhook controller nobody"
CWC_DEFAULT_CONTROLLERS="garbagecollector,namespace,cronjob,job,serviceaccount-token"

cwc_log() { printf 'cluster: %s\n' "$*" >&2; }
# Milliseconds since the epoch from bash's own clock ($EPOCHREALTIME), no `date` process: into
# the variable VAR (cwc_ms VAR), or printed (cwc_now_ms).
cwc_ms() { local us=${EPOCHREALTIME//[!0-9]/}; printf -v "$1" '%s' $((us / 1000)); }
cwc_now_ms() { local ms; cwc_ms ms; echo "$ms"; }

# The kube binaries of version $1 (current or 1.20): CW_K8S_BIN_DIR if set, else the cache that
# tests/k8s/build.sh (current) or build-k8s.sh (1.20) fills and prints.
cwc_k8s_bin_dir() {
  if [ -n "${CW_K8S_BIN_DIR:-}" ]; then printf '%s\n' "$CW_K8S_BIN_DIR"; return 0; fi
  case ${1:-current} in
    current) "$CWC_HERE/../k8s/build.sh" control-plane ;;
    1.20) "$CWC_HERE/build-k8s.sh" ;;
    *) cwc_log "unknown Kubernetes version '$1' (current or 1.20)"; return 2 ;;
  esac
}

# A loopback TCP port nobody listens on, below the ephemeral range (so outgoing connections do
# not take it meanwhile), not one of those already handed out by this `up` (cwc_take_port).
cwc_free_port() {
  local port i
  for i in $(seq 1 200); do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 12000 ))
    case " ${CWC_PORTS_TAKEN:-} " in *" $port "*) continue ;; esac
    if [ -n "$(ss -Htan "sport = :$port" 2>/dev/null)" ]; then continue; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    printf '%s\n' "$port"; return 0
  done
  cwc_log "no free loopback port found"; return 1
}

# cwc_take_port VAR: a free port into VAR, remembered so that the next pick of this `up` differs
# (cwc_free_port runs in a subshell when called as $(...), where its note of the port is lost).
cwc_take_port() {
  local p
  p=$(cwc_free_port) || return 1
  CWC_PORTS_TAKEN="${CWC_PORTS_TAKEN:-} $p"
  printf -v "$1" '%s' "$p"
}

# Is PID running (a zombie, exited but not yet reaped by its new parent, is not)?
cwc_pid_running() {
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 1
  [ "$(awk '/^State:/{print $2}' "/proc/$1/status" 2>/dev/null)" != Z ]
}

# Is PID running and one of ours (its command line or environment names DIR)?
cwc_pid_ours() {
  local pid=$1 dir=$2
  cwc_pid_running "$pid" || return 1
  # grep reads the files itself: in a pipe, grep -q stops at the first match and the writer
  # dies of SIGPIPE, which under `set -o pipefail` made the process look like someone else's
  # (a big environment — exported shell functions — made that likely) and left it running.
  grep -qaF -- "$dir" "/proc/$pid/cmdline" 2>/dev/null && return 0
  grep -qzxF -- "CW_E2E_DIR=$dir" "/proc/$pid/environ" 2>/dev/null && return 0
  # This shell's own child that cwc_spawn forked and that has not exec'd yet: until then it has
  # this shell's command line and the environment this shell started with. Under load that lasts
  # long enough for cwc_wait_for to look, which once took a starting kube-controller-manager
  # (an empty log) for one that had exited.
  [ "$(awk '/^PPid:/{print $2}' "/proc/$pid/status" 2>/dev/null)" = "$BASHPID" ]
}

# cwc_stop_pid DIR NAME: TERM, up to 10 s grace, then KILL; only if the PID is still ours.
cwc_stop_pid() {
  local dir=$1 name=$2 f="$1/run/$2.pid" pid i
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if cwc_pid_ours "$pid" "$dir"; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do
      cwc_pid_running "$pid" || break
      sleep 0.1
    done
    if cwc_pid_running "$pid"; then
      cwc_log "$name (pid $pid) ignored TERM for 10 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    # Reap it when it is our child, so no zombie keeps the PID.
    wait "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

# cwc_spawn DIR NAME CMD...: start a daemon in the background, log to DIR/logs/NAME.log.
cwc_spawn() {
  local dir=$1 name=$2; shift 2
  printf '%q ' "$@" > "$dir/run/$name.cmd"
  "$@" > "$dir/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$dir/run/$name.pid"
}

cwc_alive() { local pid; pid=$(cat "$1/run/$2.pid" 2>/dev/null) && cwc_pid_ours "$pid" "$1"; }

cwc_tail_log() {
  local f=$1 n=${2:-40}
  [ -s "$f" ] || return 0
  printf -- '----- last %s lines of %s -----\n' "$n" "$f" >&2
  tail -n "$n" "$f" >&2
  printf -- '-----\n' >&2
}

# cwc_wait_for SECONDS WHAT NAME-OF-PROCESS DIR CMD...: poll CMD every 0.2 s.
cwc_wait_for() {
  local secs=$1 what=$2 proc=$3 dir=$4; shift 4
  local deadline=$((EPOCHSECONDS + secs))
  while ! "$@" >/dev/null 2>&1; do
    if [ -n "$proc" ] && ! cwc_alive "$dir" "$proc"; then
      cwc_log "$proc exited while waiting for $what"
      return 1
    fi
    if [ "$EPOCHSECONDS" -ge "$deadline" ]; then
      cwc_log "timed out after ${secs}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

cwc_certs() {
  local pki=$1
  [ -s "$pki/apiserver.crt" ] && [ -s "$pki/sa.pub" ] && return 0
  mkdir -p "$pki"
  (
    cd "$pki"
    umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 30 -keyout ca.key -out ca.crt \
      -subj "/CN=cronwarden-e2e-ca" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -sha256 -keyout apiserver.key -out apiserver.csr \
      -subj "/CN=kube-apiserver" 2>/dev/null
    printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" \
      "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc" \
      > apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -sha256 \
      -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    rm -f apiserver.csr apiserver.ext
    chmod 644 ca.crt apiserver.crt sa.pub
  ) || { cwc_log "openssl failed to make the certificates in $pki"; return 1; }
}

# cwc_kubeconfig FILE SERVER CA-FILE USER TOKEN EMBED: EMBED=1 inlines the CA
# (certificate-authority-data), else the file is referenced; both forms are exercised on purpose.
cwc_kubeconfig() {
  local f=$1 server=$2 ca=$3 user=$4 token=$5 embed=$6 caline
  if [ "$embed" = 1 ]; then
    caline="certificate-authority-data: $(base64 -w0 < "$ca")"
  else
    caline="certificate-authority: $ca"
  fi
  (
    umask 077
    cat > "$f" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: cronwarden-e2e
  cluster:
    server: $server
    $caline
users:
- name: $user
  user:
    token: $token
contexts:
- name: cronwarden-e2e-$user
  context:
    cluster: cronwarden-e2e
    user: $user
    namespace: default
current-context: cronwarden-e2e-$user
EOF
  )
}

cwc_envvar() { printf 'export %s=%q\n' "$1" "$2"; }

# Is the cluster in DIR up: every daemon alive and the apiserver ready?
cwc_ready() {
  local dir=$1
  [ -f "$dir/env" ] || return 1
  if grep -q '^export CW_E2E_EXTERNAL=1' "$dir/env"; then return 0; fi
  local p
  for p in etcd kube-apiserver kube-controller-manager; do cwc_alive "$dir" "$p" || return 1; done
  ( . "$dir/env" && curl -fsS --max-time 5 --cacert "$CW_E2E_CA" \
      -H "Authorization: Bearer $CW_E2E_TOKEN" "$CW_E2E_API_URL/readyz" ) >/dev/null 2>&1
}

cwc_up_external() {
  local dir=$1 kc=$CRONWARDEN_E2E_KUBECONFIG kubectl server
  case $kc in /*) ;; *) kc="$PWD/$kc" ;; esac
  [ -r "$kc" ] || { cwc_log "CRONWARDEN_E2E_KUBECONFIG=$kc is not readable"; return 1; }
  kubectl=${CW_KUBECTL:-}
  if [ -z "$kubectl" ]; then
    local bin
    bin=$(CW_K8S_BIN_DIR=${CW_K8S_BIN_DIR:-} cwc_k8s_bin_dir "${CW_E2E_K8S:-current}" 2>/dev/null) && [ -x "$bin/kubectl" ] &&
      kubectl="$bin/kubectl"
    [ -n "$kubectl" ] || kubectl=$(command -v kubectl || true)
  fi
  [ -n "$kubectl" ] || { cwc_log "no kubectl: run build-k8s.sh or set CW_KUBECTL"; return 1; }
  mkdir -p "$dir/pki" "$dir/logs" "$dir/run"
  server=$("$kubectl" --kubeconfig "$kc" config view --minify -o 'jsonpath={.clusters[0].cluster.server}')
  "$kubectl" --kubeconfig "$kc" config view --minify --raw \
    -o 'jsonpath={.clusters[0].cluster.certificate-authority-data}' | base64 -d > "$dir/pki/ca.crt" 2>/dev/null || true
  if [ ! -s "$dir/pki/ca.crt" ]; then
    local caf
    caf=$("$kubectl" --kubeconfig "$kc" config view --minify -o 'jsonpath={.clusters[0].cluster.certificate-authority}')
    if [ -n "$caf" ] && [ -r "$caf" ]; then cp "$caf" "$dir/pki/ca.crt"; else rm -f "$dir/pki/ca.crt"; fi
  fi
  if ! "$kubectl" --kubeconfig "$kc" --request-timeout=10s get --raw /readyz >/dev/null 2>&1 &&
     ! "$kubectl" --kubeconfig "$kc" --request-timeout=10s get --raw /healthz >/dev/null 2>&1; then
    cwc_log "the cluster of $kc ($server) does not answer /readyz"; return 1
  fi
  {
    echo "# cronwarden e2e: an EXISTING cluster (CRONWARDEN_E2E_KUBECONFIG); nothing was started"
    cwc_envvar CW_E2E_DIR "$dir"
    cwc_envvar CW_E2E_EXTERNAL 1
    cwc_envvar CW_E2E_K8S external
    cwc_envvar CW_E2E_K8S_VERSION "$("$kubectl" --kubeconfig "$kc" get --raw /version | jq -r .gitVersion)"
    cwc_envvar KUBECONFIG "$kc"
    cwc_envvar CW_KUBECTL "$kubectl"
    cwc_envvar CW_E2E_API_URL "$server"
    cwc_envvar CW_E2E_CA "$( [ -s "$dir/pki/ca.crt" ] && echo "$dir/pki/ca.crt" )"
    cwc_envvar CW_E2E_CA_KEY ""
    cwc_envvar CW_E2E_TOKEN ""
    cwc_envvar CW_E2E_USERS ""
  } > "$dir/env"
  cwc_log "using the existing cluster at $server (CRONWARDEN_E2E_KUBECONFIG=$kc)"
}

# cwc_up DIR [VERSION]: start the cluster (or leave a running one alone) and write DIR/env.
cwc_up() {
  local dir=$1 k8s=${2:-${CW_E2E_K8S:-current}}
  [ -n "$dir" ] || { cwc_log "usage: up DIR"; return 2; }
  mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
  if [ -n "${CRONWARDEN_E2E_KUBECONFIG:-}" ]; then cwc_up_external "$dir"; return; fi
  if cwc_ready "$dir"; then cwc_log "already up ($dir)"; return 0; fi
  if [ -d "$dir/run" ]; then cwc_log "a previous cluster in $dir is not healthy; restarting it"; cwc_down "$dir"; fi

  local t0 bin etcd_bin users u tok
  t0=$(cwc_now_ms)
  bin=$(cwc_k8s_bin_dir "$k8s") || { cwc_log "cannot get the Kubernetes $k8s binaries (their build failed)"; return 1; }
  local b
  for b in kube-apiserver kube-controller-manager kubectl; do
    [ -x "$bin/$b" ] || { cwc_log "missing $bin/$b"; return 1; }
  done
  # The current control plane brings its own etcd (3.7); 1.20 runs on Debian's (3.4).
  # A test cluster's data dies with it, so the current etcd does not wait for the disk on every
  # write (--unsafe-no-fsync, etcd >= 3.5; thousands of seeded objects in some scenarios).
  local etcd_extra=()
  if [ -x "$bin/etcd" ]; then etcd_bin=$bin/etcd etcd_extra=(--unsafe-no-fsync)
  else etcd_bin=$(command -v etcd) || { cwc_log "etcd not found (Debian package etcd-server)"; return 1; }; fi
  mkdir -p "$dir/data" "$dir/logs" "$dir/run" "$dir/pki"
  cwc_certs "$dir/pki" || return 1

  users=${CRONWARDEN_E2E_USERS-$CWC_DEFAULT_USERS}
  local admin_token
  admin_token=$(openssl rand -hex 24)
  {
    printf '%s,admin,admin,"system:masters"\n' "$admin_token"
    for u in $users; do printf '%s,%s,%s\n' "$(openssl rand -hex 24)" "$u" "uid-$u"; done
  } > "$dir/pki/tokens.csv"
  chmod 600 "$dir/pki/tokens.csv"

  local attempt etcd_port peer_port api_port kcm_port api started=0 newer=()
  # The Go collector's share of the daemons' CPU: a test cluster holds little, and memory is
  # plentiful beside CPU (tests/README.md, "Cold run"). CRONWARDEN_E2E_GOGC=100 is Go's default.
  local gogc=${CRONWARDEN_E2E_GOGC:-400}
  # Newer apiservers refuse a loopback advertise address for the endpoint reconciler (the
  # `kubernetes` Service's endpoints): nothing here reaches the apiserver through that Service.
  [ "$k8s" = 1.20 ] || newer=(--endpoint-reconciler-type=none)
  local audit=()
  [ -z "${CRONWARDEN_E2E_AUDIT_POLICY:-}" ] ||
    audit=(--audit-policy-file="$CRONWARDEN_E2E_AUDIT_POLICY" --audit-log-path="$dir/logs/audit.jsonl"
      --audit-log-format=json --audit-log-mode=blocking)
  for attempt in 1 2 3; do
    CWC_PORTS_TAKEN=""
    cwc_take_port etcd_port && cwc_take_port peer_port && cwc_take_port api_port &&
      cwc_take_port kcm_port || return 1
    api="https://127.0.0.1:$api_port"
    rm -rf "$dir/data/etcd"
    cwc_spawn "$dir" etcd env GOGC="$gogc" "$etcd_bin" --name cw-e2e --data-dir "$dir/data/etcd" \
      --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
      --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
      --initial-cluster "cw-e2e=http://127.0.0.1:$peer_port" --logger=zap --log-level=warn \
      ${etcd_extra[@]+"${etcd_extra[@]}"}
    if ! cwc_wait_for 30 "etcd on :$etcd_port" etcd "$dir" \
         curl -fsS --max-time 2 "http://127.0.0.1:$etcd_port/health"; then
      if grep -q 'address already in use' "$dir/logs/etcd.log" 2>/dev/null; then
        cwc_log "port clash for etcd; retrying with other ports"; cwc_stop_pid "$dir" etcd
        [ "$attempt" -lt 3 ] && continue
      fi
      cwc_tail_log "$dir/logs/etcd.log"; cwc_down "$dir"; return 1
    fi
    cwc_spawn "$dir" kube-apiserver env GOGC="$gogc" "$bin/kube-apiserver" \
      --etcd-servers="http://127.0.0.1:$etcd_port" --bind-address=127.0.0.1 --secure-port="$api_port" \
      --advertise-address=127.0.0.1 --tls-cert-file="$dir/pki/apiserver.crt" \
      --tls-private-key-file="$dir/pki/apiserver.key" --client-ca-file="$dir/pki/ca.crt" \
      --token-auth-file="$dir/pki/tokens.csv" --authorization-mode=RBAC \
      --service-account-key-file="$dir/pki/sa.pub" --service-account-signing-key-file="$dir/pki/sa.key" \
      --service-account-issuer=https://kubernetes.default.svc --service-cluster-ip-range=10.96.0.0/16 \
      --cert-dir="$dir/data/apiserver-certs" --profiling=false "${newer[@]}" ${audit[@]+"${audit[@]}"} \
      ${CRONWARDEN_E2E_APISERVER_ARGS:-}
    if cwc_wait_for "${CRONWARDEN_E2E_START_TIMEOUT:-90}" "kube-apiserver /readyz on :$api_port" kube-apiserver "$dir" \
         curl -fsS --max-time 5 --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $admin_token" "$api/readyz"; then
      started=1; break
    fi
    if grep -q 'address already in use' "$dir/logs/kube-apiserver.log" 2>/dev/null && [ "$attempt" -lt 3 ]; then
      cwc_log "port clash for kube-apiserver; retrying with other ports"
      cwc_stop_pid "$dir" kube-apiserver; cwc_stop_pid "$dir" etcd; continue
    fi
    cwc_tail_log "$dir/logs/kube-apiserver.log" 60
    cwc_down "$dir"; return 1
  done
  [ "$started" = 1 ] || { cwc_log "could not start etcd and kube-apiserver"; cwc_down "$dir"; return 1; }

  # kubectl caches discovery per host_port for ten minutes; an earlier cluster on this port would
  # leave it stale (unknown short names). Only this port's entry is dropped.
  rm -rf "${HOME:-/nonexistent}/.kube/cache/discovery/127.0.0.1_$api_port"
  cwc_kubeconfig "$dir/kubeconfig" "$api" "$dir/pki/ca.crt" admin "$admin_token" 0
  while IFS=, read -r tok u _; do
    [ "$u" = admin ] && continue
    cwc_kubeconfig "$dir/kubeconfig-$u" "$api" "$dir/pki/ca.crt" "$u" "$tok" 1
  done < "$dir/pki/tokens.csv"

  # The controller-manager's port was picked seconds ago; a parallel test may have bound it since
  # (CI saw exactly that), so a clash picks another port rather than failing the scenario.
  # --port=0 turns 1.20's insecure port off; the flag is gone from 1.24 on.
  local insecure=()
  [ "$k8s" = 1.20 ] && insecure=(--port=0)
  for attempt in 1 2 3; do
    cwc_spawn "$dir" kube-controller-manager env GOGC="$gogc" "$bin/kube-controller-manager" \
      --kubeconfig="$dir/kubeconfig" --leader-elect=false "${insecure[@]}" \
      --bind-address=127.0.0.1 --secure-port="$kcm_port" --cert-dir="$dir/data/kcm-certs" \
      --service-account-private-key-file="$dir/pki/sa.key" --root-ca-file="$dir/pki/ca.crt" \
      --use-service-account-credentials=false \
      --controllers="${CRONWARDEN_E2E_CONTROLLERS:-$CWC_DEFAULT_CONTROLLERS}" --profiling=false
    if cwc_wait_for 60 "kube-controller-manager /healthz on :$kcm_port" kube-controller-manager "$dir" \
         curl -fsSk --max-time 5 "https://127.0.0.1:$kcm_port/healthz"; then
      break
    fi
    if grep -q 'address already in use' "$dir/logs/kube-controller-manager.log" 2>/dev/null &&
       [ "$attempt" -lt 3 ]; then
      cwc_log "port clash for kube-controller-manager; retrying with another port"
      cwc_stop_pid "$dir" kube-controller-manager
      cwc_take_port kcm_port || { cwc_down "$dir"; return 1; }
      continue
    fi
    cwc_tail_log "$dir/logs/kube-controller-manager.log" 60; cwc_down "$dir"; return 1
  done
  # The apiserver creates the default namespace shortly after /readyz.
  if ! cwc_wait_for 30 "namespace default" kube-apiserver "$dir" \
       curl -fsS --max-time 5 --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $admin_token" \
       "$api/api/v1/namespaces/default"; then
    cwc_tail_log "$dir/logs/kube-apiserver.log"; cwc_down "$dir"; return 1
  fi

  {
    echo "# cronwarden e2e cluster; source this file: . $dir/env"
    cwc_envvar CW_E2E_DIR "$dir"
    cwc_envvar CW_E2E_EXTERNAL 0
    cwc_envvar KUBECONFIG "$dir/kubeconfig"
    cwc_envvar CW_KUBECTL "$bin/kubectl"
    cwc_envvar CW_E2E_K8S_BIN_DIR "$bin"
    cwc_envvar CW_E2E_K8S "$k8s"
    cwc_envvar CW_E2E_K8S_VERSION "$("$bin/kubectl" --kubeconfig "$dir/kubeconfig" get --raw /version | jq -r .gitVersion)"
    cwc_envvar CW_E2E_API_URL "$api"
    cwc_envvar CW_E2E_ETCD_URL "http://127.0.0.1:$etcd_port"
    cwc_envvar CW_E2E_KCM_URL "https://127.0.0.1:$kcm_port"
    cwc_envvar CW_E2E_CA "$dir/pki/ca.crt"
    cwc_envvar CW_E2E_CA_KEY "$dir/pki/ca.key"
    cwc_envvar CW_E2E_TOKEN "$admin_token"
    cwc_envvar CW_E2E_USERS "$(echo $users)"
    while IFS=, read -r tok u _; do
      [ "$u" = admin ] && continue
      cwc_envvar "CW_E2E_TOKEN_$(printf '%s' "$u" | tr '[:lower:]-' '[:upper:]_')" "$tok"
    done < "$dir/pki/tokens.csv"
  } > "$dir/env"
  chmod 600 "$dir/env"
  CWC_UP_MS=$(( $(cwc_now_ms) - t0 ))
  cwc_log "Kubernetes $k8s up in $((CWC_UP_MS / 1000)).$(printf '%03d' $((CWC_UP_MS % 1000)))s: $api (etcd :$etcd_port, controller-manager :$kcm_port), files in $dir"
}

# cwc_down DIR: stop what `up` started (only PIDs that are still ours) and remove the data.
# Logs stay in DIR/logs. Safe to run twice, or on a directory where nothing runs.
cwc_down() {
  local dir=$1 f name
  [ -n "$dir" ] || { cwc_log "usage: down DIR"; return 2; }
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/env" ] && grep -q '^export CW_E2E_EXTERNAL=1' "$dir/env"; then
    rm -f "$dir/env"; return 0
  fi
  # Extra processes first (tests register theirs in run/ too), then the control plane top-down.
  for f in "$dir"/run/*.pid; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .pid)
    case $name in etcd|kube-apiserver|kube-controller-manager) continue ;; esac
    cwc_stop_pid "$dir" "$name"
  done
  for name in kube-controller-manager kube-apiserver etcd; do cwc_stop_pid "$dir" "$name"; done
  rm -rf "$dir/data" "$dir/run" "$dir/env" "$dir"/kubeconfig "$dir"/kubeconfig-*
}

cwc_main() {
  local cmd=${1:-} dir=${2:-}
  case $cmd in
    up)
      cwc_up "$dir" "${3:-}" || return
      dir=$(cd "$dir" && pwd)
      cat >&2 <<EOF
cluster: ready. Use it with:
  . $dir/env && "\$CW_KUBECTL" get namespaces
cluster: stop it with:
  $CWC_HERE/cluster.sh down $dir
EOF
      ;;
    down) cwc_down "$dir" ;;
    status)
      [ -n "$dir" ] || { cwc_log "usage: status DIR"; return 2; }
      if cwc_ready "$dir"; then echo up; else echo down; return 1; fi
      ;;
    *)
      sed -n '2,/^# shellcheck/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
      return 2
      ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cwc_main "$@"
fi
