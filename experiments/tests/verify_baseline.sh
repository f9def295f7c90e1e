#!/usr/bin/env bash
# `ngvi verify --baseline` flags a claim whose margin shrank and a verdict that changed, and passes
# against an unchanged baseline (so the check can both pass and fail).
# Usage: verify_baseline.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
CLAIMS='lemma4.*'

"$NGVI" verify --claims "$CLAIMS" --precision double --json "$W/A.json" >"$W/first.txt"
check "first run passes" test $? -eq 0
check "first run wrote claims.json" test -s "$W/A.json"

# Same code, same seed: no regression.
"$NGVI" verify --claims "$CLAIMS" --precision double --baseline "$W/A.json" >"$W/same.txt"
check "unchanged baseline exits 0" test $? -eq 0
check "unchanged baseline reports 0 regressions" grep -q "0 regression(s)" "$W/same.txt"

# Inflate every claim record's margin in the baseline to 2|m| + 1: the current margin m is then more
# than the tolerance (0.5 of the baseline magnitude) below it, i.e. the margin "shrank".
awk '
  /"kind": "claim"/   { kind = "claim" }
  /"kind": "control"/ { kind = "control" }
  /"margin": -?[0-9]/ && kind == "claim" {
    match($0, /-?[0-9][0-9.eE+-]*/); m = substr($0, RSTART, RLENGTH) + 0; if (m < 0) m = -m;
    sub(/-?[0-9][0-9.eE+-]*/, sprintf("%.17g", 2 * m + 1)); inflated++ }
  { print }
  END { if (inflated == 0) exit 3 }' "$W/A.json" >"$W/B.json"
check "margins inflated in the baseline" test $? -eq 0
"$NGVI" verify --claims "$CLAIMS" --precision double --baseline "$W/B.json" >"$W/shrunk.txt"
check "shrunk margin exits 1" test $? -eq 1
check "shrunk margin names a REGRESSION of lemma4" grep -q "^REGRESSION lemma4\..*margin shrank" "$W/shrunk.txt"
n_claims=$(grep -c '"kind": "claim"' "$W/A.json")
n_reg=$(grep -c '^REGRESSION' "$W/shrunk.txt")
check "every claim record flagged ($n_reg of $n_claims)" test "$n_reg" -eq "$n_claims"

# A control whose baseline verdict was "holds" (now broken): the verdict changed.
awk '
  /"kind": "control"/ { kind = "control" } /"kind": "claim"/ { kind = "claim" }
  /"verdict": "broken"/ && kind == "control" && !done { sub(/"broken"/, "\"holds\""); done = 1 }
  { print }' "$W/A.json" >"$W/C.json"
"$NGVI" verify --claims "$CLAIMS" --precision double --baseline "$W/C.json" >"$W/verdict.txt"
check "changed verdict exits 1" test $? -eq 1
check "changed verdict is named" grep -q "^REGRESSION lemma4\..*verdict holds -> broken" "$W/verdict.txt"

# A looser tolerance accepts the same shrinkage only when it exceeds the shrink: with tolerance 1
# a margin may drop to 0 of the baseline, and m > 0 always holds, so no regression.
"$NGVI" verify --claims "$CLAIMS" --precision double --baseline "$W/B.json" --margin-tolerance 1 >"$W/loose.txt"
check "tolerance 1 accepts any positive margin" test $? -eq 0

finish
