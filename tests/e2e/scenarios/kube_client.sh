#!/usr/bin/env bash
# kube against a real kube-apiserver (the current Kubernetes) (driver: tests/e2e/kubeclient-driver.c).
#  - kubeconfig with a CA file + token, with CA data + token, with client certificates (data and
#    relative files), a $KUBECONFIG list merged with --context, tls-server-name, and in-cluster
#    configuration whose token file rotates (401 -> re-read -> retry once);
#  - a user without RBAC gets 403 carrying the server's message; an unreachable server and a wrong
#    CA fail with messages that say where the configuration came from;
#  - discovery of longhorn.io versions after applying the CRDs;
#  - a paged LIST of 1,200 ConfigMaps with limit=100 streams 12 pages; an expired continue token
#    (etcd compacted between pages: a real 410 Gone) restarts the list, or continues with the
#    inconsistent token when asked;
#  - create, merge and JSON patches (a `test` op on the resourceVersion), update, delete with
#    preconditions; stale resourceVersions map to CW_ECONFLICT; dryRun=All stores nothing;
#  - watch sees ADDED/MODIFIED/DELETED and reports 410 for a too-old resourceVersion;
#  - 500 GETs reuse the pooled connections (new connections counted with CURLINFO_NUM_CONNECTS).
. "$(dirname "$0")/../lib.sh"

DRIVER=${CW_KUBE_DRIVER:-}
if [ -z "$DRIVER" ]; then
  for DRIVER in "$CW_SOURCE_DIR"/build/tests/unit/cw_kube_e2e_driver \
                "$CW_SOURCE_DIR"/build*/tests/unit/cw_kube_e2e_driver ""; do
    [ -x "$DRIVER" ] && break
  done
fi
[ -x "$DRIVER" ] || e2e_fail "CW_KUBE_DRIVER is not set and no build*/tests/unit/cw_kube_e2e_driver exists"

# The 410 of an expired continue token is what clusters send when a page's snapshot is gone from
# etcd and the watch cache cannot serve it. Kubernetes 1.34+ serves such pages from the watch
# cache's snapshots (ListFromCacheSnapshot, beta and on by default): an etcd compaction between two
# pages no longer expires the token (e2e/smoke proves that on a default cluster). This scenario
# turns the gate off so that the client's 410 handling meets a real apiserver's 410.
export CRONWARDEN_E2E_APISERVER_ARGS="--feature-gates=ListFromCacheSnapshot=false"
e2e_start current
NS=$(e2e_namespace cw-kube)
WORK=$CW_E2E_DIR/kube-client
mkdir -p "$WORK"
ADMIN=$CW_E2E_DIR/kubeconfig
[ "$CW_E2E_EXTERNAL" = 1 ] && ADMIN=$KUBECONFIG
drv() { "$DRIVER" --namespace "$NS" "$@"; }
harness_cluster() { [ "$CW_E2E_EXTERNAL" != 1 ] && [ -n "${CW_E2E_CA_KEY:-}" ]; }

# kubeconfig FILE SERVER CLUSTER-LINES USER-LINES: one cluster, one user, one context.
kubeconfig() {
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: $2
$3
users:
- name: u
  user:
$4
contexts:
- name: e2e
  context:
    cluster: e2e
    user: u
current-context: e2e
EOF
}

e2e_step "kubeconfig with a CA file and a token"
assert_ok drv --kubeconfig "$ADMIN" ping
e2e_log "$E2E_OUT"

