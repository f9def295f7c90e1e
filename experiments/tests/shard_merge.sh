#!/usr/bin/env bash
# `ngvi verify --shard I/N` and `ngvi merge`: for N = 1, 2, 3 and 7 the shards of a selection are
# disjoint and cover it, and their merge is the one-process run's claims.json record for record and
# value for value (every field but the wall time); merge refuses parts of different seeds, modes,
# precisions or selections, a shard given twice or missing, a file that is not a shard, and a part
# whose claims are not its shard; --shard refuses malformed and impossible shards. The same for the
# shards of a kill matrix (--mutants) and of a worst-case search (--search), whose merge runs the
# refinement.
# Usage: shard_merge.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# Claims of four systems, in double and mp50; lsk.matches_conjugate_ngd stands for the LSK claims (the
# quick suite's costliest claim, lsk.posdef_always, about 8 s of CPU a run, would be a third of the
# selection's time in each of the test's seven runs of it).
SEL='thm1.*,x.*,lemma4.*,lemma1*,appA1*,svi.schedule,lsk.matches_conjugate_ngd'

# same A B: the records of two claims.json files, every field but "seconds", and the meta's seed,
# mode, precisions, selection, commit, ranks and replicates per rank (summed over the shards).
same() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda rs: [{k: v for k, v in r.items() if k != "seconds"} for r in rs]
ra, rb = strip(a["records"]), strip(b["records"])
if ra != rb:
    diff = next((i for i, (x, y) in enumerate(zip(ra, rb)) if x != y), min(len(ra), len(rb)))
    print(f"records differ ({len(ra)} vs {len(rb)}), first at {diff}: {ra[diff] if diff < len(ra) else None} vs {rb[diff] if diff < len(rb) else None}")
    sys.exit(1)
for k in ("seed", "mode", "precisions", "claims", "commit", "ranks", "replicates_per_rank"):
    if a["meta"][k] != b["meta"][k]:
        print(f"meta {k}: {a['meta'][k]} vs {b['meta'][k]}"); sys.exit(1)
if "shard" in b["meta"]:
    print("the merged meta still names a shard"); sys.exit(1)
PY
}

# run_shards N DIR LABEL ARGS...: ngvi verify ARGS --shard I/N --json DIR/pI.json for I = 1..N, each
# checked to exit 0; sets parts to the N files.
run_shards() {
  local n=$1 dir=$2 label=$3 i
  shift 3
  parts=()
  for i in $(seq 1 "$n"); do
    "$NGVI" verify "$@" --shard "$i/$n" --json "$dir/p$i.json" >"$dir.out" 2>&1
    check "$label shard $i/$n runs and passes" test $? -eq 0
    parts+=("$dir/p$i.json")
  done
}

"$NGVI" verify --claims "$SEL" --precision all --json "$W/one/claims.json" >/dev/null 2>&1
check "the one-process run passes" test $? -eq 0
for N in 1 2 3 7; do
  run_shards "$N" "$W/n$N" "claims" --claims "$SEL" --precision all
  # Disjoint and covering: every claim of the selection in exactly one shard.
  check "N = $N: the shards partition the selection" python3 - "$W/one/claims.json" "${parts[@]}" <<'PY'
import json, sys
whole = []
for r in json.load(open(sys.argv[1]))["records"]:
    if r["claim"] not in whole: whole.append(r["claim"])
