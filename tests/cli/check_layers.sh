#!/usr/bin/env bash
# scripts/check-layers refuses each kind of include that goes the wrong way (docs/architecture.md,
# "Floors"): it runs over a copy of the tree's C files with one bad include added — or one
# exception made stale — and must fail naming that file, line and rule; over the copy unchanged
# it must pass.
. "$(dirname "$0")/lib.sh"
cd "$SRC"
DIRS="lib cron kube defaults longhorn velero oadp schedules migrate webhook controller health audit cmd"

BASE="$TMP/base"
mkdir -p "$BASE/scripts"
cp scripts/check-layers "$BASE/scripts/"
specs=()
for d in $DIRS; do specs+=("$d/*.[ch]"); done
git ls-files -z -- "${specs[@]}" | tar --null -T - -cf - | tar -xf - -C "$BASE"

# layers NAME FILE INCLUDE: a copy of the tree with `#include "INCLUDE"` added to FILE (none when
# FILE is -), checked; the output in $TMP/out and $TMP/err, the copy in $TMP/NAME.
layers() {
  local name=$1 file=$2 inc=$3 want=$4 dir="$TMP/$1"
  cp -a "$BASE" "$dir"
  [ "$file" = - ] || printf '#include "%s"\n' "$inc" >>"$dir/$file"
  git -C "$dir" init -q && git -C "$dir" add -A
  run "$want" "$dir/scripts/check-layers"
}
# refused NAME FILE INCLUDE RULE: the added include is named with its line and the rule it breaks.
refused() {
  layers "$1" "$2" "$3" 1
  local line
  line=$(wc -l <"$TMP/$1/$2")
  assert_file_contains "$TMP/err" "$2:$line: includes \"$3\" — $4" "$1"
}

layers unchanged - - 0
assert_file_contains "$TMP/out" "check-layers: every include follows docs/architecture.md" "unchanged"

# A front door never includes another front door.
refused webhook_controller webhook/server.c controller/core/manager.h \
  "webhook/ may only include from: webhook longhorn velero oadp defaults kube cron lib"
refused migrate_health migrate/plan.c health/render.h "migrate/ may only include from:"
refused audit_migrate audit/inventory.c migrate/plan.h "audit/ may only include from:"
refused controller_webhook controller/schedule_apply.c webhook/review.h \
  "controller/ may only include from:"
# The Volume reconciler's one-volume migration decision is longhorn/volplan's, not migrate/'s.
refused controller_migrate controller/volume_apply.c migrate/plan.h \
  "controller/ may only include from:"
# The core includes no floor, no reconciler, no policy.
refused core_velero controller/core/shell.c velero/backupqueue.h \
  "controller/core/ may only include from: controller/core kube cron lib"
refused core_oadp controller/core/manager.c oadp/nonadmin.h "controller/core/ may only include from:"
refused core_reconciler controller/core/informer.c controller/schedule_apply.h \
  "controller/core/ may only include from:"
refused core_defaults controller/core/queue.c defaults/policy.h "controller/core/ may only include from:"
# A floor includes no front door and no other floor.
refused velero_controller velero/schedule.c controller/core/store.h \
  "velero/ may only include from: velero defaults kube cron lib"
refused oadp_velero oadp/nonadmin.c velero/schedule.h "oadp/ may only include from:"
refused longhorn_controller longhorn/rjctl.c controller/longhorn_watch.h \
  "longhorn/ may only include from: longhorn defaults kube cron lib"
refused longhorn_migrate longhorn/volume.c migrate/plan.h "longhorn/ may only include from:"
refused longhorn_velero longhorn/version.c velero/schedule.h "longhorn/ may only include from:"
# schedules/, the floor over Longhorn's and Velero's, includes no front door, not oadp/; no floor
# of one system includes it; the front doors it serves do.
refused schedules_health schedules/collect.c health/render.h \
  "schedules/ may only include from: schedules longhorn velero defaults kube cron lib"
refused schedules_controller schedules/eval.c controller/schedulehealth.h \
  "schedules/ may only include from:"
refused schedules_oadp schedules/runs.c oadp/nonadmin.h "schedules/ may only include from:"
refused longhorn_schedules longhorn/volume.c schedules/health.h "longhorn/ may only include from:"
refused velero_schedules velero/schedule.c schedules/health.h "velero/ may only include from:"
layers health_schedules health/render_text.c schedules/health.h 0
layers controller_schedules controller/schedulehealth.c schedules/health.h 0
# cmd/ includes a front door's entry headers only.
refused cmd_internal cmd/cron.c webhook/review.h "cmd/ may include a front door's entry headers"
layers cmd_entry cmd/cron.c audit/audit.h 0
# ... and any floor (the Longhorn minors --longhorn-version accepts).
layers cmd_floor cmd/cron.c longhorn/version.h 0

# An exception whose include went away must be removed from the list (the list is empty now:
# one that matches no include is written into a copy's list).
cp -a "$BASE" "$TMP/stale2"
sed -i 's|^EXCEPTIONS=""$|EXCEPTIONS="controller/volume_apply.c -> migrate/plan.h: gone with issue 32"|' \
  "$TMP/stale2/scripts/check-layers"
grep -q '^EXCEPTIONS="controller/volume_apply.c' "$TMP/stale2/scripts/check-layers" ||
  { echo "the copy's EXCEPTIONS line was not found: the test needs a look" >&2; exit 1; }
git -C "$TMP/stale2" init -q && git -C "$TMP/stale2" add -A
run 1 "$TMP/stale2/scripts/check-layers"
assert_file_contains "$TMP/err" \
  "the exception \"controller/volume_apply.c -> migrate/plan.h\" matches no include any more" \
  "stale"
done_tests
