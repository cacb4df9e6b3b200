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

# Seeds (or re-seeds) the example into $NS and the cluster's StorageClasses. The manifests are
# made once per scenario; a seed is three kubectl calls (the crash scenario seeds twenty times).
mig_seed() {
  kc delete volumes.longhorn.io,recurringjobs.longhorn.io,cronjobs,configmaps,leases --all -n "$NS" \
    --wait=true >/dev/null 2>&1
  kc delete storageclass longhorn longhorn-db longhorn-scratch local-path --ignore-not-found --wait=true >/dev/null 2>&1
  local d=$E2E_DIR/seed
  [ -s "$d/volumes.json" ] || { rm -rf "$d"; mig_manifests "$d"; }
  # One create of the directory, its files in name order as before (configmap, cronjobs,
  # recurringjobs, storageclasses, volumes).
  kc create -f "$d" >/dev/null || e2e_fail "seeding $d failed"
}

# A normalised dump: what migrate reads and writes, without server-owned fields (two kubectl
# calls: the namespace's kinds in one List, and the StorageClasses).
mig_state() {
  local ns
  ns=$(kc get volumes.longhorn.io,recurringjobs.longhorn.io,configmaps,cronjobs,leases -n "$NS" -o json)
  jq -S '[.items[] | select(.kind == "Volume") | {name: .metadata.name, labels: (.metadata.labels // {}), jobs: .spec.recurringJobs}] | sort_by(.name)' <<<"$ns"
  jq -S '[.items[] | select(.kind == "RecurringJob") | {name: .metadata.name, spec}] | sort_by(.name)' <<<"$ns"
  kc get storageclass -o json | jq -S '[.items[] | {name: .metadata.name, provisioner, parameters, reclaimPolicy, annotations: .metadata.annotations}] | sort_by(.name)'
  jq -S '[.items[] | select(.kind == "ConfigMap" and .metadata.name != "kube-root-ca.crt") | {name: .metadata.name, data}] | sort_by(.name)' <<<"$ns"
  jq -S '[.items[] | select(.kind == "CronJob" and .metadata.deletionTimestamp == null) | .metadata.name] | sort' <<<"$ns"
  jq -S '[.items[] | select(.kind == "Lease") | .metadata.name]' <<<"$ns"
}

# cw_migrate ARGS...: migrate against the scenario's cluster and namespace.
cw_migrate() { cw migrate --namespace "$NS" --lease-duration 3s "$@"; }
