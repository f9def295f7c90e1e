#!/usr/bin/env bash
# The progress line: shown on a terminal for a run longer than a second, silenced by --quiet, absent
# when stderr is not a terminal. `script` (util-linux, Essential in Debian) provides the terminal.
# Usage: progress.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# The line appears only after a second, so the run must last well beyond one: 60000 iterations took
# 0.9 s on an idle 2-core machine (the line then never showed); 300000 take about 4.5 s there.
ARGS="run ngd-gaussian-target --iters 300000 --seeds 16 --threads 1"

script -qec "'$NGVI' $ARGS --out '$W/a'" /dev/null >"$W/tty.txt" 2>&1
check "run on a terminal exits 0" test $? -eq 0
check "progress line on a terminal" grep -q 'ngd-gaussian-target .*%.*(.*/.*)' "$W/tty.txt"
script -qec "'$NGVI' $ARGS --out '$W/b' --quiet" /dev/null >"$W/quiet.txt" 2>&1
check "--quiet on a terminal exits 0" test $? -eq 0
check "--quiet silences the progress line" bash -c "! grep -q '%' '$W/quiet.txt'"
"$NGVI" $ARGS --out "$W/c" >"$W/pipe.out" 2>"$W/pipe.err"
check "no progress when stderr is not a terminal" test ! -s "$W/pipe.err"

finish
