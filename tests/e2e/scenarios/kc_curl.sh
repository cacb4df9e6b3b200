#!/usr/bin/env bash
# The harness's `kc` answers reads (kcget.sh) and writes (kcwrite.sh) through curl instead of
# starting kubectl; every scenario's asserts rest on those answers being kubectl's. A table of
# calls, each run twice on the current Kubernetes: through curl in namespace kcc-curl and by kubectl
# (CW_E2E_KCGET=0) in kcc-kubectl, on the same objects. Stdout, stderr and exit status must be
# equal, the namespace's name, uids, resourceVersions and times aside; so must the objects left,
# their field managers included.
. "$(dirname "$0")/../lib.sh"
[ -z "${CRONWARDEN_E2E_KUBECONFIG:-}" ] || e2e_skip "compares with the harness's admin token; harness cluster only"
e2e_start current
e2e_require_users nobody
W=$CW_E2E_DIR/kcc
mkdir -p "$W"

# norm NS FILE: FILE with what differs between two equal objects made apart replaced.
norm() {
  sed -e "s/$1/NS/g" -e 's/"uid": *"[^"]*"/"uid":U/g' -e 's/"resourceVersion": *"[0-9]*"/"resourceVersion":R/g' \
    -e 's/"\(creationTimestamp\|time\)": *"[^"]*"/"\1":T/g' "$2"
}
CASES=0
# The curl side must not start kubectl (it would pass by answering as kubectl), except where the
# case says it hands over (FALLS_BACK=1: a List; then kubectl must get the input curl read).
printf '#!/bin/sh\necho "$*" >> %q\nexec %q "$@"\n' "$W/kubectl-starts" "$CW_KUBECTL" > "$W/kubectl"
chmod +x "$W/kubectl"
# both NAME STDIN ARGS...: `kc ARGS` (@NS@ = the namespace) with STDIN (a file, or /dev/null) both
# ways, STDIN also readable as @FD@ (a pipe, as <(...) gives); their answers must be equal (shown
# in the failure).
both() {
  local name=$1 in=$2 how ns rc a args started
  shift 2
  for how in curl kubectl; do
    ns=kcc-$how
    args=()
    for a in "$@"; do a=${a//@NS@/$ns}; args+=("${a//@FD@//dev/fd/9}"); done
    rc=0
    if [ "$how" = curl ]; then
      rm -f "$W/kubectl-starts"
      CW_KUBECTL=$W/kubectl kc "${args[@]}" < "$in" 9< <(cat "$in") > "$W/$name.$how.out" 2> "$W/$name.$how.err" || rc=$?
      started=no
      [ ! -s "$W/kubectl-starts" ] || started=yes
      [ "$started" = "$([ "${FALLS_BACK:-0}" = 1 ] && echo yes || echo no)" ] ||
        e2e_fail "kc $name: kubectl started: $started, expected: $([ "${FALLS_BACK:-0}" = 1 ] && echo yes || echo no)"
    else
      CW_E2E_KCGET=0 kc "${args[@]}" < "$in" 9< <(cat "$in") > "$W/$name.$how.out" 2> "$W/$name.$how.err" || rc=$?
    fi
    { echo "exit $rc"; norm "$ns" "$W/$name.$how.out"; echo "-- stderr"; norm "$ns" "$W/$name.$how.err"; } > "$W/$name.$how"
  done
  diff -u "$W/$name.kubectl" "$W/$name.curl" > "$W/$name.diff" ||
    e2e_fail "kc $name: curl's answer differs from kubectl's (- kubectl, + curl):
$(cat "$W/$name.diff")"
  CASES=$((CASES + 1))
}
yaml() { cat > "$W/$1.yaml"; }

e2e_step "writes: create namespace, create -f (stdin, a file, several documents, dry run), errors"
both ns-create /dev/null create namespace @NS@
yaml cm <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels: {app: kcc}
data: {a: "1"}
EOF
both create-stdin "$W/cm.yaml" create -n @NS@ -f -
both create-exists "$W/cm.yaml" create -n @NS@ -f -
yaml two <<'EOF'
# two documents, the second naming its namespace in flow style
apiVersion: v1
kind: ConfigMap
metadata: {name: cm2, labels: {app: kcc}}
---
apiVersion: v1
kind: Secret
metadata: {name: s1, namespace: @NS@}
stringData: {k: v}
EOF
for how in curl kubectl; do sed "s/@NS@/kcc-$how/" "$W/two.yaml" > "$W/two-kcc-$how.yaml"; done
both create-two /dev/null create -n @NS@ -f "$W/two-@NS@.yaml"
both create-dry "$W/cm.yaml" create -n @NS@ --dry-run=server -f -
yaml unknown <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-unknown}
spec: {a: b}
EOF
both create-strict "$W/unknown.yaml" create -n @NS@ -f -
both create-warn "$W/unknown.yaml" create -n @NS@ --validate=warn --dry-run=server -f -
both create-ignore "$W/unknown.yaml" create -n @NS@ --validate=false -o json -f -
FALLS_BACK=1 both create-json-two /dev/null create -n @NS@ -o json --dry-run=server -f "$W/two-@NS@.yaml"
both create-no-ns "$W/cm.yaml" create -n kcc-absent -f -
yaml finalizer <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-warn, finalizers: [plain]}
EOF
both create-invalid "$W/finalizer.yaml" create -n @NS@ -f -
yaml pod <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: warned
  annotations: {seccomp.security.alpha.kubernetes.io/pod: runtime/default}
