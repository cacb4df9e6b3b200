#!/usr/bin/env bash
# Offline migrate as a hostile or careless user runs it: nothing it was given is ever written
# over, into or beside, and a run that fails leaves nothing half-written. The input tree is
# checksummed before and after every run (docs/migrate.md, "What is never written over").
. "$(dirname "$0")/lib.sh"
cd "$TMP"
cp -r "$SRC/examples/longhorn-1.1-cluster" in
sums() { (cd "$TMP/in" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum; }
BEFORE=$(sums)
# Memory bounds hold for the plain binary; AddressSanitizer's shadow memory and redzones make an
# instrumented one (scripts/test runs these scenarios with both) several times bigger.
ASAN=0
grep -q __asan_init "$CW" 2>/dev/null && ASAN=1
unchanged() { assert_eq "$BEFORE" "$(sums)" "input tree unchanged ($1)"; }

# 1. --report never resolves to a file that was read: by name, by symlink, by `..`, by hard link.
run 2 "$CW" migrate --from-file in --report in/cluster/storageclasses.yaml
assert_file_contains "$TMP/err" "--report in/cluster/storageclasses.yaml is the input file in/cluster/storageclasses.yaml; name a file that is not read" "report over an input"
unchanged "report over an input"
ln -s in/cluster/storageclasses.yaml link.yaml
run 2 "$CW" migrate --from-file in --report link.yaml
assert_file_contains "$TMP/err" "is the input file in/cluster/storageclasses.yaml" "report through a symlink"
run 2 "$CW" migrate --from-file in --report in/apps/../cluster/storageclasses.yaml
assert_file_contains "$TMP/err" "is the input file" "report through .."
ln in/longhorn-system/volumes.yaml hard.yaml
run 2 "$CW" migrate --from-file in/longhorn-system --report hard.yaml
assert_file_contains "$TMP/err" "--report hard.yaml is the input file in/longhorn-system/volumes.yaml" "report through a hard link"
rm hard.yaml
unchanged "links"

# 2. Special files are written into, not replaced; a symlink to a file keeps being a link.
mkfifo fifo
cat fifo > fifo.out &
run 1 "$CW" migrate --from-file in --report fifo -o text
wait
[ -p fifo ] || fail "the FIFO was replaced"
assert_eq "MigrationReport" "$(jq -r .kind fifo.out)" "the report came through the FIFO"
mknod null c 1 3 2>/dev/null && {
  run 1 "$CW" migrate --from-file in --report null
  [ -c null ] || fail "the character device was replaced by a regular file"
}
run 1 "$CW" migrate --from-file in --report /dev/stdout -o text
assert_file_contains "$TMP/out" '"kind": "MigrationReport"' "report to /dev/stdout"
echo old > target.json && ln -s target.json report-link.json
run 1 "$CW" migrate --from-file in --report report-link.json
[ -L report-link.json ] || fail "the symlink was replaced"
assert_eq "MigrationReport" "$(jq -r .kind target.json)" "the link's target holds the report"
run 2 "$CW" migrate --from-file in --report missing-dir/report.json
assert_file_contains "$TMP/err" "the directory missing-dir does not exist; create it first" "missing parent"
[ ! -e missing-dir ] || fail "a missing parent directory was created"
unchanged "special files"

# 3. Two inputs with the same relative name: refused before anything is written, naming both.
mkdir -p a b && cp in/apps/analytics.yaml a/x.yaml && cp in/longhorn-system/volumes.yaml b/x.yaml
run 2 "$CW" migrate --from-file a/x.yaml --from-file b/x.yaml --output-dir out-same
assert_file_contains "$TMP/err" "the inputs a/x.yaml and b/x.yaml would both be written to out-same/x.yaml" "same name from two files"
run 2 "$CW" migrate --from-file a --from-file b --output-dir out-same
assert_file_contains "$TMP/err" "the inputs a/x.yaml and b/x.yaml would both be written to out-same/x.yaml" "same name from two directories"
[ ! -e out-same ] || fail "a refused run wrote its output directory"
mkdir -p c/x.yaml d && cp in/apps/analytics.yaml c/x.yaml/y.yaml && cp in/apps/analytics.yaml d/x.yaml
run 2 "$CW" migrate --from-file c --from-file d --output-dir out-fd
assert_file_contains "$TMP/err" "would need out-fd/x.yaml as a file and as a directory" "a file where a directory must go (found by fuzz_outtree)"
[ ! -e out-fd ] || fail "a refused run wrote its output directory"
ls -a | grep -q '^\.out-same\.cronwarden-' && fail "a refused run left its stage"

# 4. A non-empty output directory: refused; with --overwrite only the run's own files change.
mkdir user-out && echo 'my own jobs' > user-out/recurringjobs.yaml && echo notes > user-out/notes.txt
run 2 "$CW" migrate --from-file in --output-dir user-out
assert_file_contains "$TMP/err" "--output-dir user-out is not empty; pass --overwrite" "non-empty output dir"
assert_eq "my own jobs" "$(cat user-out/recurringjobs.yaml)" "the user's file is untouched"
run 1 "$CW" migrate --from-file in --output-dir user-out --overwrite
assert_eq "notes" "$(cat user-out/notes.txt)" "a file the run does not produce is left alone"
assert_file_contains user-out/recurringjobs.yaml "kind: RecurringJob" "--overwrite writes the run's own files"
run 2 "$CW" migrate --from-file in --output-dir in/migrated --overwrite
assert_file_contains "$TMP/err" "--output-dir in/migrated is inside the input directory in" "output inside the input tree"
[ ! -e in/migrated ] || fail "an output directory was made inside the input"
run 2 "$CW" migrate --from-file in --output-dir no/such/parent
assert_file_contains "$TMP/err" "its parent directory does not exist" "missing output parent"
unchanged "output directories"

# 5. A run killed between two files leaves no output directory (only its hidden stage beside it);
#    the next run writes the whole tree.
(CRONWARDEN_FAILPOINTS=offline-write=kill@2 exec "$CW" migrate --from-file in --output-dir out-crash) >/dev/null 2>&1 &&
  fail "the failpoint did not fire"
[ ! -e out-crash ] || fail "a killed run left a partial output directory"
rm -rf .out-crash.cronwarden-*
run 1 "$CW" migrate --from-file in --output-dir out-crash
assert_eq "8" "$(find out-crash -type f | wc -l)" "the complete tree after a rerun"
unchanged "crash"

# 6. Bounded resources on hostile input: memory near 10x the input, work linear in the input,
#    clear refusals. What is bounded is measured in what the run uses (peak RSS, instructions
#    executed), never in seconds, which depend on the machine and on whatever else runs on it.
python3 -c "print('a: [' + ','.join(['[[],[]]'] * 700000) + ']')" > flows.yaml   # 5.6 MB
/usr/bin/time -f '%M' -o flows.time "$CW" migrate --from-file flows.yaml >/dev/null 2>"$TMP/err" || true
assert_file_contains "$TMP/err" "refused so that memory stays near 10 times the input" "nested flow lists"
kib=$(tail -n 1 flows.time)
[ "$ASAN" = 1 ] || [ "$kib" -lt $((12 * 5600 + 20000)) ] || fail "nested flow lists: peak RSS $kib KiB for 5.6 MB"
# N anchors, every 7th of them aliased: the aliases are resolved through an index, so 8 times the
# anchors is about 8 times the work (less: the start-up is fixed); scanning the anchors for each
# alias would make it 64 times. Work is valgrind's count of instructions executed: the
# same on any machine, loaded or not. (An ASan binary cannot run under valgrind; the plain
# build's run of this test checks it.)
anchors() {
  python3 -c "
import sys
n = $1
sys.stdout.write('a:\n' + ''.join('  k%d: &a%d v\n' % (i, i) for i in range(n)) + 'b: [' + ','.join('*a%d' % i for i in range(0, n, 7)) + ']\n')" > "anchors-$1.yaml"
}
instructions() { # FILE: instructions executed by migrate --from-file FILE
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --log-file="$1.vg" \
    "$CW" migrate --from-file "$1" >/dev/null 2>&1 || true
  sed -n 's/^==[0-9]*== I *refs: *\([0-9,]*\)$/\1/p' "$1.vg" | tr -d ,
}
if [ "$ASAN" = 0 ]; then
  command -v valgrind >/dev/null || fail "valgrind is needed to count the work (scripts/test installs it: CW_TEST_PKGS)"
  anchors 7500 && anchors 60000
  small=$(instructions anchors-7500.yaml) big=$(instructions anchors-60000.yaml)
  [ -n "$small" ] && [ -n "$big" ] || fail "no instruction count from valgrind: $(tail -n 3 anchors-7500.yaml.vg)"
  echo "anchors: $small instructions for 7,500, $big for 60,000 ($((big / small))x for 8x the input)"
  [ "$big" -lt $((16 * small)) ] || fail "60,000 anchors: $big instructions, $((big / small)) times those of 7,500 (quadratic?)"
fi
run 2 "$CW" migrate --from-file in --max-input-bytes 50000
assert_file_contains "$TMP/err" "more than --max-input-bytes 50000; raise it to read more" "input budget"
printf '{"apiVersion":"longhorn.io/v1beta1","kind":"Volume",\n "metadata":{"name":"a","labels":{"x":"1","\\u0078":"2"}}}\n' > dup.json
run 2 "$CW" migrate --from-file dup.json
assert_eq "cronwarden migrate: dup.json: line 2, column 43: duplicate key \"x\"" "$(cat "$TMP/err")" "JSON duplicate keys are refused"
printf 'apiVersion: longhorn.io/v1beta1\nkind: Volume\nmetadata: {name: a}\nmetadata: {name: b}\n' > dup.yaml
run 2 "$CW" migrate --from-file dup.yaml
assert_file_contains "$TMP/err" 'duplicate mapping key "metadata"' "YAML duplicate keys are refused"
unchanged "resources"

# 7. Peak memory of the audit of the example stays small (GNU time's maximum resident set).
/usr/bin/time -f '%M' -o mem.txt "$CW" migrate --from-file in -o json >/dev/null 2>&1 || true
PEAK=$(tail -n 1 mem.txt)
[ "$ASAN" = 1 ] || [ "$PEAK" -lt 65536 ] || fail "peak RSS $PEAK KiB for the example"
done_tests
