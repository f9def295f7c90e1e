#!/usr/bin/env bash
# The baseline comparison of `ngvi verify --baseline` as a contract: each row of the table in
# docs/cli.md ("Baseline comparison") is a case here, plus margin tolerances per unit. Baselines are
# edited copies of a real run (python3 json), so every case can both pass and fail.
# Exit codes: 0 all hold and no regression, 1 a claim broken or a regression, 2 usage error (incl.
# a baseline with other settings), 3 nothing compared or checked.
# Usage: verify_baseline.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
CLAIMS='lemma4.*'
run() {  # run NAME ARGS...: stdout to $W/NAME.out, stderr to $W/NAME.err, status to $W/NAME.rc
  local name="$1"; shift
  "$NGVI" verify --claims "$CLAIMS" --precision double "$@" >"$W/$name.out" 2>"$W/$name.err"
  echo $? >"$W/$name.rc"
}
rc() { cat "$W/$1.rc"; }
edit() {  # edit IN OUT PYTHON: applies PYTHON to the parsed JSON `j` and writes OUT
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"), indent=2)
PY
}

run first --json "$W/A.json"
check "first run passes" test "$(rc first)" -eq 0
check "first run wrote claims.json with its selection" grep -q "\"claims\": \"$CLAIMS\"" "$W/A.json"
check "records carry form and tightness" grep -q '"form": "identity"' "$W/A.json"

# Unchanged baseline: exit 0, one verdict line, nothing on stderr.
run same --baseline "$W/A.json"
check "unchanged baseline exits 0" test "$(rc same)" -eq 0
check "unchanged baseline: 0 regressions in the verdict line" grep -q "^summary: .* 0 regression(s) .*-> PASS$" "$W/same.out"
check "unchanged baseline: exactly one verdict line" test "$(grep -c '^summary:' "$W/same.out")" -eq 1
check "unchanged baseline: empty stderr" test ! -s "$W/same.err"

# Row 1: a record of the baseline missing from the new run is a regression.
edit "$W/A.json" "$W/missing.json" 'r = dict(j["records"][0]); r["instance"] = "ghost-instance"; j["records"].append(r)'
run missing --baseline "$W/missing.json"
check "missing record exits 1" test "$(rc missing)" -eq 1
check "missing record is a REGRESSION on stderr" grep -q "^REGRESSION lemma4\..* ghost-instance double: missing from the new run" "$W/missing.err"
check "missing record: verdict line says FAIL" grep -q "^summary: .*1 regression(s) (1 missing).*-> FAIL$" "$W/missing.out"

# Row 2: no overlap at all (a thm1 baseline against a lemma4 run): nothing compared, exit 3.
edit "$W/A.json" "$W/other.json" '
for r in j["records"]: r["claim"] = "thm1.rate"
j["meta"]["claims"] = "thm1.*"'
expect_one_line_error "no overlap: one line" "$NGVI" verify --claims "$CLAIMS" --precision double --baseline "$W/other.json"
run other --baseline "$W/other.json"
check "no overlap exits 3" test "$(rc other)" -eq 3
check "no overlap says nothing compared" grep -q "nothing compared" "$W/other.err"

# Row 3: a baseline made with another seed, mode or precision set is refused (exit 2, one line
# naming the difference), or compared with a warning naming it under --allow-meta-mismatch.
edit "$W/A.json" "$W/seed.json" 'j["meta"]["seed"] = 7'
expect_one_line_error "other seed refused: one line" "$NGVI" verify --claims "$CLAIMS" --precision double --baseline "$W/seed.json"
run seed --baseline "$W/seed.json"
check "other seed exits 2" test "$(rc seed)" -eq 2
check "other seed is named" grep -q "seed 7 (baseline) vs 20240601 (new)" "$W/seed.err"
check "refusal prints no REGRESSION" bash -c "! grep -q REGRESSION '$W/seed.out' '$W/seed.err'"
edit "$W/A.json" "$W/mode.json" 'j["meta"]["mode"] = "full"; j["meta"]["precisions"] = ["double", "mp50"]'
run mode --baseline "$W/mode.json"
check "other mode and precisions exit 2" test "$(rc mode)" -eq 2
check "mode and precisions are named" grep -q "mode full (baseline) vs quick (new); precisions double,mp50 (baseline) vs double (new)" "$W/mode.err"
run allowed --baseline "$W/seed.json" --allow-meta-mismatch
check "--allow-meta-mismatch compares (exit 0)" test "$(rc allowed)" -eq 0
check "--allow-meta-mismatch warns naming the seed" grep -q "warning: comparing despite seed 7 (baseline) vs 20240601 (new)" "$W/allowed.err"

