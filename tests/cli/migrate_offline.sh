#!/usr/bin/env bash
# Offline migrate end to end: exit codes, reports, written manifests, idempotence, determinism and
# malformed input. No cluster needed.
. "$(dirname "$0")/lib.sh"
EX=$SRC/examples/longhorn-1.1-cluster
cd "$SRC"   # report sources are relative to the paths given

# 1. The audit of the example: invalid jobs and a conflict -> exit 1, report as reviewed.
run 1 "$CW" migrate --from-file examples/longhorn-1.1-cluster -o json
assert_file_eq "$TMP/out" "$SRC/tests/cli/golden/examples-report.json" "example audit report"
cp "$TMP/out" "$TMP/first.json"
run 1 "$CW" migrate --from-file examples/longhorn-1.1-cluster -o json
assert_file_eq "$TMP/out" "$TMP/first.json" "same input gives a byte-identical report"
run 1 "$CW" migrate --from-file examples/longhorn-1.1-cluster
assert_file_eq "$TMP/out" "$SRC/tests/cli/golden/examples-report.txt" "example audit, text"
run 1 "$CW" migrate --from-file examples/longhorn-1.1-cluster -o yaml
assert_file_contains "$TMP/out" "kind: MigrationReport" "yaml report"
run 1 "$CW" migrate --from-file examples/longhorn-1.1-cluster --report "$TMP/r.json" -o text
assert_file_eq "$TMP/r.json" "$TMP/first.json" "--report writes the JSON report"

# 2. Writing: every input file mirrored, recurringjobs.yaml added, unrelated files unchanged.
run 1 "$CW" migrate --from-file "$EX" --output-dir "$TMP/out1" -o json
assert_eq "./apps/analytics.yaml ./apps/workloads.json ./cluster/storageclasses.yaml ./longhorn-system/configmap-longhorn-storageclass.yaml ./longhorn-system/cronjobs.json ./longhorn-system/recurringjobs.yaml ./longhorn-system/volumes.yaml ./recurringjobs.yaml " "$(cd "$TMP/out1" && find . -type f | sort | tr '\n' ' ')" \
  "output tree"
assert_file_eq "$TMP/out1/apps/workloads.json" "$EX/apps/workloads.json" "unrelated JSON copied"
assert_file_eq "$TMP/out1/apps/analytics.yaml" "$EX/apps/analytics.yaml" "unrelated YAML copied"
assert_file_eq "$TMP/out1/longhorn-system/recurringjobs.yaml" "$EX/longhorn-system/recurringjobs.yaml" "existing RecurringJobs copied"
assert_file_eq "$TMP/out1/recurringjobs.yaml" "$SRC/tests/cli/golden/examples-recurringjobs.yaml" "new RecurringJobs"
assert_file_eq "$TMP/out1/cluster/storageclasses.yaml" "$SRC/tests/cli/golden/examples-storageclasses.yaml" "rewritten StorageClasses"
assert_eq 7 "$(grep -c '"kind": "CronJob"' "$TMP/out1/longhorn-system/cronjobs.json")" "only the kept legacy CronJobs remain"
jq . "$TMP/out1/longhorn-system/cronjobs.json" >/dev/null || fail "rewritten JSON List is not valid JSON"

# 3. Idempotence: the written tree plans to nothing (only the invalid and conflicting remain).
run 1 "$CW" migrate --from-file "$TMP/out1" -o json
assert_eq "[0,0,0,0,0]" "$(jq -c '.summary | [.volumes.toMigrate, .storageClasses.toMigrate, .configMaps.toMigrate, .recurringJobs.toCreate, .cronJobs.toDelete]' "$TMP/out")" "second run finds nothing to do"
run 1 "$CW" migrate --from-file "$TMP/out1" --output-dir "$TMP/out2" -o json
for f in apps/analytics.yaml apps/workloads.json cluster/storageclasses.yaml longhorn-system/volumes.yaml longhorn-system/cronjobs.json; do
  assert_file_eq "$TMP/out2/$f" "$TMP/out1/$f" "rewriting a migrated tree changes nothing ($f)"
done

# 4. --detailed-exitcode on a clean subset: 3 while changes are pending, 0 once migrated.
mkdir -p "$TMP/clean"
cat > "$TMP/clean/vol.yaml" <<'YAML'
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: pvc-1, namespace: longhorn-system}
spec:
  recurringJobs:
  - {name: snap, task: snapshot, cron: "0 */6 * * *", retain: 4}