if harness_cluster; then
  e2e_require_users nobody
  e2e_step "kubeconfig with CA data and a token; a user without RBAC gets the server's 403"
  assert_ok drv --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" forbidden nobody
  e2e_log "$E2E_OUT"

  e2e_step "client certificates signed by the cluster CA (data fields, then relative files)"
  client_cert() { # client_cert NAME SUBJECT
    openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$WORK/$1.key" -out "$WORK/$1.csr" \
      -subj "$2" 2>/dev/null || e2e_fail "openssl req $1"
    printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=clientAuth" > "$WORK/$1.ext"
    openssl x509 -req -in "$WORK/$1.csr" -CA "$CW_E2E_CA" -CAkey "$CW_E2E_CA_KEY" -CAcreateserial \
      -CAserial "$WORK/ca.srl" -days 1 -sha256 -extfile "$WORK/$1.ext" -out "$WORK/$1.crt" \
      2>/dev/null || e2e_fail "openssl x509 $1"
  }
  client_cert cert-admin "/O=system:masters/CN=cw-cert-admin"
  client_cert cert-nobody "/CN=cw-cert-nobody"
  kubeconfig "$WORK/kc-cert-data" "$CW_E2E_API_URL" \
    "    certificate-authority-data: $(base64 -w0 < "$CW_E2E_CA")" \
    "    client-certificate-data: $(base64 -w0 < "$WORK/cert-admin.crt")
    client-key-data: $(base64 -w0 < "$WORK/cert-admin.key")"
  assert_ok drv --kubeconfig "$WORK/kc-cert-data" ping
  e2e_log "$E2E_OUT"
  mkdir -p "$WORK/rel/certs"
  cp "$CW_E2E_CA" "$WORK/rel/certs/ca.crt"
  cp "$WORK/cert-nobody.crt" "$WORK/cert-nobody.key" "$WORK/rel/certs/"
  kubeconfig "$WORK/rel/config" "$CW_E2E_API_URL" "    certificate-authority: certs/ca.crt" \
    "    client-certificate: certs/cert-nobody.crt
    client-key: ./certs/cert-nobody.key"
  assert_ok drv --kubeconfig "$WORK/rel/config" forbidden cw-cert-nobody
  e2e_log "$E2E_OUT"
  # A mismatched key is caught at load time, naming the file and the user.
  kubeconfig "$WORK/kc-mismatch" "$CW_E2E_API_URL" "    certificate-authority: $CW_E2E_CA" \
    "    client-certificate: $WORK/cert-admin.crt
    client-key: $WORK/cert-nobody.key"
  assert_fails --match "$WORK/kc-mismatch: user \"u\": the client certificate and key do not match" \
    drv --kubeconfig "$WORK/kc-mismatch" ping

  e2e_step "\$KUBECONFIG list: first definition wins, --context selects another context"
  cat > "$WORK/kc-extra" <<EOF
users:
- name: cert
  user:
    client-certificate: cert-admin.crt
    client-key: cert-admin.key
contexts:
- name: by-cert
  context:
    cluster: cronwarden-e2e
    user: cert
    namespace: $NS
