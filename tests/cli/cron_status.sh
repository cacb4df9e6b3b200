#!/usr/bin/env bash
# cronwarden cron status on manifests (docs/status.md): golden reports of examples/status-cluster
# (one schedule in each state, volumes of each verdict), Backups made by Velero's backup sync,
# exit codes for a CI gate, --window, --grace and --default-group, stdin, and refusals. No cluster
# needed (the live command: tests/e2e/scenarios/status.sh).
. "$(dirname "$0")/lib.sh"
cd "$SRC"
EX=examples/status-cluster
OK=tests/cli/status/healthy.yaml
NOW=2026-11-24T09:00:00Z

# 1. The example: golden text, JSON and volumes; unhealthy, so exit 1.
run 1 "$CW" cron status -f "$EX" --now "$NOW"
assert_file_eq "$TMP/out" tests/cli/golden/status-example.txt "example status, text"
run 1 "$CW" cron status -f "$EX" --now "$NOW" -o json --volumes
assert_file_eq "$TMP/out" tests/cli/golden/status-example.json "example status, JSON with volumes"
run 1 "$CW" cron status -f "$EX" --now "$NOW" --volumes
assert_file_eq "$TMP/out" tests/cli/golden/status-example-volumes.txt "example status, volumes"
assert_eq "false 6 1 2" "$("$CW" cron status -f "$EX" --now "$NOW" -o json | jq -r '[.healthy, .summary.unhealthy, .summary.unprotected, .summary.stale] | join(" ")')" "JSON summary"

# 2. A healthy cluster: exit 0 (a CronJob or CI gate passes), also from stdin.
run 0 "$CW" cron status -f "$OK" --now "$NOW"
assert_file_contains "$TMP/out" "2 schedules, 0 unhealthy; 1 volume, 0 unprotected, 0 stale" "healthy summary"
run 0 "$CW" cron status -f - --now "$NOW" -o json < "$OK"
assert_eq "true" "$(jq .healthy "$TMP/out")" "healthy JSON"

# 3. --grace: the Job that started 10 minutes late is on time within the rule's hour, late
#    within 5 minutes.
run 1 "$CW" cron status -f "$OK" --now "$NOW" --grace 5m
assert_file_contains "$TMP/out" "missed 2026-11-24T02:00:00Z: Job backup-daily-29924760 started 10m2s late (grace 5m)" "late with --grace"

# 4. --window: a week judges analytics-6h back to its creation on 2026-11-20, 12 more fire times
#    without a Backup; the rule still judges nothing a Job history limit may have deleted.
run 1 "$CW" cron status -f "$EX" --now "$NOW" --window 168h -o json
assert_eq "168h 604800" "$("$CW" cron status -f "$EX" --now "$NOW" --window 168h | sed -n 's/.*MISSED(\([0-9a-z]*\)).*/\1/p') $(jq .windowSeconds "$TMP/out")" "window in the header and JSON"
assert_eq "14 17 2026-11-20T06:00:00Z" "$(jq -r '.schedules[] | select(.name == "analytics-6h") | "\(.missedRuns) \(.judged.count) \(.judged.first)"' "$TMP/out")" "a week of analytics-6h"
assert_eq "1 2026-11-24T02:00:00Z" "$(jq -r '.schedules[] | select(.name == "backup-daily") | "\(.judged.count) \(.historyFrom)"' "$TMP/out")" "backup-daily: one successful Job kept"

# 5. --default-group "": volumes without job labels have no backup job.
run 1 "$CW" cron status -f "$EX" --now "$NOW" --default-group "" -o json
assert_eq "2" "$(jq .summary.unprotected "$TMP/out")" "default group off"

# 6. Refusals: exit 2 with the reason.
run 2 "$CW" cron status -f "$EX" --now yesterday
assert_file_contains "$TMP/err" "--now" "bad --now"
run 2 "$CW" cron status -f "$EX" --window 30s
assert_file_contains "$TMP/err" "--window must be whole seconds, at least 1m" "window too short"
run 2 "$CW" cron status -f "$EX" --grace 1.5s
assert_file_contains "$TMP/err" "--grace must be whole seconds" "fractional grace"
run 2 "$CW" cron status -f "$EX" -o yaml
run 2 "$CW" cron status -f "$TMP/missing.yaml"
run 2 "$CW" cron status -f "$EX" --default-group "Bad Group"
printf 'kind: RecurringJob\napiVersion: longhorn.io/v1beta2\nmetadata: {name: x, namespace: longhorn-system}\nspec: {cron: [1]}\n' > "$TMP/bad.yaml"
run 2 "$CW" cron status -f "$TMP/bad.yaml"
assert_file_contains "$TMP/err" "bad.yaml: document 1: spec.cron: expected string, got array" "wrong field type names file, document and field"
printf 'kind: Job\napiVersion: batch/v1\nmetadata: {name: x-1, namespace: longhorn-system, creationTimestamp: yesterday}\n' > "$TMP/bad-time.yaml"
run 2 "$CW" cron status -f "$TMP/bad-time.yaml"
assert_file_contains "$TMP/err" "metadata.creationTimestamp" "a bad time names its field"

# 7. The report docs/status.md shows is the one the command prints.
run 1 "$CW" cron status -f "$EX/longhorn-system" --now "$NOW"
sed -n '/^\$ cronwarden cron status -f examples\/status-cluster\/longhorn-system/,/^```$/p' docs/status.md |
  sed '1d;$d' > "$TMP/doc.txt"
assert_file_eq "$TMP/out" "$TMP/doc.txt" "the report in docs/status.md"

# 8. Backups Velero's backup sync made: a new creationTimestamp, the original startTimestamp. The
#    run is taken at its start (the earlier of the two): nightly's last run three nights ago leaves
#    it Missed with the miss counted (its copy, made within today's grace, is no run of today);
#    morning's run of today, copied two hours later, is on time.
run 1 "$CW" cron status -f tests/cli/status/synced.yaml --now "$NOW"
assert_file_eq "$TMP/out" tests/cli/golden/status-synced.txt "synced Backups, text"
run 1 "$CW" cron status -f tests/cli/status/synced.yaml --now "$NOW" -o json
assert_eq "morning Healthy 0 2026-11-24T04:00:03Z|nightly Missed 1 2026-11-21T01:00:04Z" \
  "$(jq -r '[.schedules[] | "\(.name) \(.state) \(.missedRuns) \(.lastStarted)"] | join("|")' "$TMP/out")" "synced Backups, JSON"

# 9. A write error on stdout is a failure.
if "$CW" cron status -f "$EX" --now "$NOW" > /dev/full 2>"$TMP/err"; then fail "writing to a full disk succeeded"; fi
assert_file_contains "$TMP/err" "writing the report" "stdout write error"
done_tests
