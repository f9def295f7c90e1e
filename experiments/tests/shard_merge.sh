#!/usr/bin/env bash
# `ngvi verify --shard I/N` and `ngvi merge`: for N = 1, 2, 3 and 7 the shards of a selection are
# disjoint and cover it, and their merge is the one-process run's claims.json record for record and
# value for value (every field but the wall time); merge refuses parts of different seeds, modes,
# precisions or selections, a shard given twice or missing, a file that is not a shard, and a part
# whose claims are not its shard; --shard refuses malformed and impossible shards.
# Usage: shard_merge.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
SEL='thm1.*,x.*,lemma4.*,lemma1*,appA1*,svi.schedule,lsk.posdef_always'

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

"$NGVI" verify --claims "$SEL" --precision all --json "$W/one/claims.json" >/dev/null 2>&1
check "the one-process run passes" test $? -eq 0
for N in 1 2 3 7; do
  parts=()
  for I in $(seq 1 "$N"); do
    "$NGVI" verify --claims "$SEL" --precision all --shard "$I/$N" --json "$W/n$N/p$I.json" >"$W/n$N.out" 2>&1
    check "shard $I/$N runs and passes" test $? -eq 0
    parts+=("$W/n$N/p$I.json")
  done
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
expect_one_line_error "verify: --shard with --mutants" "$NGVI" verify --claims "$SEL" --shard 1/2 --mutants all
finish
