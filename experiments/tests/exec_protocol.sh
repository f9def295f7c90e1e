#!/usr/bin/env bash
# ngvi verify --algorithm exec:CMD (docs/protocol.md) against the reference clients:
#   - the Python (numpy) and the C client each hold every record of x.unbiased_iterate that the
#     library's algorithm holds, with the same verdict record by record, and claims.json's meta names
#     the implementation (the whole selection 'thm1.*,x.*' takes some 5 million step calls, 3 to 10
#     minutes through a process: bench/README.md has that run; this test keeps to the claim of
#     0.17 million calls);
#   - a baseline made with the library's algorithm is refused for a client's run (another
#     implementation) without --allow-meta-mismatch; ngvi diff names both sides;
#   - each bug a user makes in the schedule (indexed from t = 1) or the batch scale (n/(M+1)) breaks
#     thm1.first_step's zero-variance record, and an average of natural parameters breaks
#     thm1.average's, and fails the run; a client that keeps no average gets skipped records there;
#   - with --mutants, the program's kill matrix under the protocol's mutations: on thm1.first_step the
#     schedule mutation is killed and an average survives (exit 1); with thm1.average all four are
#     killed (exit 0);
#   - a client that dies, hangs past --exec-timeout or answers garbage gives one error record of the
#     claim it was serving, naming the call, the step and what happened; the next claim runs on a new
#     process (which misbehaves at the same step: its own error record at that step) and the claims
#     that do not accept the protocol keep their records; the run exits 1;
#   - a program that cannot be started, or speaks another protocol version, is one usage line, exit 2;
#   - no client process is left behind (each run's clients carry a unique --tag).
# Usage: exec_protocol.sh NGVI C_CLIENT PYTHON_CLIENT. Exit 77 (skipped) without a python3 with numpy.
set -u
NGVI="$1"
CCLIENT="$2"
PYCLIENT="$3"
. "$(dirname "$0")/test_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NGVI_STATUS_EVERY=0

PY=""
for cand in "${NGVI_PYTHON:-}" python3 /usr/bin/python3; do
  # type -P: the program's path, never test_lib.sh's python3 function.
  path=$(type -P "$cand" 2>/dev/null) || continue
  if [ -n "$path" ] && "$path" -c 'import numpy' 2>/dev/null; then PY=$path; break; fi
done
if [ -z "$PY" ]; then echo "skipped: no python3 with numpy (Debian: python3-numpy)"; exit 77; fi
TAG="ngvi-exec-test-$$-$RANDOM"
SEL='x.unbiased_iterate,thm1.first_step'

# no_child_left NAME: no process carries this test's tag any more (pgrep run from this shell, whose
# own command line does not hold the tag).
no_client_running() { ! pgrep -f -- "$TAG" >/dev/null; }
no_child_left() {
  check "$1: no client process left" no_client_running
}

# same_verdicts LIB OTHER: every record of the conjugate-ngd claims in LIB is in OTHER with its verdict.
same_verdicts() {
  "$PY" - "$1" "$2" <<'PY'
import json, sys
accepts = {"thm1.rate", "thm1.average", "thm1.first_step", "x.unbiased_iterate", "x.iterate_variance"}
lib = [r for r in json.load(open(sys.argv[1]))["records"] if r["claim"] in accepts]
other = {(r["claim"], r["instance"], r["precision"]): r["verdict"] for r in json.load(open(sys.argv[2]))["records"]}
bad = [(r["claim"], r["instance"], r["verdict"], other.get((r["claim"], r["instance"], r["precision"]), "missing"))
       for r in lib if other.get((r["claim"], r["instance"], r["precision"])) != r["verdict"]]
for b in bad: print("  differs:", *b)
print("  %d conjugate-ngd record(s) compared, %d differ" % (len(lib), len(bad)))
sys.exit(1 if bad or len(lib) < 8 else 0)  # x.unbiased_iterate writes 8 records (quick)
PY
}

# broken_claim FILE CLAIM: some claim record of CLAIM in FILE is broken.
broken_claim() {
  "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1]))["records"]; sys.exit(0 if any(x["claim"] == sys.argv[2] and x["kind"] == "claim" and x["verdict"] == "broken" for x in r) else 1)' "$1" "$2"
}

