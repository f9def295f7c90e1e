#!/usr/bin/env bash
# ngvi run lsk-compare on a small synthetic logistic-regression CSV (no installed data needed): the
# exact-gradient reference converges, every optimiser gets a summary line, the table has one row per
# (method, step, level), the traces do not depend on --threads, the Price-gradient NGD reaches f* + 1,
# and bad input stops with one line.
# Usage: lsk_compare.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# 150 rows, 3 features, labels from a logistic model with weights (1.5, -1, 0.5) (deterministic LCG).
awk 'BEGIN { s = 12345; print "x1,x2,x3,y";
  for (i = 0; i < 150; i++) { z = 0;
    for (j = 0; j < 3; j++) { s = (s * 1103515245 + 12345) % 2147483648; x[j] = s / 2147483648 * 4 - 2 }
    s = (s * 1103515245 + 12345) % 2147483648; u = s / 2147483648;
    z = 1.5 * x[0] - x[1] + 0.5 * x[2]; y = (u < 1 / (1 + exp(-z))) ? 1 : 0;
    printf "%.6f,%.6f,%.6f,%d\n", x[0], x[1], x[2], y } }' >"$W/logit.csv"

"$NGVI" run lsk-compare --out "$W/a" --data "$W/logit.csv" --target y --iters 200 --seeds 1 --threads 2 >"$W/a.out" 2>"$W/a.err"
check "run exits 0" test $? -eq 0
check "nothing on stderr" test ! -s "$W/a.err"
RUN="$W/a/runs/lsk-compare-logit.csv"
TAB="$W/a/runs/lsk-compare-table-logit.csv"
check "trace written" test -s "$RUN/trace.csv"
check "table header" grep -qx 'method,step,delta,level,runs_reaching,runs,median_iterations' <(head -1 "$TAB/trace.csv")
check "table: 3 methods x 11 steps x 3 levels" test "$(tail -n +2 "$TAB/trace.csv" | wc -l)" -eq 99
for m in lsk ngd sgd; do check "summary line for $m" grep -q "^$m " "$W/a.out"; done
resid=$(sed -n 's/.*residual \([0-9.e+-]*\)).*/\1/p' "$W/a.out")
check "exact-gradient reference converged (residual $resid)" awk -v r="$resid" 'BEGIN { exit !(r != "" && r + 0 <= 1e-8) }'
check "no run went below the reference f*" bash -c "! grep -q WARNING '$W/a.out'"
check "ngd reaches f* + 1" bash -c "grep '^ngd ' '$W/a.out' | grep -qv 'f\\*+1    : not reached'"
check "the report notes say the steps are ours" grep -q 'ours' "$RUN/run.json"

"$NGVI" run lsk-compare --out "$W/b" --data "$W/logit.csv" --target y --iters 200 --seeds 1 --threads 1 --quiet
check "trace independent of --threads" cmp -s "$RUN/trace.csv" "$W/b/runs/lsk-compare-logit.csv/trace.csv"
check "table independent of --threads" cmp -s "$TAB/trace.csv" "$W/b/runs/lsk-compare-table-logit.csv/trace.csv"

awk -F, 'NR == 1 { print; next } { $4 = (NR == 5) ? 2 : $4; print }' OFS=, "$W/logit.csv" >"$W/bad-label.csv"
expect_one_line_error "label outside {0, 1}" "$NGVI" run lsk-compare --out "$W/c" --data "$W/bad-label.csv" --target y --iters 20 --seeds 1 --quiet
expect_one_line_error "check-every above iters" "$NGVI" run lsk-compare --out "$W/c" --data "$W/logit.csv" --target y --iters 20 --check-every 50 --seeds 1 --quiet
expect_one_line_error "zero samples" "$NGVI" run lsk-compare --out "$W/c" --data "$W/logit.csv" --target y --samples 0 --quiet
finish
