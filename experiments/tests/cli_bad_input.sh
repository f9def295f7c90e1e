#!/usr/bin/env bash
# Bad input to every ngvi subcommand exits non-zero with exactly one line on stderr, never a crash.
# Usage: cli_bad_input.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# --- top level
expect_one_line_error "no subcommand" "$NGVI"
expect_one_line_error "unknown subcommand" "$NGVI" frobnicate
expect_one_line_error "unknown top-level option" "$NGVI" --bogus

# --- verify
expect_one_line_error "verify: unknown claim" "$NGVI" verify --claims no.such.claim
expect_one_line_error "verify: unknown claim inside a list" "$NGVI" verify --claims 'lemma4.*,no.such.claim'
expect_one_line_error "verify: --ranks 0" "$NGVI" verify --ranks 0 --claims 'lemma4.*'
expect_one_line_error "verify: --ranks under mpirun" env OMPI_COMM_WORLD_SIZE=2 "$NGVI" verify --ranks 2 --claims 'lemma4.*'
check "verify: the unknown item is named" bash -c "\"\$0\" verify --claims 'lemma4.*,no.such.claim' 2>&1 | grep -q \"'no.such.claim' matches no claim\"" "$NGVI"
expect_one_line_error "verify: unknown precision" "$NGVI" verify --precision quad --claims 'lemma4.*'
expect_one_line_error "verify: non-numeric seed" "$NGVI" verify --seed abc
expect_one_line_error "verify: negative threads" "$NGVI" verify --threads -3
expect_one_line_error "verify: non-numeric threads" "$NGVI" verify --threads two
expect_one_line_error "verify: tolerance out of range" "$NGVI" verify --margin-tolerance 2
expect_one_line_error "verify: quick and full" "$NGVI" verify --quick --full --claims 'lemma4.*'
expect_one_line_error "verify: unknown option" "$NGVI" verify --frobnicate
expect_one_line_error "verify: missing baseline" "$NGVI" verify --claims 'lemma4.*' --baseline "$W/missing.json"
printf '{not json' >"$W/corrupt.json"
expect_one_line_error "verify: corrupt baseline" "$NGVI" verify --claims 'lemma4.*' --baseline "$W/corrupt.json"
printf '{"meta": {}}\n' >"$W/norecords.json"
expect_one_line_error "verify: baseline without records" "$NGVI" verify --claims 'lemma4.*' --baseline "$W/norecords.json"
printf '{"records": [{"claim": "a", "instance": "i", "precision": "double", "kind": "claim", "lhs": 1, "rhs": 2, "margin": "abc", "verdict": "holds"}]}\n' >"$W/badnum.json"
expect_one_line_error "verify: non-numeric margin in baseline" "$NGVI" verify --claims 'lemma4.*' --baseline "$W/badnum.json"
touch "$W/afile"
expect_one_line_error "verify: unwritable json" "$NGVI" verify --claims 'lemma4.*' --json "$W/afile/claims.json"

# --- run
expect_one_line_error "run: no experiment" "$NGVI" run
expect_one_line_error "run: unknown experiment" "$NGVI" run no-such-experiment
E=ngd-gaussian-target
expect_one_line_error "run: zero iterations" "$NGVI" run $E --out "$W/o" --iters 0
expect_one_line_error "run: non-numeric iterations" "$NGVI" run $E --out "$W/o" --iters abc
expect_one_line_error "run: zero seeds" "$NGVI" run $E --out "$W/o" --seeds 0
expect_one_line_error "run: non-numeric seed" "$NGVI" run $E --out "$W/o" --seed 1x
expect_one_line_error "run: negative noise" "$NGVI" run $E --out "$W/o" --noise -1
expect_one_line_error "run: step above 1" "$NGVI" run $E --out "$W/o" --const-step 1.5
expect_one_line_error "run: dof below dim" "$NGVI" run $E --out "$W/o" --dim 5 --dof 3
expect_one_line_error "run: unknown option" "$NGVI" run $E --out "$W/o" --bogus 1
expect_one_line_error "run: output under a file" "$NGVI" run $E --out "$W/afile/sub" --iters 10 --seeds 1
for e in svi-lda svi-gmm; do
  expect_one_line_error "run $e: kappa = 0.5 (outside Robbins-Monro)" "$NGVI" run $e --out "$W/o" --kappa 0.5
  check "run $e: the kappa error names --kappa" bash -c '"$0" run "$2" --out "$1" --kappa 2 2>&1 | grep -q -- --kappa' "$NGVI" "$W/o" "$e"
  expect_one_line_error "run $e: rho0 above 1" "$NGVI" run $e --out "$W/o" --rho0 1.5
  expect_one_line_error "run $e: --iters does not apply" "$NGVI" run $e --out "$W/o" --iters 50
