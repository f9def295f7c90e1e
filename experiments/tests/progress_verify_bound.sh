#!/usr/bin/env bash
# Feedback of verify and bound (issue 26): a progress line per claim (per block of steps) on a
# terminal (`script`, util-linux, provides it); a periodic one-line status when stderr is not a
# terminal and the run lasts longer than NGVI_STATUS_EVERY seconds (default 30).
# Usage: progress_verify_bound.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# verify and bound: a progress line per claim (per block of steps) on a terminal; a periodic status
# line when stderr is not a terminal and the run lasts longer than NGVI_STATUS_EVERY (default 30 s).
script -qec "'$NGVI' verify --claims 'lemma4.*,lemma1.*' --precision double" /dev/null >"$W/vtty.txt" 2>&1
check "verify on a terminal exits 0" test $? -eq 0
check "verify shows a progress line per claim on a terminal" grep -q 'ngvi verify \[1/2\] lemma' "$W/vtty.txt"
check "verify's progress line names the second claim" grep -q 'ngvi verify \[2/2\] lemma' "$W/vtty.txt"
"$NGVI" verify --claims 'lemma4.*' >"$W/vpipe.out" 2>"$W/vpipe.err"
check "verify: no status line within 30 s when not a terminal" test ! -s "$W/vpipe.err"
NGVI_STATUS_EVERY=0.01 "$NGVI" verify --claims 'lemma4.*,lemma1.*' >"$W/vs.out" 2>"$W/vs.err"
check "verify: periodic status line when not a terminal (NGVI_STATUS_EVERY=0.01)" grep -Eq '^ngvi verify: [0-9]+/2 done, running lemma' "$W/vs.err"
printf 'a,b,y\n' >"$W/b.csv"
for i in $(seq 1 60); do printf '%d,%d,%d\n' "$i" $((i % 7)) $((2 * i + i % 5)) >>"$W/b.csv"; done
script -qec "'$NGVI' bound --data '$W/b.csv' --target y --batch 4 --noise 1 --iters 100 --steps 3000 --samples 50" /dev/null >"$W/btty.txt" 2>&1
check "bound on a terminal exits 0" test $? -eq 0
check "bound shows a progress line on a terminal" grep -q 'ngvi bound \[[0-9]*/3000\]' "$W/btty.txt"
NGVI_STATUS_EVERY=0.01 "$NGVI" bound --data "$W/b.csv" --target y --batch 4 --noise 1 --iters 100 --steps 3000 --samples 5000 >"$W/bs.out" 2>"$W/bs.err"
check "bound: periodic status line when not a terminal" grep -Eq '^ngvi bound: [0-9]+/3000 done' "$W/bs.err"

finish