got = [c for p in sys.argv[2:] for c in json.load(open(p))["meta"]["shard"]["claims"]]
sys.exit(0 if sorted(got) == sorted(whole) and len(set(got)) == len(got) else 1)
PY
  # Merged in reverse order: the parts' order on the command line does not matter.
  rev=()
  for ((k = ${#parts[@]} - 1; k >= 0; k--)); do rev+=("${parts[$k]}"); done
  "$NGVI" merge "${rev[@]}" --json "$W/n$N/merged.json" >"$W/m$N.out" 2>&1
  check "N = $N: merge passes" test $? -eq 0
  check "N = $N: the merge is the one-process run" same "$W/one/claims.json" "$W/n$N/merged.json"
done

# Refusals: one line, non-zero.
expect_one_line_error "merge: a shard missing" "$NGVI" merge "$W/n3/p1.json" "$W/n3/p2.json" --json "$W/x.json"
expect_one_line_error "merge: a shard twice" "$NGVI" merge "$W/n2/p1.json" "$W/n2/p1.json" "$W/n2/p2.json" --json "$W/x.json"
expect_one_line_error "merge: shards of different N" "$NGVI" merge "$W/n2/p1.json" "$W/n3/p2.json" "$W/n3/p3.json" --json "$W/x.json"
expect_one_line_error "merge: not a shard" "$NGVI" merge "$W/one/claims.json" --json "$W/x.json"
expect_one_line_error "merge: no --json" "$NGVI" merge "$W/n2/p1.json" "$W/n2/p2.json"
"$NGVI" verify --claims "$SEL" --precision all --seed 7 --shard 2/2 --json "$W/seed7/p2.json" >/dev/null 2>&1
expect_one_line_error "merge: another seed" "$NGVI" merge "$W/n2/p1.json" "$W/seed7/p2.json" --json "$W/x.json"
check "merge: the seed is named" bash -c '"$0" merge "$1" "$2" --json "$3" 2>&1 | grep -q "seed 20240601 (first part) vs 7 (this part)"' "$NGVI" "$W/n2/p1.json" "$W/seed7/p2.json" "$W/x.json"
"$NGVI" verify --claims "$SEL" --precision double --shard 2/2 --json "$W/dbl/p2.json" >/dev/null 2>&1
expect_one_line_error "merge: other precisions" "$NGVI" merge "$W/n2/p1.json" "$W/dbl/p2.json" --json "$W/x.json"
python3 - "$W/n2/p2.json" "$W/edited/p2.json" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1])); j["meta"]["shard"]["claims"] = j["meta"]["shard"]["claims"][1:]
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True); json.dump(j, open(sys.argv[2], "w"))
PY
expect_one_line_error "merge: a part whose claims are not its shard" "$NGVI" merge "$W/n2/p1.json" "$W/edited/p2.json" --json "$W/x.json"
expect_one_line_error "verify: malformed shard" "$NGVI" verify --claims "$SEL" --shard 2of3
expect_one_line_error "verify: shard index 0" "$NGVI" verify --claims "$SEL" --shard 0/3
expect_one_line_error "verify: more shards than claims" "$NGVI" verify --claims 'thm1.rate' --shard 1/2
expect_one_line_error "verify: --shard with --baseline" "$NGVI" verify --claims "$SEL" --shard 1/2 --baseline "$W/one/claims.json"

# The kill matrix: its shards (each claim's library and mutant runs in one shard) merge into the
# one-process matrix, field for field but the wall times; a shard's exit status is its library run's.
# Without thm1.rate and thm1.average, the claims that see uniform-averaging (thm1.rate would also be
# a third of the matrix's time on its own, 5 runs of it here): that mutant survives, so the
# one-process matrix fails (exit 1) and the merge must say so too.
KSEL='thm1.exact,thm1.first_step,thm1.init*,thm1.last*,x.*,lemma4.*,lemma1*,svi.schedule'
# Mutants that these claims kill, one they do not, and the equivalent one: the join is exercised on
# every status; the whole matrix (every mutant) is NgviCli.mutants' run.
KMUT='uniform-averaging,step-off-by-one,g2-bias,kl-no-logdet,without-replacement,g2-symmetric-part'
# same_matrix A B: two mutants.json files equal but for "seconds", the start and the command line.
same_matrix() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for j in (a, b):
    for k in ("started", "command"): j["meta"].pop(k, None)
    for m in j["mutants"]: m.pop("seconds")
bad = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
if bad or "shard" in b["meta"]:
    print("mutants.json differ in", bad or "the merged meta's shard"); sys.exit(1)
PY
}
"$NGVI" verify --claims "$KSEL" --mutants "$KMUT" --json "$W/km/one.json" >/dev/null 2>&1
kstatus=$?
check "kill matrix: the one-process run has flips to join" python3 -c 'import json,sys; sys.exit(0 if sum(len(m["flips"]) for m in json.load(open(sys.argv[1]))["mutants"]) > 0 else 1)' "$W/km/one.json"
check "kill matrix: the one-process run has a survivor (exit 1)" test "$kstatus" -eq 1
for N in 1 2 3 7; do
  run_shards "$N" "$W/km$N" "kill matrix (its library run)" --claims "$KSEL" --mutants "$KMUT"
  "$NGVI" merge "${parts[@]}" --json "$W/km$N/merged.json" >"$W/kmm$N.out" 2>&1
  check "kill matrix N = $N: merge exits as the one-process run ($kstatus)" test $? -eq "$kstatus"
  check "kill matrix N = $N: the merge is the one-process matrix" same_matrix "$W/km/one.json" "$W/km$N/merged.json"