done

# svi-lda --test FILE: a given train/test split over one vocabulary. The run trains on every document of
# --data and holds out every one of --test (its line counts them); refusals name the option.
printf '4\n6\n6\n1 1 2\n2 3 1\n3 5 4\n4 6 1\n2 2 3\n4 1 1\n' >"$W/lda-train.txt"
printf '2\n6\n3\n1 2 1\n2 4 2\n2 6 1\n' >"$W/lda-test.txt"
printf '2\n7\n2\n1 2 1\n2 7 2\n' >"$W/lda-test-v7.txt"
"$NGVI" run svi-lda --out "$W/lda" --data "$W/lda-train.txt" --test "$W/lda-test.txt" --topics 2 --batch-size 2 --passes 2 >"$W/lda.out" 2>&1
check "run svi-lda --test: runs" test $? -eq 0
check "run svi-lda --test: 4 training and 2 held-out documents" grep -q "(4 training, 2 held-out documents, V = 6)" "$W/lda.out"
expect_one_line_error "run svi-lda: --test of another V" "$NGVI" run svi-lda --out "$W/o" --data "$W/lda-train.txt" --test "$W/lda-test-v7.txt" --topics 2 --batch-size 2
check "run svi-lda: the V error names --test" bash -c '"$0" run svi-lda --out "$1" --data "$2" --test "$3" --topics 2 --batch-size 2 2>&1 | grep -q -- "--test .* has V = 7"' "$NGVI" "$W/o" "$W/lda-train.txt" "$W/lda-test-v7.txt"
expect_one_line_error "run svi-lda: --test without --data" "$NGVI" run svi-lda --out "$W/o" --test "$W/lda-test.txt"
expect_one_line_error "run svi-lda: --test with --holdout-every" "$NGVI" run svi-lda --out "$W/o" --data "$W/lda-train.txt" --test "$W/lda-test.txt" --holdout-every 3
expect_one_line_error "run svi-lda: a missing --test file" "$NGVI" run svi-lda --out "$W/o" --data "$W/lda-train.txt" --test "$W/missing.txt"

# svi-lda --init-lambda FILE: the first λ from lambda.csv's layout (K rows of V positive numbers). Two runs
# from one start and seed write the same λ; another start gives another λ; a table of the wrong shape, an
# entry <= 0, a non-number and a missing file are refused, naming the option or the file.
printf '1,2,3,4,5,6\n6,5,4,3,2,1\n' >"$W/start-a.csv"
printf '2,2,2,2,2,2\n1,1,1,1,1,1\n' >"$W/start-b.csv"
for r in a1:a a2:a b:b; do
  "$NGVI" run svi-lda --out "$W/init-${r%%:*}" --data "$W/lda-train.txt" --test "$W/lda-test.txt" --topics 2 --batch-size 2 --passes 2 \
    --init-lambda "$W/start-${r##*:}.csv" --save-lambda >/dev/null 2>&1
  check "run svi-lda --init-lambda ($r): runs" test $? -eq 0
done
check "run svi-lda --init-lambda: one start and seed, one lambda" cmp -s "$W/init-a1/runs/svi-lda/lambda.csv" "$W/init-a2/runs/svi-lda/lambda.csv"
check "run svi-lda --init-lambda: another start, another lambda" bash -c '! cmp -s "$0" "$1"' "$W/init-a1/runs/svi-lda/lambda.csv" "$W/init-b/runs/svi-lda/lambda.csv"
printf '1,2,3,4,5,6\n' >"$W/start-k1.csv"
printf '1,2,3,4,5,6\n6,5,4,0,2,1\n' >"$W/start-zero.csv"
printf '1,2,3,4,5,6\n6,5,x,3,2,1\n' >"$W/start-text.csv"
for bad in k1 zero text missing; do
  expect_one_line_error "run svi-lda: --init-lambda $bad" "$NGVI" run svi-lda --out "$W/o" --data "$W/lda-train.txt" --test "$W/lda-test.txt" \
    --topics 2 --batch-size 2 --init-lambda "$W/start-$bad.csv"
