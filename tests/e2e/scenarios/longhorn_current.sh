#!/usr/bin/env bash
# Longhorn 1.4 to 1.12 — the releases that write batch/v1 CronJobs — on the current Kubernetes, with
# each release's own CRDs (tests/fixtures/longhorn-*/) applied as users apply them: kubectl apply
# with strict field validation, no --validate=false, CEL rules enforced, one release over the
# other in the order upgrades go (1.2 and 1.3, whose clusters ran on 1.20: longhorn_versions.sh):
#  - every release's CRDs apply (kubectl warns only where a release brings upstream's string format
#    "int64") and become Established; a RecurringJob's spec.name
#    is kept in each version they serve; 1.11+'s CEL rules refuse a change to an immutable Volume
#    field (the apiserver says which rule);
#  - its longhorn-manager DaemonSet's image (1.10.2 as current charts write it, docker.io/...) makes
#    the controller write that release's CronJobs, stored as batch/v1 and equal to the fixture
#    (annotation byte for byte, labels, owner, spec less the apiserver's defaults);
#  - on 1.12.1 with the webhook registered: a RecurringJob the CRD's schema refuses and one the
#    webhook refuses, each answer naming who refused it;
#  - an unknown version (v9.0.0) stands the reconcilers down (no CronJob written, the gauge, one
#    log line naming --longhorn-version) until the DaemonSet runs a release again.
. "$(dirname "$0")/../lib.sh"
CW_E2E_POLL=${CW_E2E_POLL:-0.2} # nine controllers come and go: look often

e2e_start current
NS=longhorn-system
kc create namespace "$NS" >/dev/null || e2e_fail "cannot create namespace $NS"

. "$(dirname "$0")/../longhorn_releases.sh" # rj, fixture_jobs, ctl, cj, like_fixture, info, standing
# The image each release's DaemonSet runs: from 1.10.2 Longhorn's chart and manifest write the
# registry (docker.io/longhornio/...); before, the Docker Hub short form.
image_of() {
  case $1 in
    1.10.* | 1.11.* | 1.12.*) echo "docker.io/longhornio/longhorn-manager:v$1" ;;
    *) echo "longhornio/longhorn-manager:v$1" ;;
  esac
}

# How many CRDs each release's deploy/longhorn.yaml installs (tests/fixtures/longhorn-*/README.md).
declare -A CRDS_OF=([1.4.4]=20 [1.5.5]=21 [1.6.4]=22 [1.7.4]=22 [1.8.2]=22 [1.9.3]=22 [1.10.2]=22 [1.11.3]=22 [1.12.0]=23 [1.12.1]=25)
W='Warning: unrecognized format "int64"'
declare -A INT64_WARNING=([1.4.4]=$W [1.10.2]=$W [1.12.1]=$W) # see the loop

assert_eq "$(kc api-versions | grep -cx batch/v1beta1)" 0 "batch/v1beta1 is not served (removed in Kubernetes 1.25)"