EOF
  assert_ok env KUBECONFIG="$WORK/missing:$WORK/kc-extra:$ADMIN" "$DRIVER" --context by-cert ping
  assert_contains "$E2E_OUT" "context \"by-cert\""
  assert_ok env KUBECONFIG="$WORK/kc-extra:$ADMIN" "$DRIVER" --namespace "$NS" ping
  assert_contains "$E2E_OUT" "context \"cronwarden-e2e-admin\""
  assert_fails --match "\$KUBECONFIG: $WORK/kc-extra:$ADMIN: context \"nope\" not found" \
    env KUBECONFIG="$WORK/kc-extra:$ADMIN" "$DRIVER" --context nope ping

  e2e_step "tls-server-name; a wrong name or CA fails verification (not retried)"
  port=${CW_E2E_API_URL##*:}
  kubeconfig "$WORK/kc-sni" "https://127.0.0.1:$port" \
    "    certificate-authority: $CW_E2E_CA
    tls-server-name: kubernetes.default.svc" "    token: $CW_E2E_TOKEN"
  assert_ok drv --kubeconfig "$WORK/kc-sni" ping
  kubeconfig "$WORK/kc-sni-bad" "https://127.0.0.1:$port" \
    "    certificate-authority: $CW_E2E_CA
    tls-server-name: wrong.example" "    token: $CW_E2E_TOKEN"
  assert_ok drv --kubeconfig "$WORK/kc-sni-bad" tls-fail
  e2e_log "$E2E_OUT"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/other-ca.key" -out "$WORK/other-ca.crt" \
    -days 1 -subj "/CN=some-other-ca" 2>/dev/null
  kubeconfig "$WORK/kc-wrong-ca" "$CW_E2E_API_URL" "    certificate-authority: $WORK/other-ca.crt" \
    "    token: $CW_E2E_TOKEN"
  assert_ok drv --kubeconfig "$WORK/kc-wrong-ca" tls-fail

  e2e_step "an unreachable server: retried, then a message that names the configuration"
  dead=$(cwc_free_port)
  kubeconfig "$WORK/kc-dead" "https://127.0.0.1:$dead" "    certificate-authority: $CW_E2E_CA" \
    "    token: x"
  assert_ok drv --kubeconfig "$WORK/kc-dead" --attempts 3 unreachable
  e2e_log "$E2E_OUT"

  e2e_step "in-cluster configuration; the token file rotates under a running client"
  mkdir -p "$WORK/sa"
  cp "$CW_E2E_CA" "$WORK/sa/ca.crt"
  echo "not-a-valid-token" > "$WORK/sa/token"
  echo "$NS" > "$WORK/sa/namespace"
  assert_ok env KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$port" \
    "$DRIVER" --sa-dir "$WORK/sa" token-rotation "$CW_E2E_TOKEN"
  e2e_log "$E2E_OUT"
fi

e2e_step "discovery of longhorn.io after applying the CRDs"
apply_crds
served=$(kc get --raw /apis/longhorn.io | jq -r '[.versions[].version] | join(",")')
preferred=$(kc get --raw /apis/longhorn.io | jq -r .preferredVersion.version)
assert_eq v1beta2 "$preferred" "kubectl's view of the preferred version"
assert_ok drv --kubeconfig "$ADMIN" discovery longhorn.io "$preferred" "$served" volumes
e2e_log "$E2E_OUT"

e2e_step "1,200 ConfigMaps created in parallel; a paged LIST with limit=100 streams 12 pages"
assert_ok drv --kubeconfig "$ADMIN" --qps 500 --burst 500 --inflight 8 seed cm 1200
e2e_log "$E2E_OUT"
assert_eq 1200 "$(kc get configmaps -n "$NS" -l cw-e2e=list -o name | wc -l)" "ConfigMaps seen by kubectl"
assert_ok drv --kubeconfig "$ADMIN" list 100 1200
e2e_log "$E2E_OUT"

if [ -n "${CW_E2E_ETCD_URL:-}" ]; then
  e2e_step "an expired continue token: 410 Gone after an etcd compaction between two pages"
  # The driver lists with limit=100; after the first page it creates 5 more ConfigMaps and compacts
  # etcd at the current revision, so the first page's snapshot is gone and the apiserver answers
  # the next page with 410 Expired (plus an inconsistent continue token).
  assert_ok drv --kubeconfig "$ADMIN" --qps 500 --burst 500 list-expired 100 "$CW_E2E_ETCD_URL" restart
  e2e_log "$E2E_OUT"
  assert_contains "$E2E_OUT" "restarted"
  assert_ok drv --kubeconfig "$ADMIN" --qps 500 --burst 500 list-expired 100 "$CW_E2E_ETCD_URL" inconsistent
  e2e_log "$E2E_OUT"
  assert_contains "$E2E_OUT" "inconsistent"
else
  e2e_log "no etcd endpoint (existing cluster): the expired-continue check is skipped"
fi

e2e_step "create, merge and JSON patch, update, delete; conflicts, 422 and 404"
assert_ok drv --kubeconfig "$ADMIN" crud
e2e_log "$E2E_OUT"

e2e_step "dryRun=All on every write stores nothing"
assert_ok drv --kubeconfig "$ADMIN" dryrun
e2e_log "$E2E_OUT"
assert_fails --match NotFound kc get configmap -n "$NS" dry

e2e_step "watch: ADDED, MODIFIED, DELETED; a too-old resourceVersion gives 410"
assert_ok drv --kubeconfig "$ADMIN" watch
e2e_log "$E2E_OUT"

e2e_step "connection reuse: 500 sequential and 500 parallel GETs over a pool of 4"
assert_ok drv --kubeconfig "$ADMIN" --qps 2000 --burst 2000 --inflight 4 reuse 500
e2e_log "$E2E_OUT"
