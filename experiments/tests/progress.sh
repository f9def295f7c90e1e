#!/usr/bin/env bash
# The progress line: shown on a terminal once a run has lasted --progress-after seconds (default 1;
# also NGVI_PROGRESS_AFTER), silenced by --quiet, absent when stderr is not a terminal. `script`
# (util-linux, Essential in Debian) provides the terminal.
# Usage: progress.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# The line appears after --progress-after seconds (default 1). The runs below set it to 0, so the
# line is due from the first finished unit whatever the machine's speed: a run timed against the
# one-second default was either too short on a fast machine or too long under the sanitizers.
ARGS="run ngd-gaussian-target --iters 2000 --seeds 4 --threads 1 --progress-after 0"

script -qec "'$NGVI' $ARGS --out '$W/a'" /dev/null >"$W/tty.txt" 2>&1
check "run on a terminal exits 0" test $? -eq 0
check "progress line on a terminal" grep -q 'ngd-gaussian-target .*%.*(.*/.*)' "$W/tty.txt"
script -qec "'$NGVI' $ARGS --out '$W/b' --quiet" /dev/null >"$W/quiet.txt" 2>&1
check "--quiet on a terminal exits 0" test $? -eq 0
check "--quiet silences the progress line" bash -c "! grep -q '%' '$W/quiet.txt'"
"$NGVI" $ARGS --out "$W/c" >"$W/pipe.out" 2>"$W/pipe.err"
check "no progress when stderr is not a terminal" test ! -s "$W/pipe.err"
script -qec "NGVI_PROGRESS_AFTER=0 '$NGVI' run ngd-gaussian-target --iters 2000 --seeds 4 --threads 1 --out '$W/d'" /dev/null >"$W/env.txt" 2>&1
check "NGVI_PROGRESS_AFTER sets the delay" grep -q 'ngd-gaussian-target .*%.*(.*/.*)' "$W/env.txt"
script -qec "'$NGVI' run ngd-gaussian-target --iters 100 --seeds 2 --threads 1 --out '$W/e'" /dev/null >"$W/default.txt" 2>&1
check "by default a run of milliseconds shows no line" bash -c "! grep -q '%' '$W/default.txt'"
"$NGVI" run ngd-gaussian-target --iters 10 --progress-after -1 --out "$W/f" >"$W/bad.out" 2>"$W/bad.err"
check "a negative delay exits non-zero" test $? -ne 0
check "the error names --progress-after" grep -q -- '--progress-after' "$W/bad.err"

finish
