# Shared by the migrate scenarios (sourced after lib.sh): seeding the example Longhorn 1.1 cluster
# into the scenario's namespace, the truth an uninterrupted run must reach, and a normalised dump
# of every object migrate touches.
# shellcheck shell=bash

EX=$CW_SOURCE_DIR/examples/longhorn-1.1-cluster

# The example's manifests with the Longhorn namespace replaced by $NS.
mig_manifests() { # DIR
  mkdir -p "$1"
  local f
  for f in longhorn-system/volumes.yaml longhorn-system/cronjobs.json longhorn-system/recurringjobs.yaml \
           longhorn-system/configmap-longhorn-storageclass.yaml cluster/storageclasses.yaml; do
    sed -e "s/namespace: longhorn-system/namespace: $NS/; s/\"namespace\": \"longhorn-system\"/\"namespace\": \"$NS\"/" \
      "$EX/$f" > "$1/$(basename "$f")"
  done
  # The export's ownerReferences name the volumes' old uids: the garbage collector would delete
  # such CronJobs at once, so seed them without.
  # Longhorn 1.1 wrote them as batch/v1beta1, which Kubernetes 1.25+ no longer serves: there they
  # are seeded as batch/v1 (the same fields).
  jq --arg v "$([ "${CW_E2E_K8S:-1.20}" = 1.20 ] && echo batch/v1beta1 || echo batch/v1)" \
    'del(.items[].metadata.ownerReferences) | .items[].apiVersion = $v' "$1/cronjobs.json" > "$1/cronjobs.json.tmp" &&
    mv "$1/cronjobs.json.tmp" "$1/cronjobs.json"
  # Longhorn's finalizer would keep deleted volumes forever without Longhorn running.
  kc create --dry-run=client -f "$1/volumes.yaml" -o json |
    jq -s '{apiVersion: "v1", kind: "List", items: [.[] | if .items then .items[] else . end | del(.metadata.finalizers)]}' > "$1/volumes.json" &&
    rm "$1/volumes.yaml"
}

# Seeds (or re-seeds) the example into $NS and the cluster's StorageClasses.
mig_seed() {
  kc delete volumes.longhorn.io,recurringjobs.longhorn.io --all -n "$NS" --wait=true >/dev/null 2>&1
  kc delete cronjobs,configmaps,leases --all -n "$NS" --wait=true >/dev/null 2>&1
  kc delete storageclass longhorn longhorn-db longhorn-scratch local-path --ignore-not-found --wait=true >/dev/null 2>&1
  local d=$E2E_DIR/seed
  rm -rf "$d"; mig_manifests "$d"
  local f
  for f in "$d"/*; do
    kc create -f "$f" >/dev/null || e2e_fail "seeding $f failed"
  done
}

# A normalised dump: what migrate reads and writes, without server-owned fields.
mig_state() {
  kc get volumes.longhorn.io -n "$NS" -o json |
    jq -S '[.items[] | {name: .metadata.name, labels: (.metadata.labels // {}), jobs: .spec.recurringJobs}] | sort_by(.name)'
  kc get recurringjobs.longhorn.io -n "$NS" -o json | jq -S '[.items[] | {name: .metadata.name, spec}] | sort_by(.name)'
  kc get storageclass -o json | jq -S '[.items[] | {name: .metadata.name, provisioner, parameters, reclaimPolicy, annotations: .metadata.annotations}] | sort_by(.name)'
  kc get configmap -n "$NS" -o json | jq -S '[.items[] | select(.metadata.name != "kube-root-ca.crt") | {name: .metadata.name, data}] | sort_by(.name)'
  kc get cronjobs -n "$NS" -o json | jq -S '[.items[] | select(.metadata.deletionTimestamp == null) | .metadata.name] | sort'
  kc get leases -n "$NS" -o json | jq -S '[.items[] | .metadata.name]'
}

# cw_migrate ARGS...: migrate against the scenario's cluster and namespace.
cw_migrate() { cw migrate --namespace "$NS" --lease-duration 3s "$@"; }