for v in 1.4.4 1.5.5 1.6.4 1.7.4 1.8.2 1.9.3 1.10.2 1.11.3 1.12.1; do
  e2e_step "Longhorn $v's CRDs (all its install manifest's) applied as users upgrade: over the last release's, strict, Established"
  lh_upgrade_crds "$v"
  assert_eq "$(kc get crd -o json | jq '[.items[] | select(.spec.group == "longhorn.io")] | length')" "${CRDS_OF[$v]}" \
    "longhorn.io CRDs on the cluster after Longhorn $v's"
  # Kubernetes 1.37 warns about an OpenAPI format it does not know: upstream's CRDs give strings
  # the format "int64" (a Go type name). It warns about a CRD that gains one (strategy.go's
  # WarningsOnUpdate ratchets), so users upgrading see it where a release brings new ones: 1.4.4's
  # engines, replicas and volumes (the first install), 1.10.2's backups, 1.12.1's enginefrontends
  # and shards. Nothing else is said.
  assert_eq "$LH_APPLY_WARNINGS" "${INT64_WARNING[$v]:-}" "Longhorn $v's CRDs: kubectl's stderr"
  served=$(kc get crd recurringjobs.longhorn.io -o json | jq -r '[.spec.versions[] | select(.served) | .name] | join(" ")')
  for av in $served; do
    assert_ok kc create --validate=strict -f <(rj "$av" "named-$av" "named-$av")
    assert_eq '"named-'$av'"' "$(spec_name "$av" "named-$av")" "Longhorn $v, $av: spec.name after create"
  done
  case $v in
    1.4.4 | 1.5.5 | 1.6.4 | 1.7.4 | 1.8.2) assert_eq "v1beta1 v1beta2" "$served" "$v serves both" ;;
    *) assert_eq v1beta2 "$served" "$v serves v1beta2 only" ;;
  esac
  case $v in
    1.11.* | 1.12.*)
      # The Volume schema's CEL rules are enforced here (Kubernetes 1.20 dropped them).
      assert_ok kc create --validate=strict -n "$NS" -f - <<EOF
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: cel-$v}
spec: {size: "1073741824", numberOfReplicas: 3, encrypted: false, frontend: blockdev}
EOF
      assert_fails --match "The Volume \"cel-$v\" is invalid: spec.encrypted: Invalid value: true: Encrypted is immutable" \
        kc patch volumes.longhorn.io -n "$NS" "cel-$v" --type merge -p '{"spec":{"encrypted":true}}'
      assert_ok kc delete volumes.longhorn.io -n "$NS" "cel-$v" ;;
  esac
  minor=${v%.*}
  image=$(image_of "$v")
  e2e_step "Longhorn $v: a longhorn-manager DaemonSet running $image, the controller writes its manager's CronJobs"
  lh_manager "$image"
  fixture_jobs v1beta2
  ctl "ctl-$v"
  for j in "${FIXED[@]}"; do wait_for 20 "Longhorn $v's CronJob $j" has_cj "$j"; done
  like_fixture "$v" "$image"
  assert_eq "$(info "ctl-$v" "v$v" "$minor" daemonset)" 1 "longhorn_version_info of $v"
  grep -qF "msg=\"recurringjob: writing as Longhorn $v's manager does (the longhorn-manager image $image is Longhorn $minor, from the daemonset)\"" \
    "$(log_of "ctl-$v")" || e2e_fail "no 'writing as Longhorn $v' line in $(log_of "ctl-$v")"
  if [ "$v" = 1.9.3 ]; then
    e2e_step "Longhorn 1.9.3: taint-toleration xEqual:;x=Exists: is one toleration, parameters on a snapshot task are written (issue 34 (1), (3))"
    # Upstream's util.GetDistinctTolerations keys each toleration by key+operator+value+effect
    # joined with no separator, the last one winning: xEqual/Exists and x/Equal/Exists are one.
    # datastore.ValidateRecurringJobParameters checks backup tasks only: a snapshot task's
    # parameters are Longhorn's to ignore, and the controller writes the CronJob all the same.
    assert_ok kc patch "recurringjobs.v1beta2.longhorn.io" -n "$NS" "${FIXED[1]}" --type merge \
      -p '{"spec":{"parameters":{"full-backup-interval":"x","anything":"1"}}}'
    assert_ok kc apply --validate=strict -n "$NS" -f - <<'EOF'