# error_record FILE CLAIM TEXT...: CLAIM has an error record whose note holds every TEXT.
error_record() {
  "$PY" - "$@" <<'PY'
import json, sys
path, claim, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
recs = [r for r in json.load(open(path))["records"] if r["claim"] == claim and r["verdict"] == "error"]
ok = len(recs) == 1 and all(t in recs[0]["note"] for t in texts)
print("  %s error record(s) of %s: %s" % (len(recs), claim, recs[0]["note"] if recs else "-"))
sys.exit(0 if ok else 1)
PY
}

# holds_all FILE CLAIM: CLAIM has records in FILE and none of them fails.
holds_all() {
  "$PY" -c 'import json, sys; r = [x for x in json.load(open(sys.argv[1]))["records"] if x["claim"] == sys.argv[2]]; sys.exit(0 if r and all((x["verdict"] in ("holds", "vacuous")) == (x["kind"] == "claim") for x in r) else 1)' "$1" "$2"
}

# --- The library's run, then each client on the same claims. ---
"$NGVI" verify --claims "$SEL" --precision double --json "$tmp/lib.json" >"$tmp/lib.txt" 2>&1
check "the library's algorithm passes $SEL" test $? -eq 0

# run_client LABEL OUT CMD: ngvi verify against the client CMD on $SEL, records to $tmp/OUT.json;
# prints its wall time and sets client_status to the exit status.
run_client() {
  local t0 secs
  t0=$(date +%s.%N)
  "$NGVI" verify --algorithm "exec:$3" --claims "$SEL" --json "$tmp/$2.json" >"$tmp/$2.txt" 2>&1
  client_status=$?
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "  $1: $SEL in $secs s"
}

run_client "python client" py "$PY $PYCLIENT --tag $TAG"
check "the Python client passes $SEL" test "$client_status" -eq 0
check "the Python client holds every record the library holds" same_verdicts "$tmp/lib.json" "$tmp/py.json"
check "meta names the Python implementation" grep -q '"implementation": *"numpy-ngd"' "$tmp/py.json"
check "meta names its version" grep -q '"implementation_version": *"1.0"' "$tmp/py.json"
check "meta names the protocol" grep -q '"protocol": *"conjugate-ngd"' "$tmp/py.json"
check "meta names the protocol version" grep -q '"protocol_version": *1' "$tmp/py.json"
check "meta of the library's run names no implementation" grep -q '"implementation": *""' "$tmp/lib.json"
no_child_left "python run"

run_client "C client" c "$CCLIENT"
check "the C client passes $SEL" test "$client_status" -eq 0
check "the C client holds every record the library holds" same_verdicts "$tmp/lib.json" "$tmp/c.json"
check "meta names the C implementation" grep -q '"implementation": *"c-ngd"' "$tmp/c.json"

# --- Another implementation is not a baseline. ---
expect_one_line_error "library baseline refused for an exec run" \
  "$NGVI" verify --algorithm "exec:$CCLIENT" --claims "$SEL" --baseline "$tmp/lib.json"
"$NGVI" verify --algorithm "exec:$CCLIENT" --claims "$SEL" --baseline "$tmp/lib.json" >/dev/null 2>"$tmp/refused.txt"
check "the refusal exits 2" test $? -eq 2
check "the refusal names the implementations" grep -q "implementation the library's algorithm (baseline) vs implementation 'c-ngd' 1.0 (conjugate-ngd v1) (new)" "$tmp/refused.txt"
"$NGVI" diff "$tmp/lib.json" "$tmp/c.json" >"$tmp/diff.txt" 2>&1
check "ngvi diff refuses without --allow-meta-mismatch" test $? -eq 2
"$NGVI" diff --allow-meta-mismatch "$tmp/lib.json" "$tmp/c.json" >"$tmp/diff.txt" 2>/dev/null
check "ngvi diff first names what each side ran against" \
  bash -c "head -1 '$tmp/diff.txt' | grep -q \"lib.json: the library's algorithm; .*c.json: implementation 'c-ngd' 1.0 (conjugate-ngd v1)\""

