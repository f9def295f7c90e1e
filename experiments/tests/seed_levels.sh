#!/usr/bin/env bash
# scripts/measure-seed-levels.py, the measurement the claims' levels over seeds quote: on two seeds of a
# claim whose records are deterministic given the seed, one row per claim record with 2 seeds, 0
# failures, the normal-fit and Clopper-Pearson columns; its bad arguments are one-line errors.
set -u
NGVI=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
fail=0
check() { local what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi; }
out=$("$PY" "$ROOT/scripts/measure-seed-levels.py" --ngvi "$NGVI" --claims paquet.small_c_diverges --seeds 1:2 --jobs 2)
echo "$out"
check "header names the seeds" grep -q '^seeds 1\.\.2 (2), quick' <<<"$out"
check "six claim records, each on 2 seeds with 0 failures" test "$(grep -cE '^paquet\.small_c_diverges +b7/seed[0-2]/option-[ab]/rho1=1 +double +2 +0 ' <<<"$out")" = 6
check "the Clopper-Pearson bound of 0 in 2 is 1 - 0.05^(1/2) = 0.78" grep -qE ' 0\.78$' <<<"$out"
err=$("$PY" "$ROOT/scripts/measure-seed-levels.py" --ngvi "$NGVI" --claims paquet.small_c_diverges --seeds 5:2 2>&1 >/dev/null); rc=$?
check "--seeds 5:2 refused in one line" test $rc -ne 0 -a "$(wc -l <<<"$err")" = 1
check "the line names --seeds" grep -q -- "--seeds '5:2'" <<<"$err"
exit $fail