apiVersion: longhorn.io/v1beta2
kind: Setting
metadata: {name: taint-toleration}
value: "xEqual:;x=Exists:"
EOF
    want=$(jq -r "$LH_ANN" "$CW_SOURCE_DIR/tests/fixtures/longhorn-1.9.3/cronjob-${FIXED[1]}.json" |
      sed 's|"serviceAccountName":"longhorn-service-account"}|"serviceAccountName":"longhorn-service-account","tolerations":[{"key":"x","operator":"Equal","value":"Exists"}]}|')
    [[ $want == *'"value":"Exists"}]}'* ]] || e2e_fail "the expected annotation was not built: $want"
    tolerated() { [ "$(cj "${FIXED[1]}" | jq -r "$LH_ANN")" = "$want" ]; }
    wait_for 20 "${FIXED[1]}'s CronJob with upstream's one toleration" tolerated
    assert_eq "$(cj "${FIXED[1]}" | jq -c '.spec.jobTemplate.spec.template.spec.tolerations')" \
      '[{"key":"x","operator":"Equal","value":"Exists"}]' "the stored CronJob's tolerations"
    assert_eq "$(grep -c 'spec.parameters' "$(log_of "ctl-$v")")" 0 "the controller's words about the parameters"
    assert_ok kc delete settings.longhorn.io -n "$NS" taint-toleration
    assert_ok kc patch "recurringjobs.v1beta2.longhorn.io" -n "$NS" "${FIXED[1]}" --type json \
      -p '[{"op":"remove","path":"/spec/parameters"}]'
  fi
  if [ "$v" = 1.12.1 ]; then
    e2e_step "a RecurringJob whose cron carries CRON_TZ=: the CronJob Longhorn writes is refused by Kubernetes 1.29+, said in an Event"
    # Longhorn copies spec.cron into the CronJob's schedule (its own webhook refuses such a cron
    # from 1.3; none is registered here); the current apiserver refuses to create it (1.20 too,
    # with another message: docs/compat.md). No retry loop: one Event, the write counted invalid.
    assert_ok kc create -f <(rj v1beta2 berlin | jq '.spec.cron = "CRON_TZ=Europe/Berlin 0 2 * * *"')
    refused() { kc get events -n "$NS" --field-selector reason=CronJobRefused,involvedObject.name=berlin -o json | jq -e '.items | length == 1' >/dev/null; }
    wait_for 20 "the CronJobRefused Event on RecurringJob berlin" refused
    assert_eq "$(kc get events -n "$NS" --field-selector reason=CronJobRefused,involvedObject.name=berlin -o json | jq -r '.items[0] | "\(.type) \(.message)"')" \
      'Warning the API server refused to create CronJob berlin, so no CronJob runs this job: CronJob.batch "berlin" is invalid: spec.schedule: Invalid value: "CRON_TZ=Europe/Berlin 0 2 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead (Kubernetes 1.29 and later refuse to create a CronJob whose schedule holds TZ or CRON_TZ, Longhorn'"'"'s manager'"'"'s as well: write spec.cron without the time zone prefix, in kube-controller-manager'"'"'s time zone, usually UTC)' \
      "the CronJobRefused Event"
    no_cj berlin || e2e_fail "a CronJob with CRON_TZ in its schedule was stored"
    # cron status, live, names the reason (docs/compat.md; exit 1: a schedule is not healthy).
    rc=0
    E2E_OUT=$(cw cron status -n "$NS" 2>&1) || rc=$?
    assert_eq 1 "$rc" "cron status's exit code with berlin's CronJob refused"
    assert_contains "$E2E_OUT" "  recurringjob $NS/berlin (NoCronJob):
    no CronJob runs it: its cron starts with a time zone (CRON_TZ=Europe/Berlin), and Kubernetes 1.29 and later (and 1.21 and earlier) refuse to create a CronJob whose schedule holds TZ (Longhorn 1.3 and later refuse such a cron too); write spec.cron without the prefix, in kube-controller-manager's time zone (usually UTC)"
    [ "$(metric_sum "ctl-$v" cronwarden_controller_recurringjob_writes_total 'result="invalid"')" -ge 1 ] ||
      e2e_fail "the refused write is not counted as result=invalid"
    assert_ok kc delete recurringjobs.longhorn.io -n "$NS" berlin

    e2e_step "Longhorn 1.12.1 and the webhook: the CRD's schema refuses one RecurringJob, the webhook another"
    e2e_issue_cert webhook IP:127.0.0.1
    PORT=$(cwc_free_port)
    e2e_bg webhook "$CW_BINARY" webhook --listen "127.0.0.1:$PORT" --tls-cert-file "$CW_E2E_DIR/pki/webhook.crt" \
      --tls-private-key-file "$CW_E2E_DIR/pki/webhook.key" --threads 2 --longhorn-version=v1.12.1
    wait_for 20 "webhook /readyz" curl -fsS --cacert "$CW_E2E_SIGNING_CA" "https://127.0.0.1:$PORT/readyz"
    e2e_register_webhook "https://127.0.0.1:$PORT" "$(base64 -w0 < "$CW_E2E_SIGNING_CA")"
    probe() { ! kc create --dry-run=server -f <(rj v1beta2 probe | jq '.spec.cron = "0 0 * *"') >/dev/null 2>&1; }
    wait_for 30 "the webhook configurations to take effect" probe
    # The schema (an enum) refuses before any webhook is called: the apiserver names the field.
    # (1.12.1's RecurringJob CRD has no CEL rule: its x-kubernetes-validations are the Volume's,
    # three, shown enforced above, and the ShardGroup's one.)
    assert_fails --match 'The RecurringJob "nap" is invalid: spec.task: Unsupported value: "nap": supported values: "snapshot", "snapshot-force-create", "snapshot-cleanup", "snapshot-delete", "backup", "backup-force-create", "filesystem-trim", "system-backup"' \
      kc create -f <(rj v1beta2 nap | jq '.spec.task = "nap"')
    [[ $E2E_OUT != *cronwarden* ]] || e2e_fail "the schema's refusal mentions cronwarden: $E2E_OUT"
    # A cron robfig cannot parse passes the schema (a string); the webhook refuses it.
    assert_fails --match 'Error from server (Forbidden): error when creating "/dev/fd/63": admission webhook "validate.cronwarden.io" denied the request: spec.cron: invalid cron expression "61 * * * *": end of range (61) above maximum (59): 61' \
      kc create -f <(rj v1beta2 minute61 | jq '.spec.cron = "61 * * * *"')
    kc delete validatingwebhookconfiguration cronwarden >/dev/null
    kc delete mutatingwebhookconfiguration cronwarden >/dev/null
    e2e_stop webhook

    e2e_step "an unknown Longhorn (v9.0.0): both reconcilers stand down, no CronJob written; a release again: written"
    lh_manager longhornio/longhorn-manager:v9.0.0
    for c in recurringjob volume; do
      wait_for 10 "$c to stand down" eval '[ "$(standing "ctl-$v" '$c' unsupported-version)" = 1 ]'
    done
    assert_eq "$(info "ctl-$v" v9.0.0 "" daemonset)" 1 "longhorn_version_info of v9.0.0"
    assert_eq "$(info "ctl-$v" "v$v" "$minor" daemonset)" 0 "longhorn_version_info of $v, after"
    writes=$(metric_sum "ctl-$v" cronwarden_controller_recurringjob_writes_total)
    assert_ok kc delete cronjobs.batch -n "$NS" "${FIXED[1]}"
    assert_ok kc create -f <(rj v1beta2 while-unknown)
    sleep 3
    no_cj "${FIXED[1]}" || e2e_fail "a CronJob deleted while standing down was made again"
    no_cj while-unknown || e2e_fail "a CronJob was made while standing down"
    assert_eq "$(metric_sum "ctl-$v" cronwarden_controller_recurringjob_writes_total)" "$writes" "writes while standing down"
    [ "$(metric_sum "ctl-$v" cronwarden_controller_reconciles_total 'outcome="standing_down"')" -ge 2 ] ||
      e2e_fail "no reconcile ended standing_down"
    # One line per reconciler, however many reconciles stood down: the one naming the flag.
    assert_eq "$(grep -cF 'msg="standing down: this reconciler makes no writes" controller=recurringjob reason=unsupported-version why="recurringjob: standing down, no CronJob is written: the longhorn-manager image longhornio/longhorn-manager:v9.0.0 is a Longhorn version cronwarden has no table for (it knows 1.2 to 1.12); --longhorn-version=1.<minor> (1.2 to 1.12) makes cronwarden write as that version'"'"'s manager"' \
      "$(log_of "ctl-$v")")" 1 "recurringjob's stand-down lines naming --longhorn-version"
    assert_eq "$(grep -c 'msg="standing down: this reconciler makes no writes" controller=volume reason=unsupported-version why=".*--longhorn-version=1.<minor>' \
      "$(log_of "ctl-$v")")" 1 "volume's stand-down lines naming --longhorn-version"
    lh_manager "$image"
    wait_for 10 "writing again" eval '[ "$(standing "ctl-$v" recurringjob unsupported-version)" = 0 ]'
    for j in "${FIXED[1]}" while-unknown; do wait_for 20 "$j's CronJob, written again" has_cj "$j"; done
    like_fixture "$v" "$image"
  fi
  e2e_stop "ctl-$v"
  # The next release starts from the fixtures' two jobs alone, as this one did.
  assert_ok kc delete recurringjobs.longhorn.io -n "$NS" --all
  assert_ok kc delete cronjobs.batch -n "$NS" --all