# --- The bugs a user makes break records. ---
# The schedule offset and the batch scale on thm1.first_step (E KL(q_1 || p) = 0 without noise: a
# fraction of a second; x.unbiased_iterate sees both too, 0.17 million calls), the average of natural
# parameters on thm1.average (100 steps per instance).
for bug in "--schedule-offset 1:thm1.first_step" "--batch-scale-plus-one:thm1.first_step" "--average natural:thm1.average"; do
  flag=${bug%%:*}
  claim=${bug##*:}
  "$NGVI" verify --algorithm "exec:$PY $PYCLIENT $flag --tag $TAG" --claims "$claim" --json "$tmp/bug.json" >"$tmp/bug.txt" 2>&1
  check "$flag fails the run" test $? -eq 1
  check "$flag breaks a claim record of $claim" broken_claim "$tmp/bug.json" "$claim"
done
"$NGVI" verify --algorithm "exec:$PY $PYCLIENT --average none --tag $TAG" --claims thm1.average --json "$tmp/noavg.json" >"$tmp/noavg.txt" 2>&1
check "--average none: thm1.average has nothing to check (exit 3)" test $? -eq 3
check "--average none: thm1.average's records are skipped, saying why" \
  "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1]))["records"]; sys.exit(0 if r and all(x["verdict"] == "skipped" and "keeps no average" in x["note"] for x in r) else 1)' "$tmp/noavg.json"
no_child_left "bug runs"

# --- The kill matrix of a program (--algorithm with --mutants): on thm1.first_step the C client's
# schedule mutation is killed and an average (which that claim does not read) survives, so the run
# exits 1 and says so (what each of the four mutations hands the program is
# lib/tests/protocols/conjugate_ngd_mutations_test.cpp's); with thm1.average beside it every mutation
# is killed; a misspelt mutation is refused before the program starts. ---
"$NGVI" verify --algorithm "exec:$CCLIENT" --claims thm1.first_step --mutants schedule-off-by-one,average-last --json "$tmp/kill.json" >"$tmp/kill.txt" 2>&1
check "a kill matrix with surviving mutations exits 1" test $? -eq 1
kill_status() {  # FILE MUTATION STATUS: the mutation's status in the matrix
  "$PY" -c 'import json, sys; m = {x["name"]: x for x in json.load(open(sys.argv[1]))["mutants"]}; x = m[sys.argv[2]]; print("  %s: %s, %d flip(s)" % (sys.argv[2], x["status"], len(x["flips"]))); sys.exit(0 if x["status"] == sys.argv[3] else 1)' "$@"
}
check "schedule-off-by-one is killed" kill_status "$tmp/kill.json" schedule-off-by-one killed
check "average-last survives thm1.first_step" kill_status "$tmp/kill.json" average-last survived
check "the matrix names the implementation" grep -q '"implementation": *"c-ngd"' "$tmp/kill.json"
check "the summary counts 1 killed" grep -q "summary: 2 mutant(s): 1 killed" "$tmp/kill.txt"
mkdir -p "$tmp/killreport" && cp "$tmp/kill.json" "$tmp/killreport/mutants.json"
"$NGVI" report "$tmp/killreport" >/dev/null 2>&1
check "the report's kill matrix names the program" grep -q "2 mutant(s) of implementation &#39;c-ngd&#39; 1.0 (conjugate-ngd v1)\|2 mutant(s) of implementation 'c-ngd' 1.0 (conjugate-ngd v1)" "$tmp/killreport/index.html"
"$NGVI" verify --algorithm "exec:$CCLIENT" --claims 'thm1.first_step,thm1.average' --mutants all --json "$tmp/killall.json" >"$tmp/killall.txt" 2>&1
check "with thm1.average every mutation is killed (exit 0)" test $? -eq 0
for m in schedule-off-by-one batch-scale-m-plus-one average-uniform average-last; do
  check "$m is killed by thm1.first_step or thm1.average" kill_status "$tmp/killall.json" "$m" killed
done
expect_one_line_error "a misspelt mutation" "$NGVI" verify --algorithm "exec:/no/such/ngvi-client" --claims "$SEL" --mutants schedule-off-by-two
"$NGVI" verify --algorithm "exec:/no/such/ngvi-client" --claims "$SEL" --mutants schedule-off-by-two 2>"$tmp/misspelt.txt" >/dev/null
check "the misspelt mutation is named with the known ones, before the program starts" \
  grep -q "'schedule-off-by-two' is not a mutation of the conjugate-ngd protocol (with --algorithm, --mutants takes all or some of: schedule-off-by-one" "$tmp/misspelt.txt"
no_child_left "kill matrix"

# --- A client that dies, hangs or answers garbage at its 100th step call: thm1.rate (run first, the
# longer claim) gets one error record naming the call and what happened; x.unbiased_iterate then
# runs on a new process, which misbehaves at its own 100th call (its own error record); the claims of
# the selection that do not accept the protocol keep their (skipped) records. ---
PAIR='thm1.rate,x.unbiased_iterate,lemma1.ngd_is_md'
both_errors() {  # FILE TEXT...: thm1.rate and x.unbiased_iterate each have their error record
  error_record "$@" && error_record "$1" x.unbiased_iterate "${@:3}"
}
kept_skipped() { grep -q '"claim": *"lemma1.ngd_is_md"' "$1"; }
"$NGVI" verify --algorithm "exec:$PY $PYCLIENT --die-after-steps 100 --tag $TAG" --claims "$PAIR" --json "$tmp/die.json" \
  >"$tmp/die.txt" 2>&1
check "a client that dies fails the run" test $? -eq 1
check "its error record names the call, the step and the exit status" \
  both_errors "$tmp/die.json" thm1.rate "conjugate-ngd call 'step' at step t = " "call 'step' of run " "exited with status 9 before answering"
check "the other claims' records are kept" kept_skipped "$tmp/die.json"
no_child_left "client that died"

"$NGVI" verify --algorithm "exec:$PY $PYCLIENT --hang-after-steps 100 --tag $TAG" --exec-timeout 2 --claims "$PAIR" \
  --json "$tmp/hang.json" >"$tmp/hang.txt" 2>&1
check "a client that hangs fails the run" test $? -eq 1
check "its error record names the call, the step and the timeout" \
  both_errors "$tmp/hang.json" thm1.rate "conjugate-ngd call 'step' at step t = " "gave no answer within 2 s (killed)"
check "the other claims' records are kept after the hang" kept_skipped "$tmp/hang.json"
no_child_left "client that hung"

"$NGVI" verify --algorithm "exec:$PY $PYCLIENT --garbage-after-steps 100 --tag $TAG" --claims "$PAIR" --json "$tmp/garbage.json" \
  >"$tmp/garbage.txt" 2>&1
check "a client that answers garbage fails the run" test $? -eq 1
check "its error record quotes the answer" \
  both_errors "$tmp/garbage.json" thm1.rate "conjugate-ngd call 'step' at step t = " "answered 'garbage: this line is not JSON' which is not JSON"
check "the other claims' records are kept after the garbage" kept_skipped "$tmp/garbage.json"
no_child_left "client that answered garbage"

# --- Usage errors: one line, exit 2, nothing run. ---
expect_usage() {  # NAME ARGS...: one stderr line and exit status 2
  local name="$1"; shift
  expect_one_line_error "$name" "$NGVI" verify "$@"
  "$NGVI" verify "$@" >/dev/null 2>&1
  check "$name exits 2" test $? -eq 2
}
expect_usage "a command that does not exist" --algorithm 'exec:/no/such/ngvi-client --x' --claims x.unbiased_iterate
expect_usage "another protocol version" --claims x.unbiased_iterate \
  --algorithm "exec:sh -c 'read l; echo \"{\\\"protocol\\\":\\\"conjugate-ngd\\\",\\\"version\\\":2}\"'"
expect_usage "a client that exits at once" --algorithm 'exec:false' --claims x.unbiased_iterate
expect_usage "--algorithm other than exec:" --algorithm 'python:mymod' --claims x.unbiased_iterate
expect_usage "--algorithm with --variant" --algorithm "exec:$CCLIENT" --variant g2-bias --claims x.unbiased_iterate
expect_usage "--algorithm with --precision mp50" --algorithm "exec:$CCLIENT" --precision mp50 --claims x.unbiased_iterate
expect_usage "--exec-timeout without --algorithm" --exec-timeout 5 --claims x.unbiased_iterate
expect_usage "an unbalanced quote" --algorithm "exec:$CCLIENT 'x" --claims x.unbiased_iterate
no_child_left "usage errors"
finish