YAML
run 3 "$CW" migrate --from-file "$TMP/clean" --detailed-exitcode
run 0 "$CW" migrate --from-file "$TMP/clean"
run 0 "$CW" migrate --from-file "$TMP/clean" --output-dir "$TMP/clean-out" --detailed-exitcode
run 0 "$CW" migrate --from-file "$TMP/clean-out" --detailed-exitcode
run 3 "$CW" migrate --from-file - --detailed-exitcode -o json < "$TMP/clean/vol.yaml"
assert_eq "<stdin>: document 1" "$(jq -r '.volumes[0].source' "$TMP/out")" "stdin source"

# 5. Malformed input: exit 2, the message names file, document and field, nothing is written.
printf 'apiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata: {name: v}\nspec:\n  recurringJobs:\n  - {task: snapshot, cron: "@daily", retain: "x"}\n' > "$TMP/clean/bad.yaml"
run 2 "$CW" migrate --from-file "$TMP/clean" --output-dir "$TMP/never"
assert_eq "cronwarden migrate: $TMP/clean/bad.yaml: document 1: spec.recurringJobs[0].retain: expected integer, got string" "$(cat "$TMP/err")" "type error message"
[ -e "$TMP/never" ] && fail "output written despite malformed input"
printf 'a: [1,\n' > "$TMP/clean/bad.yaml"
run 2 "$CW" migrate --from-file "$TMP/clean"
assert_eq "cronwarden migrate: $TMP/clean/bad.yaml: line 2, column 1: did not find expected node content while parsing a flow node" "$(cat "$TMP/err")" "YAML syntax error message"
printf '{"kind": "List", "items": [{"apiVersion": "longhorn.io/v1beta1", "kind": "Volume", "metadata": {"name": "v"}},\n  {"oops"}]}\n' > "$TMP/clean/bad.json"
rm "$TMP/clean/bad.yaml"
run 2 "$CW" migrate --from-file "$TMP/clean"
assert_eq "cronwarden migrate: $TMP/clean/bad.json: items[1]: line 2, column 10: object property name separator ':' expected" "$(cat "$TMP/err")" "JSON syntax error message" 
rm "$TMP/clean/bad.json"
run 2 "$CW" migrate --from-file "$TMP/does-not-exist"
assert_eq "cronwarden migrate: $TMP/does-not-exist: No such file or directory" "$(cat "$TMP/err")" "missing input"
run 2 "$CW" migrate --from-file "$TMP/clean" --output-dir "$TMP/clean"
assert_file_contains "$TMP/err" "--output-dir $TMP/clean is not empty" "refuses to write into the input"
run 2 "$CW" migrate --from-file "$TMP/clean" --output-dir "$TMP/clean" --overwrite
assert_file_contains "$TMP/err" "is inside the input directory" "refuses to overwrite inputs"
# Online, no directory for the plan's item file: exit 2 before anything, and the message says what
# to do. (Offline keeps the items in memory beside its input: no scratch directory needed.)
TMPDIR="$TMP/no-such-dir" run 2 "$CW" migrate --kubeconfig "$TMP/no-such-kubeconfig"
assert_eq "cronwarden migrate: cannot create the plan's item file in $TMP/no-such-dir: No such file or directory; set TMPDIR to a writable directory (in a Pod with a read-only root filesystem, mount an emptyDir there)" "$(cat "$TMP/err")" "no scratch directory"
TMPDIR="$TMP/no-such-dir" run 1 "$CW" migrate --from-file examples/longhorn-1.1-cluster
assert_file_eq "$TMP/out" "$SRC/tests/cli/golden/examples-report.txt" "offline needs no scratch directory"

# 6. Usage errors.
run 2 "$CW" migrate --bogus
assert_eq "cronwarden migrate: unknown flag '--bogus' (see 'cronwarden migrate --help')" "$(cat "$TMP/err")" "unknown flag"
run 2 "$CW" migrate --from-file "$TMP/clean" -o xml
run 2 "$CW" migrate --output-dir x
run 0 "$CW" migrate --help
assert_file_contains "$TMP/out" "--detailed-exitcode" "help lists flags"
done_tests