done

e2e_step "Longhorn 1.12.0's CRDs (its install manifest's 23) and no DaemonSet: identified as 1.12.0 from the CRDs (issue 34 (4))"
# v1.12.0 installs enginefrontends (new in 1.12) but not yet shardgroups and shards (v1.12.1):
# tests/fixtures/longhorn-1.12.0/README.md.
assert_ok kc delete daemonset -n "$NS" longhorn-manager --ignore-not-found
lh_upgrade_crds 1.12.0 # 1.12.1's shardgroups and shards go; all 23 Established and discovered
assert_eq "$LH_APPLY_WARNINGS" "" "Longhorn 1.12.0's CRDs over 1.12.1's: kubectl's stderr"
mapfile -t ALL1120 < <(lh_crd_names 1.12.0)
assert_eq "${#ALL1120[@]}" "${CRDS_OF[1.12.0]}" "CRDs in Longhorn 1.12.0's install manifest"
assert_eq "$(kc get crd -o json | jq '[.items[] | select(.spec.group == "longhorn.io")] | length')" "${CRDS_OF[1.12.0]}" \
  "longhorn.io CRDs on the cluster: 1.12.0's, none left of another release"
ctl ctl-1.12.0
# The version is worked out when a reconcile asks for it (or the DaemonSet changes): a RecurringJob.
assert_ok kc create -f <(rj v1beta2 on-1-12-0)
wait_for 20 "longhorn_version_info of 1.12.0 from the CRDs" eval '[ "$(info ctl-1.12.0 1.12.0 1.12 crds)" = 1 ]'
grep -qF 'msg="recurringjob: writing as Longhorn 1.12.1'"'"'s manager does (the longhorn.io CRDs are those of Longhorn 1.12.0, from the crds)"' \
  "$(log_of ctl-1.12.0)" || e2e_fail "no 'writing as Longhorn 1.12.1 (CRDs of 1.12.0)' line in $(log_of ctl-1.12.0)"
e2e_stop ctl-1.12.0
assert_ok kc delete crd "${ALL1120[@]}" --wait=true