spec:
  containers: [{name: c, image: registry.invalid/none}]
EOF
both create-warning "$W/pod.yaml" create -n @NS@ -f -
both create-as-nobody "$W/cm.yaml" --as=nobody create -n @NS@ -f -
yaml role <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: reader
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get]}
EOF
both create-group "$W/role.yaml" create -n @NS@ -f -
both create-json-dry "$W/role.yaml" create -n @NS@ --dry-run=server -o json -f -
yaml list <<'EOF'
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: in-list}}
EOF
FALLS_BACK=1 both create-list "$W/list.yaml" create -n @NS@ -f -
cat > "$W/cm.json" <<'EOF'
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "json-cm", "labels": {"app": "kcc"}}, "data": {"j": "1"}}
EOF
both create-json-pipe "$W/cm.json" create -n @NS@ -f @FD@
both create-json-pipe-exists "$W/cm.json" create -n @NS@ -f @FD@
cat > "$W/list.json" <<'EOF'
{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "json-cm"}}]}
EOF
FALLS_BACK=1 both create-json-list-pipe "$W/list.json" create -n @NS@ -f @FD@

e2e_step "writes: patch (merge, json, no change, not found, forbidden), replace --raw"
both patch-merge /dev/null patch configmap cm -n @NS@ --type merge -p '{"data":{"a":"2"}}'
both patch-nochange /dev/null patch configmap cm -n @NS@ --type merge -p '{"data":{"a":"2"}}'
both patch-json /dev/null patch configmap cm -n @NS@ --type=json -p '[{"op":"add","path":"/data/b","value":"3"}]'
both patch-json-fails /dev/null patch configmap cm -n @NS@ --type json -p '[{"op":"test","path":"/data/a","value":"9"}]'
both patch-notfound /dev/null patch configmap nothing -n @NS@ --type merge -p '{}'
both patch-forbidden /dev/null --as=nobody patch configmap cm -n @NS@ --type merge -p '{"data":{"a":"3"}}'
both patch-group /dev/null patch roles.rbac.authorization.k8s.io reader -n @NS@ --type merge -p '{"metadata":{"labels":{"x":"y"}}}'
for how in curl kubectl; do
  kc get configmap cm -n "kcc-$how" -o json | jq -c '.data.c = "4" | del(.metadata.managedFields)' > "$W/put-kcc-$how.json"
done
both replace-raw /dev/null replace --raw /api/v1/namespaces/@NS@/configmaps/cm -f "$W/put-@NS@.json"
both replace-raw-conflict /dev/null replace --raw /api/v1/namespaces/@NS@/configmaps/cm -f "$W/put-@NS@.json"

e2e_step "reads: get -o json|name|jsonpath, lists by label, --raw, not found"
both get-json /dev/null get configmap cm -n @NS@ -o json
both get-list /dev/null get configmaps -n @NS@ -l app=kcc -o json
both get-name /dev/null get configmaps -n @NS@ -l app=kcc -o name
both get-jsonpath /dev/null get configmap cm -n @NS@ -o 'jsonpath={.data}'
both get-jsonpath-missing /dev/null get configmap cm -n @NS@ -o 'jsonpath={.data.zzz}'
both get-group /dev/null get role.rbac.authorization.k8s.io reader -n @NS@ -o json
both get-notfound /dev/null get configmap nothing -n @NS@ -o json
both get-raw /dev/null get --raw /api/v1/namespaces/@NS@/configmaps/cm2

e2e_step "the objects left are the same"
for how in curl kubectl; do
  kc get configmaps,secrets,roles -n "kcc-$how" -o json |
    jq -S '[.items[] | del(.metadata.managedFields[]?.time, .metadata.uid, .metadata.resourceVersion,
      .metadata.creationTimestamp, .metadata.namespace)]' > "$W/left-$how.json"
done
diff -u "$W/left-kubectl.json" "$W/left-curl.json" > "$W/left.diff" ||
  e2e_fail "the objects the curl calls left differ from kubectl's (- kubectl, + curl):
$(cat "$W/left.diff")"
e2e_log "$CASES calls answered alike by curl and kubectl"
