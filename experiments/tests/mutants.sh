#!/usr/bin/env bash
# ngvi verify --mutants all: the kill matrix of the quick suite. Every registered mutant not marked
# equivalent must be killed (some record of the suite fails against it while the library's run
# passes); the matrix is written as JSON and shown by ngvi report. The claims it does not run again
# against a mutant (they read none of the parts it replaces) are checked to give the library's
# records against it. Also: --mutant NAME makes the suite fail, and the option errors are one line each.
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_one_line_error "unknown mutant" "$NGVI" verify --mutants no-such-mutant
expect_one_line_error "--mutant names a mutant" "$NGVI" verify --claims 'lemma2.*' --mutant no-such-mutant
expect_one_line_error "--mutants and --variant" "$NGVI" verify --mutants all --variant g2-bias
expect_one_line_error "--mutants and --baseline" "$NGVI" verify --mutants all --baseline "$tmp/none.json"

"$NGVI" verify --claims 'lemma2.*' --precision double --mutant g2-bias >"$tmp/one.txt" 2>&1
check "the suite fails against one mutant" test $? -eq 1

"$NGVI" verify --mutants all --precision double --json "$tmp/report/mutants.json" >"$tmp/matrix.txt" 2>&1
status=$?
sed 's/^/  | /' "$tmp/matrix.txt" | tail -40
check "every non-equivalent mutant is killed (exit 0)" test "$status" -eq 0
check "summary line says PASS" grep -q '^summary: .* -> PASS$' "$tmp/matrix.txt"
check "matrix JSON written" test -s "$tmp/report/mutants.json"
# docs/engine.md's table of which records kill which mutant is this matrix, generated (scripts/kill-table.py).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
check "docs/engine.md's kill table is the matrix's" python3 "$ROOT/scripts/kill-table.py" "$tmp/report/mutants.json" --check "$ROOT/docs/engine.md"
# Every registered mutant appears in the JSON with status killed or equivalent.
"$NGVI" verify --list-variants | awk '$2 == "mutant" {print $1}' >"$tmp/names.txt"
check "some mutants are registered" test -s "$tmp/names.txt"
while read -r name; do
  check "mutant $name is killed or equivalent" python3 - "$tmp/report/mutants.json" "$name" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
st = [x["status"] for x in m["mutants"] if x["name"] == sys.argv[2]]
sys.exit(0 if st and st[0] in ("killed", "equivalent") else 1)
PY
done <"$tmp/names.txt"
# A killed mutant is seen by at least two records (a single witness is one record away from a gap).
check "every killed mutant has at least two killing records" python3 - "$tmp/report/mutants.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
single = [x["name"] for x in m["mutants"] if x["status"] == "killed" and sum(1 for f in x["flips"] if f["kills"]) < 2]
if single:
    print("single-witness mutants:", ", ".join(single))
sys.exit(1 if single else 0)
PY
# A claim runs again only against the mutants that replace a part it read in the library's run; its
# records against the others are taken to be the library's. Checked for two mutants: the claims not
# run against each (mutants.json, per mutant) are run against it and must give the library's records
# (verdict, lhs, rhs, note). lsk-no-posdef-term replaces one NGD part, read by one claim, so this runs
# nearly the whole suite against it; paquet-drop-scale is a related system's mutation, named.
check "the matrix lists the parts each claim read" python3 - "$tmp/report/mutants.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if len(m["reads"]) == len(m["claims"]) and any(m["reads"]) else 1)
PY
# The library's records are run once, over the union of the two sets, and each comparison reads the
# claims of its own set.
for mutant in lsk-no-posdef-term paquet-drop-scale; do
  python3 -c 'import json, sys; print(",".join(next(x for x in json.load(open(sys.argv[1]))["mutants"] if x["name"] == sys.argv[2])["not_rerun"]))' \
    "$tmp/report/mutants.json" "$mutant" >"$tmp/not_rerun.$mutant.txt"
  check "some claims are not run again against $mutant" test -s "$tmp/not_rerun.$mutant.txt"
done
python3 -c 'import sys; print(",".join(sorted({c for f in sys.argv[1:] for c in open(f).read().strip().split(",") if c})))' \
  "$tmp"/not_rerun.*.txt >"$tmp/not_rerun_union.txt"
"$NGVI" verify --claims "$(cat "$tmp/not_rerun_union.txt")" --precision double --json "$tmp/lib.json" >/dev/null 2>&1
for mutant in lsk-no-posdef-term paquet-drop-scale; do
  "$NGVI" verify --claims "$(cat "$tmp/not_rerun.$mutant.txt")" --precision double --mutant "$mutant" --json "$tmp/mut.json" >/dev/null 2>&1
  check "claims not run again against $mutant give the library's records against it" python3 - "$tmp/lib.json" "$tmp/mut.json" "$tmp/not_rerun.$mutant.txt" <<'PY'
import json, sys
claims = set(open(sys.argv[3]).read().strip().split(","))
def load(path):
    return {(r["claim"], r["instance"], r["precision"], r["kind"]): (r["verdict"], r["lhs"], r["rhs"], r["note"])
            for r in json.load(open(path))["records"] if r["claim"] in claims}
a, b = load(sys.argv[1]), load(sys.argv[2])
sys.exit(0 if a and a == b else 1)
PY
done
"$NGVI" report "$tmp/report" --gnuplot /nonexistent/gnuplot >"$tmp/report.txt" 2>&1 || true
check "report shows the kill matrix" grep -q 'id="mutants"' "$tmp/report/index.html"
check "report shows the parts each mutant replaces and each claim read" grep -q '<th>parts replaced</th>' "$tmp/report/index.html"
check "report marks the pairs not run" grep -q 'not run: the mutant replaces none of the parts this claim read' "$tmp/report/index.html"
finish
