#!/usr/bin/env bash
# `ngvi diff OLD NEW` (terminal table, --html page, exit codes) and `--junit FILE` of verify and
# diff: every JUnit file validates against the common JUnit schema (junit.xsd, with xmllint from
# Debian libxml2-utils) and has one test case per record; a broken file does not validate.
# Usage: diff_junit.sh NGVI_BINARY
set -u
NGVI="$1"
HERE="$(dirname "$0")"
. "$HERE/test_lib.sh"
XSD="$HERE/junit.xsd"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
edit() {  # edit IN OUT PYTHON: applies PYTHON to the parsed JSON `j` and writes OUT
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"), indent=2)
PY
}
valid() { xmllint --noout --schema "$XSD" "$1" >/dev/null 2>&1; }
count() { grep -o "$2" "$1" | wc -l; }

"$NGVI" verify --claims 'lemma4.*' --precision double --json "$W/A.json" --junit "$W/verify.xml" >"$W/v.out" 2>&1
check "verify with --junit passes" test $? -eq 0
n=$(python3 -c "import json; print(len(json.load(open('$W/A.json'))['records']))")
check "verify JUnit validates against junit.xsd" valid "$W/verify.xml"
check "verify JUnit: one test case per record ($n)" test "$(count "$W/verify.xml" '<testcase ')" -eq "$n"
check "verify JUnit: no failure" test "$(count "$W/verify.xml" '<failure ')" -eq 0
# --summary: no line per record; the claims with records that are not evidence, one line each; the
# failing records of a failing run as a table; the same summary line and exit status.
"$NGVI" verify --claims 'lemma4.*,thm1.rate' --precision double --summary >"$W/s.out" 2>&1
check "verify --summary passes" test $? -eq 0
check "verify --summary: one line per claim with vacuous records" grep -q '^partly evidence thm1.rate: [0-9]* claim record(s) hold, [1-9][0-9]* vacuous' "$W/s.out"
check "verify --summary: no line per record" test "$(grep -c 'lemma4' "$W/s.out")" -eq 0
check "verify --summary: the summary line" grep -q '^summary: 2 claim(s).* -> PASS$' "$W/s.out"
"$NGVI" verify --claims 'x.iterate_variance' --precision double --mutant step-harmonic --summary >"$W/f.out" 2>&1
check "verify --summary of a failing run exits 1" test $? -eq 1
check "verify --summary: the failing records as a table" grep -q '<-- FAIL' "$W/f.out"
check "verify --summary: only failing records" test "$(grep -c '^x.iterate_variance ' "$W/f.out")" -eq "$(grep -c '<-- FAIL' "$W/f.out")"
# The schema check can fail: a test case without its required name does not validate.
sed '0,/<testcase name="[^"]*"/s//<testcase/' "$W/verify.xml" >"$W/bad.xml"
check "a test case without a name does not validate" bash -c "! xmllint --noout --schema '$XSD' '$W/bad.xml' 2>/dev/null"

# Same file twice: no change, exit 0, a per-claim table and one verdict line.
"$NGVI" diff "$W/A.json" "$W/A.json" --html "$W/same.html" --junit "$W/same.xml" >"$W/same.out" 2>"$W/same.err"
check "diff of a file with itself exits 0" test $? -eq 0
check "diff prints a per-claim table" grep -q "^claim .*records .*evidence .*max tightness" "$W/same.out"
check "diff verdict line" grep -q "^diff .*: $n compared, 0 regression(s) .*-> PASS$" "$W/same.out"
check "diff HTML written, self-contained" bash -c "test -s '$W/same.html' && ! grep -Eiq '<script|<link|src=' '$W/same.html'"
check "diff HTML has the per-claim table" grep -q "Per claim" "$W/same.html"
check "diff JUnit validates" valid "$W/same.xml"
check "diff JUnit: one test case per record" test "$(count "$W/same.xml" '<testcase ')" -eq "$n"

# A regression (a record missing) and a control whose margin is NaN (the old CLI called that
# "broken", i.e. passing): both fail the diff; the NaN is an error.
edit "$W/A.json" "$W/B.json" '
j["records"].pop(0)
c = next(r for r in j["records"] if r["kind"] == "control")
c["margin"] = "nan"; c["lhs"] = "nan"; c["verdict"] = "broken"'
"$NGVI" diff "$W/A.json" "$W/B.json" --html "$W/ab.html" --junit "$W/ab.xml" >"$W/ab.out" 2>"$W/ab.err"
check "regression and NaN control exit 1" test $? -eq 1
check "missing record on stderr" grep -q "^REGRESSION .*missing from the new run" "$W/ab.err"
check "NaN control is an error, a regression" grep -q "^REGRESSION .*verdict broken -> error (failing)" "$W/ab.err"
check "verdict line FAIL" grep -q -- "-> FAIL$" "$W/ab.out"
check "regression JUnit validates" valid "$W/ab.xml"
check "regression JUnit: two failures" test "$(count "$W/ab.xml" '<failure ')" -eq 2
check "diff HTML marks the regression" grep -q 'class="regression"' "$W/ab.html"

# verify --junit of a NaN control: the record is an error in JUnit too (via diff of the edited
# file against itself: the verdict is recomputed from the numbers when read).
"$NGVI" diff "$W/B.json" "$W/B.json" --junit "$W/bb.xml" >"$W/bb.out" 2>&1
check "a NaN control fails even against itself" test $? -eq 1
check "and is a JUnit <error>" test "$(count "$W/bb.xml" '<error ')" -eq 1

# Settings differ: refused in one line (exit 2) unless --allow-meta-mismatch.
edit "$W/A.json" "$W/S.json" 'j["meta"]["seed"] = 5'
expect_one_line_error "diff refuses another seed" "$NGVI" diff "$W/A.json" "$W/S.json"
"$NGVI" diff "$W/A.json" "$W/S.json" >/dev/null 2>&1
check "refusal exit 2" test $? -eq 2
"$NGVI" diff "$W/A.json" "$W/S.json" --allow-meta-mismatch >/dev/null 2>"$W/allow.err"
check "--allow-meta-mismatch compares" test $? -eq 0
check "and names the seed" grep -q "seed 20240601 (baseline) vs 5 (new)" "$W/allow.err"

# Nothing in common: exit 3.
edit "$W/A.json" "$W/O.json" '
for r in j["records"]: r["claim"] = "other.claim"
j["meta"]["claims"] = "*"'
edit "$W/A.json" "$W/A2.json" 'j["meta"]["claims"] = "*"'
"$NGVI" diff "$W/A2.json" "$W/O.json" >/dev/null 2>"$W/none.err"
check "no common record exits 3" test $? -eq 3
check "says nothing compared" grep -q "nothing compared" "$W/none.err"

expect_one_line_error "diff needs two files" "$NGVI" diff "$W/A.json"
expect_one_line_error "diff of a missing file" "$NGVI" diff "$W/A.json" "$W/none.json"

finish