done
check "run svi-lda: the shape error names --init-lambda and K x V" bash -c '"$0" run svi-lda --out "$1" --data "$2" --test "$3" --topics 2 --batch-size 2 --init-lambda "$4" 2>&1 | grep -q -- "--init-lambda .* is 1 x 6: it must be K x V = 2 x 6"' "$NGVI" "$W/o" "$W/lda-train.txt" "$W/lda-test.txt" "$W/start-k1.csv"

# vpng-logistic --data FILE --target COLUMN: the user's table, split per seed; --save-params writes
# every method's and seed's fitted mean and sd per coordinate; generator options and a non-binary
# target are refused.
python3 - "$W/logistic.csv" <<'PY'
import math, random, sys
random.seed(3)
rows = ["a,b,c,label"]
for _ in range(120):
    x = [random.gauss(0, 1) for _ in range(3)]
    p = 1 / (1 + math.exp(-(2 * x[0] - x[1])))
    rows.append(",".join(f"{v:.6f}" for v in x) + f",{int(random.random() < p)}")
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
"$NGVI" run vpng-logistic --out "$W/vl" --data "$W/logistic.csv" --target label --seeds 2 --iters 20 --save-params --quiet >/dev/null 2>&1
check "run vpng-logistic --data: runs" test $? -eq 0
check "run vpng-logistic --save-params: 3 methods x 2 seeds x 3 coordinates, finite, sd > 0" python3 - "$W"/vl/runs/vpng-logistic*/params.csv <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = len(rows) == 18 and {r["method"] for r in rows} == {"gradient", "ng", "vpng"} and all(
    math.isfinite(float(r["mean"])) and float(r["sd"]) > 0 for r in rows)
sys.exit(0 if ok else 1)
PY
check "run vpng-logistic --data: no oracle row (no true w*)" bash -c '! grep -q oracle "$0"/runs/vpng-logistic*/auc_table.md' "$W/vl"
expect_one_line_error "run vpng-logistic: a non-binary --target" "$NGVI" run vpng-logistic --out "$W/o" --data "$W/logistic.csv" --target a --quiet
expect_one_line_error "run vpng-logistic: a generator option with --data" "$NGVI" run vpng-logistic --out "$W/o" --data "$W/logistic.csv" --target label --n-train 50 --quiet
expect_one_line_error "run vpng-logistic: --test-fraction without --data" "$NGVI" run vpng-logistic --out "$W/o" --test-fraction 0.3 --quiet
expect_one_line_error "run vpng-logistic: --test-fraction outside (0, 1)" "$NGVI" run vpng-logistic --out "$W/o" --data "$W/logistic.csv" --target label --test-fraction 1 --quiet