done
expect_one_line_error "merge: a kill matrix's shard missing" "$NGVI" merge "$W/km3/p1.json" "$W/km3/p3.json" --json "$W/x.json"
expect_one_line_error "merge: a kill matrix's shard and a claim run's" "$NGVI" merge "$W/km2/p1.json" "$W/n2/p2.json" --json "$W/x.json"
"$NGVI" verify --claims "$KSEL" --mutants 'g2-bias,step-off-by-one' --shard 2/2 --json "$W/kmx/p2.json" >/dev/null 2>&1
expect_one_line_error "merge: kill matrix shards of other mutants" "$NGVI" merge "$W/km2/p1.json" "$W/kmx/p2.json" --json "$W/x.json"
expect_one_line_error "merge: --junit with kill matrix shards" "$NGVI" merge "$W/km2/p1.json" "$W/km2/p2.json" --json "$W/x.json" --junit "$W/x.xml"

# The search: its restarts split among the shards (restart k in shard k mod N + 1), the refinement run
# by the merge; the merged summary and worst instance are the one-process search's.
same_search() {
  python3 - "$1" "$2" <<'PY'
import json, sys
for f in ("lemma10.json", "lemma10.instance.json"):
    a, b = (json.load(open(d + "/search/" + f)) for d in sys.argv[1:3])
    for j in (a, b):
        for k in ("seconds", "command"): j.pop(k, None)
    if a != b:
        print(f, "differs in", [k for k in a if a[k] != b.get(k)]); sys.exit(1)
PY
}
"$NGVI" verify --search lemma10 --search-budget 60 --search-restarts 24 --out "$W/s1" >/dev/null 2>&1
check "search: the one-process search runs" test $? -eq 0
for N in 1 2 3 7; do
  for I in $(seq 1 "$N"); do
    "$NGVI" verify --search lemma10 --search-budget 60 --search-restarts 24 --shard "$I/$N" --out "$W/sp$N" >/dev/null 2>&1
    check "search shard $I/$N runs" test $? -eq 0
  done
  "$NGVI" merge "$W/sp$N"/search/lemma10.part-*-of-$N.json --out "$W/sm$N" >/dev/null 2>&1
  check "search N = $N: merge runs" test $? -eq 0
  check "search N = $N: the merge is the one-process search" same_search "$W/s1" "$W/sm$N"
done
expect_one_line_error "merge: a search part missing" "$NGVI" merge "$W/sp3/search/lemma10.part-1-of-3.json" "$W/sp3/search/lemma10.part-2-of-3.json" --out "$W/x"
expect_one_line_error "merge: a search part twice" "$NGVI" merge "$W/sp2/search/lemma10.part-1-of-2.json" "$W/sp2/search/lemma10.part-1-of-2.json" "$W/sp2/search/lemma10.part-2-of-2.json" --out "$W/x"
expect_one_line_error "merge: search parts without --out" "$NGVI" merge "$W/sp2/search/lemma10.part-1-of-2.json" "$W/sp2/search/lemma10.part-2-of-2.json"
"$NGVI" verify --search lemma10 --search-budget 61 --search-restarts 24 --shard 2/2 --out "$W/spb" >/dev/null 2>&1
expect_one_line_error "merge: search parts of another budget" "$NGVI" merge "$W/sp2/search/lemma10.part-1-of-2.json" "$W/spb/search/lemma10.part-2-of-2.json" --out "$W/x"
python3 - "$W/sp2/search/lemma10.part-2-of-2.json" "$W/spe/lemma10.part-2-of-2.json" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1])); j["scores"][0]["restart"] = 1
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True); json.dump(j, open(sys.argv[2], "w"))
PY
expect_one_line_error "merge: a search part holding another shard's restart" "$NGVI" merge "$W/sp2/search/lemma10.part-1-of-2.json" "$W/spe/lemma10.part-2-of-2.json" --out "$W/x"
expect_one_line_error "verify: --search --shard with more shards than restarts" "$NGVI" verify --search lemma10 --search-budget 4 --shard 3/3 --out "$W/x"
expect_one_line_error "verify: --search-restarts above the budget" "$NGVI" verify --search lemma10 --search-budget 10 --search-restarts 11 --out "$W/x"
expect_one_line_error "verify: --shard with --instance" "$NGVI" verify --instance "$W/s1/search/lemma10.instance.json" --shard 1/2
finish
