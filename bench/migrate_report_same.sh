#!/bin/sh
# Offline migrate of two builds, compared byte for byte: the reports (text, JSON, YAML, --report),
# the exit codes and, with --output-dir, the migrated manifests. Inputs: examples/ and a generated
# List of N volumes (bench/gen_legacy). For a change to the planner that must not change output.
#   bench/migrate_report_same.sh BASE_CRONWARDEN NEW_CRONWARDEN GEN_LEGACY [N]   (N default 20000)
set -eu
base=$(realpath "$1") new=$(realpath "$2") gen=$(realpath "$3") n=${4:-20000}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gen" "$n" "$work/gen-$n.json" >/dev/null
failed=0

# run NAME BIN INPUT: every report format, then a rewrite, in $work/NAME (the same relative paths
# for both builds, so that outputDir reads the same).
run() {
    d=$work/$1 bin=$2 in=$3
    mkdir -p "$d"
    for fmt in text json yaml; do
        (cd "$d" && "$bin" migrate -f "$in" -o "$fmt" --report "report-$fmt.json" \
            >"out.$fmt" 2>"err.$fmt"; echo "exit $?" >>"err.$fmt") || true
    done
    (cd "$d" && "$bin" migrate -f "$in" --output-dir out -o json >out.write 2>err.write;
        echo "exit $?" >>err.write) || true
    # The logs' timestamps differ from run to run.
    for f in "$d"/err.*; do sed 's/^ts=[^ ]* //' "$f" >"$f.x" && mv "$f.x" "$f"; done
}

for input in "$root/examples/longhorn-1.1-cluster" "$work/gen-$n.json"; do
    rm -rf "$work/base" "$work/new"
    run base "$base" "$input"
    run new "$new" "$input"
    if diff -r "$work/base" "$work/new" >"$work/diff"; then
        echo "same: $input ($(cat "$work/base"/out.* | wc -c) report bytes, $(find "$work/base/out" -type f | wc -l) files written)"
    else
        echo "DIFFERENT: $input"
        head -40 "$work/diff"
        failed=1
    fi
done
exit $failed