# --data/--target of every experiment that takes data (fig1, fig2, ... as they are registered).
printf 'a,b,y\n1,2,3\n4,5\n' >"$W/ragged.csv"
printf 'a,b,y\n1,2,3\n4,x,6\n' >"$W/nonnum.csv"
printf 'a,b,y\n1,2,3\n4,5,6\n7,8,10\n' >"$W/good.csv"
printf '' >"$W/empty.csv"
printf 'u,i,r\n1,2,3\n4,5,x\n' >"$W/ratings-nonnum.csv"
printf 'u,i,r\n1,2,nan\n' >"$W/ratings-nonfinite.csv"
for exp in $("$NGVI" run --list | awk '{print $1}'); do
  help=$("$NGVI" run "$exp" --help)
  if grep -q -- '--data' <<<"$help" && grep -q -- '--target' <<<"$help"; then
    expect_one_line_error "run $exp: missing data file" "$NGVI" run "$exp" --out "$W/o" --data "$W/missing.csv" --target y --quiet
    expect_one_line_error "run $exp: ragged csv" "$NGVI" run "$exp" --out "$W/o" --data "$W/ragged.csv" --target y --quiet
    expect_one_line_error "run $exp: non-numeric value" "$NGVI" run "$exp" --out "$W/o" --data "$W/nonnum.csv" --target y --quiet
    expect_one_line_error "run $exp: empty csv" "$NGVI" run "$exp" --out "$W/o" --data "$W/empty.csv" --target y --quiet
    expect_one_line_error "run $exp: unknown column" "$NGVI" run "$exp" --out "$W/o" --data "$W/good.csv" --target nosuch --quiet
    expect_one_line_error "run $exp: data without target" "$NGVI" run "$exp" --out "$W/o" --data "$W/good.csv" --quiet
    expect_one_line_error "run $exp: target without data" "$NGVI" run "$exp" --out "$W/o" --target y --quiet
  elif grep -q -- '--data' <<<"$help"; then
    # Experiments on (user, item, rating) triples (paquet-mf, paquet-threshold): no --target.
    expect_one_line_error "run $exp: missing data file" "$NGVI" run "$exp" --out "$W/o" --data "$W/missing.csv" --quiet
    expect_one_line_error "run $exp: ragged csv" "$NGVI" run "$exp" --out "$W/o" --data "$W/ragged.csv" --quiet
    expect_one_line_error "run $exp: non-numeric rating" "$NGVI" run "$exp" --out "$W/o" --data "$W/ratings-nonnum.csv" --quiet
    expect_one_line_error "run $exp: non-finite rating" "$NGVI" run "$exp" --out "$W/o" --data "$W/ratings-nonfinite.csv" --quiet
    expect_one_line_error "run $exp: empty csv" "$NGVI" run "$exp" --out "$W/o" --data "$W/empty.csv" --quiet
    expect_one_line_error "run $exp: data and synthetic" "$NGVI" run "$exp" --out "$W/o" --data "$W/good.csv" --synthetic --quiet
    expect_one_line_error "run $exp: bad option" "$NGVI" run "$exp" --out "$W/o" --option c --quiet
    expect_one_line_error "run $exp: bad children list" "$NGVI" run "$exp" --out "$W/o" --children 1,x --quiet
  fi
done

# --- report
expect_one_line_error "report: no directory argument" "$NGVI" report
expect_one_line_error "report: missing directory" "$NGVI" report "$W/missing-dir"
mkdir -p "$W/empty-dir"
expect_one_line_error "report: nothing to report" "$NGVI" report "$W/empty-dir"
mkdir -p "$W/corrupt-claims" && printf '{"records": 3}' >"$W/corrupt-claims/claims.json"
expect_one_line_error "report: unreadable claims.json" "$NGVI" report "$W/corrupt-claims"
mkdir -p "$W/garbage-claims" && printf '\x00\x01garbage' >"$W/garbage-claims/claims.json"
expect_one_line_error "report: binary claims.json" "$NGVI" report "$W/garbage-claims"

# A good run, then damaged copies of it.
"$NGVI" run $E --out "$W/good" --iters 200 --seeds 2 --quiet || { echo "FAIL: could not make a good run"; exit 1; }
RUN="runs/$E"
damage() {  # damage NAME: copy of the good run directory as $W/NAME
  rm -rf "$W/$1" && cp -r "$W/good" "$W/$1"
}
damage ragged && printf 'ngd-last,0,1\n' >>"$W/ragged/$RUN/trace.csv"
expect_one_line_error "report: ragged trace" "$NGVI" report "$W/ragged"
damage nonnum && printf 'ngd-last,0,7,0.5,abc\n' >>"$W/nonnum/$RUN/trace.csv"
expect_one_line_error "report: non-numeric trace value" "$NGVI" report "$W/nonnum"
damage nosidecar && printf '[1, 2]' >"$W/nosidecar/$RUN/run.json"
expect_one_line_error "report: malformed run.json" "$NGVI" report "$W/nosidecar"
damage notrace && rm "$W/notrace/$RUN/trace.csv"
expect_one_line_error "report: missing trace" "$NGVI" report "$W/notrace"
damage badcol && sed -i 's/"y": "kl"/"y": "no_such_column"/' "$W/badcol/$RUN/run.json"
expect_one_line_error "report: plot of an unknown column" "$NGVI" report "$W/badcol"
expect_one_line_error "report: unknown option" "$NGVI" report "$W/good" --bogus

finish
