#!/usr/bin/env bash
# End to end: `ngvi run ngd-gaussian-target` then `ngvi report`: the run writes its trace and sidecar
# with provenance, the report is self-contained (no external resource), has the claims table, the
# figure as inline SVG (or says that gnuplot is missing), and fitted slopes: about -1 for the 2/(t+2)
# iterates and about 0 for the constant-step control. A missing gnuplot is reported, not fatal.
# Usage: run_report.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
R="$W/report"

"$NGVI" verify --claims 'lemma4.*' --precision double --json "$R/claims.json" >/dev/null
check "verify wrote claims.json" test -s "$R/claims.json"
"$NGVI" run ngd-gaussian-target --out "$R" --iters 5000 --seeds 32 --threads 2 >"$W/run.out" 2>"$W/run.err"
check "run exits 0" test $? -eq 0
check "run prints nothing on stderr when stderr is not a terminal" test ! -s "$W/run.err"
RUN="$R/runs/ngd-gaussian-target"
check "trace.csv written" test -s "$RUN/trace.csv"
check "trace header" grep -qx 'method,seed,iter,gamma,kl' <(head -1 "$RUN/trace.csv")
check "sidecar has the commit" grep -q '"commit": "[0-9a-f]\{7,\}\|"commit": "unknown"' "$RUN/run.json"
check "sidecar has the compiler" grep -q '"compiler": ".\+"' "$RUN/run.json"
check "sidecar has the command" grep -q '"command": "ngvi run ngd-gaussian-target --out' "$RUN/run.json"
check "sidecar has every parameter" grep -q '"--iters": "5000"' "$RUN/run.json"
check "sidecar records defaulted parameters" grep -q '"--dim": "5"' "$RUN/run.json"
check "sidecar has the seed" grep -q '"seed": 20240601' "$RUN/run.json"

# The same run with another thread count gives the same trace (one random stream per seed).
"$NGVI" run ngd-gaussian-target --out "$W/t1" --iters 5000 --seeds 32 --threads 1 --quiet
check "trace independent of --threads" cmp -s "$RUN/trace.csv" "$W/t1/runs/ngd-gaussian-target/trace.csv"

"$NGVI" report "$R" >"$W/report.out" 2>"$W/report.err"
check "report exits 0" test $? -eq 0
H="$R/index.html"
check "index.html written" test -s "$H"
check "summary line" grep -q 'Claims: PASS' "$H"
check "claims table has lemma4" grep -q '<td>lemma4\.' "$H"
check "no external script, stylesheet or image" bash -c "! grep -Eiq '<script|<link|<img|<iframe|src=|url\\(' '$H'"
check "no http(s) reference except XML namespaces" bash -c "! grep -Eo 'https?://[^\"]*' '$H' | grep -v '^http://www.w3.org/'"
check "plot data CSV written" test -s "$R/plots/ngd-gaussian-target--kl.csv"
check "provenance: commit in the report" grep -q 'commit' "$H"
if command -v gnuplot >/dev/null 2>&1; then
  check "figure embedded as inline SVG" grep -q '<svg' "$H"
else
  check "report says gnuplot is missing" grep -q 'gnuplot was not found' "$H"
fi
# Slopes (printed): "slope ngd-gaussian-target/kl ngd-avg: -0.987 (SE ...".
slope() { awk -v s="$1" '$1 == "slope" && $3 == s":" { print $4 }' "$W/report.out"; }
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x + 0 >= lo && x + 0 <= hi) }'; }
check "ngd-avg slope near -1 ($(slope ngd-avg))" in_range "$(slope ngd-avg)" -1.25 -0.75
check "ngd-last slope near -1 ($(slope ngd-last))" in_range "$(slope ngd-last)" -1.25 -0.75
check "constant-step control levels off ($(slope ngd-const))" in_range "$(slope ngd-const)" -0.25 0.25
check "slopes are in the report" grep -q 'Fitted log-log slopes' "$H"

# gnuplot missing: the report is still written and says so.
"$NGVI" report "$R" --gnuplot "$W/no/gnuplot" >"$W/nognuplot.out" 2>"$W/nognuplot.err"
check "missing gnuplot is not fatal" test $? -eq 0
check "report says gnuplot is missing" grep -q 'gnuplot was not found' "$H"
check "missing gnuplot is warned on stderr" grep -q 'gnuplot was not found' "$W/nognuplot.err"
check "no SVG without gnuplot" bash -c "! grep -q '<svg' '$H'"

finish