# Row 4: baseline broken, now holds: an improvement, not a regression.
edit "$W/A.json" "$W/broken.json" '
r = next(r for r in j["records"] if r["kind"] == "claim")
r["verdict"] = "broken"; r["lhs"] = r["rhs"] + 1.0; r["margin"] = -1.0'
run improved --baseline "$W/broken.json"
check "broken -> holds exits 0" test "$(rc improved)" -eq 0
check "broken -> holds is an IMPROVEMENT on stdout" grep -q "^IMPROVEMENT lemma4\..*verdict broken (failing) -> holds" "$W/improved.out"
check "broken -> holds is not a regression" bash -c "! grep -q REGRESSION '$W/improved.err'"
check "improvement counted in the verdict line" grep -q "1 improvement(s)" "$W/improved.out"

# New records are listed: a baseline lacking one record.
edit "$W/A.json" "$W/fewer.json" 'j["records"].pop()'
run fewer --baseline "$W/fewer.json"
check "new record exits 0" test "$(rc fewer)" -eq 0
check "new record listed as NEW" grep -q "^NEW lemma4\." "$W/fewer.out"

# Row 5: a selection with zero records is an error (exit 3, one line). The fig1.* claims state
# findings of a double-precision experiment and have no mp50 records.
expect_one_line_error "empty selection: one line" "$NGVI" verify --claims 'fig1.*' --precision mp50
"$NGVI" verify --claims 'fig1.*' --precision mp50 >"$W/empty.out" 2>"$W/empty.err"
check "empty selection exits 3" test $? -eq 3
check "empty selection is not a PASS" bash -c "! grep -q PASS '$W/empty.out'"

# Row 6: a regression gives one verdict line (FAIL, no PASS) and the REGRESSION lines on stderr.
# Every claim margin of the baseline is inflated to 2|m| + 1, so each current margin "shrank".
edit "$W/A.json" "$W/inflated.json" '
for r in j["records"]:
    if r["kind"] == "claim": r["margin"] = 2 * abs(r["margin"]) + 1; r["rhs"] = r["lhs"] + r["margin"]'
run shrunk --baseline "$W/inflated.json"
n_claims=$(python3 -c "import json,sys; print(sum(r['kind']=='claim' for r in json.load(open('$W/A.json'))['records']))")
check "shrunk margin exits 1" test "$(rc shrunk)" -eq 1
check "one verdict line" test "$(grep -c '^summary:' "$W/shrunk.out")" -eq 1
check "verdict line says FAIL" grep -q -- "-> FAIL$" "$W/shrunk.out"
check "no PASS anywhere on stdout" bash -c "! grep -q PASS '$W/shrunk.out'"
check "no REGRESSION on stdout" bash -c "! grep -q REGRESSION '$W/shrunk.out'"
check "every claim record flagged on stderr ($n_claims)" test "$(grep -c '^REGRESSION lemma4\..*margin shrank' "$W/shrunk.err")" -eq "$n_claims"

# Tolerances per unit: the lemma4 claim records are identities (unit eps); eps=1 lets a margin
# drop to 0 of its baseline, so any positive margin passes, while plain=1 leaves eps at 0.5.
run loose_eps --baseline "$W/inflated.json" --margin-tolerance eps=1
check "eps=1 accepts any positive eps margin" test "$(rc loose_eps)" -eq 0
run loose_plain --baseline "$W/inflated.json" --margin-tolerance plain=1
check "plain=1 does not loosen eps" test "$(rc loose_plain)" -eq 1
run loose_all --baseline "$W/inflated.json" --margin-tolerance 1
check "a bare fraction applies to every unit" test "$(rc loose_all)" -eq 0
expect_one_line_error "tolerance above 1 refused" "$NGVI" verify --claims "$CLAIMS" --baseline "$W/A.json" --margin-tolerance eps=2
expect_one_line_error "tolerance without a baseline refused" "$NGVI" verify --claims "$CLAIMS" --margin-tolerance 0.3

# A control whose baseline verdict was "holds" is re-judged from its numbers when read (the
# verdict is recomputed), so only a real change of numbers counts: flip a control's numbers.
edit "$W/A.json" "$W/control.json" '
r = next(r for r in j["records"] if r["kind"] == "control")
r["lhs"] = 0.0; r["rhs"] = 1.0; r["margin"] = 1.0; r["verdict"] = "holds"'
run control --baseline "$W/control.json"
check "control holds -> broken is an improvement" grep -q "^IMPROVEMENT lemma4\..*verdict holds (failing) -> broken" "$W/control.out"

finish
