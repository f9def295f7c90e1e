#!/usr/bin/env bash
# Input hygiene (issue 26): each bad input gives exactly one line on stderr that names the option
# and the violated condition, with the right exit status (2 usage, 1 failure while running), and
# allocation sizes are refused before anything is allocated. Also `ngvi --version`.
# Usage: cli_input_hygiene.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# expect_error_matching NAME STATUS REGEX CMD...: one stderr line, exit STATUS, the line matches REGEX
# (extended grep), and the command finishes within LIMIT seconds (default 10: "instantly").
expect_error_matching() {
  local name="$1" want="$2" re="$3"; shift 3
  CASES=$((CASES + 1))
  local err status lines t0 t1
  err=$(mktemp)
  t0=$(date +%s)
  timeout "${LIMIT:-10}" "$@" >/dev/null 2>"$err"
  status=$?
  t1=$(date +%s)
  lines=$(wc -l <"$err")
  if [ "$status" -eq 124 ]; then
    echo "FAIL [$name]: took more than ${LIMIT:-10} s: $*"; FAILS=$((FAILS + 1))
  elif [ "$status" -ne "$want" ]; then
    echo "FAIL [$name]: exit status $status (expected $want): $*"; sed 's/^/  | /' "$err"; FAILS=$((FAILS + 1))
  elif [ "$lines" -ne 1 ]; then
    echo "FAIL [$name]: expected exactly one stderr line, got $lines: $*"; sed 's/^/  | /' "$err"; FAILS=$((FAILS + 1))
  elif ! grep -Eq -- "$re" "$err"; then
    echo "FAIL [$name]: the line does not match /$re/: $(cat "$err")"; FAILS=$((FAILS + 1))
  else
    echo "ok   [$name] (status $status, $((t1 - t0)) s): $(cat "$err")"
  fi
  rm -f "$err"
}

# --- input hygiene (issue 26): each bad input gives one line naming the option and the right status
E=ngd-gaussian-target
expect_error_matching "run: empty --out" 2 "--out.*empty" "$NGVI" run $E --out '' --iters 10 --seeds 1
check "run: empty --out wrote nothing at the filesystem root" test ! -e /runs/$E
expect_error_matching "verify: empty --json" 2 "--json.*empty" "$NGVI" verify --claims 'lemma4.*' --json ''
expect_error_matching "verify: empty --baseline" 2 "--baseline.*empty" "$NGVI" verify --claims 'lemma4.*' --baseline ''
expect_error_matching "report: empty directory name" 2 "DIR.*empty" "$NGVI" report ''
expect_error_matching "run fig1: empty --data" 2 "--data.*empty" "$NGVI" run fig1 --out "$W/o" --data '' --quiet
expect_error_matching "bound: empty --data" 2 "--data.*empty" "$NGVI" bound --data '' --batch 2 --noise 1 --iters 10
expect_error_matching "verify: negative seed" 2 "--seed.*negative" "$NGVI" verify --claims 'lemma4.*' --seed -1
expect_error_matching "run: negative seed" 2 "--seed.*negative" "$NGVI" run $E --out "$W/o" --seed -1
expect_error_matching "run: seed overflowing 64 bits" 2 "--seed.*overflows 64 bits" "$NGVI" run $E --out "$W/o" --seed 18446744073709551616
expect_error_matching "bound: negative seed" 2 "--seed.*negative" "$NGVI" bound --data diabetes --batch 2 --noise 1 --iters 10 --seed -5
NGVI_SEED=-1 expect_error_matching "verify: negative NGVI_SEED" 2 "seed.*negative" "$NGVI" verify --claims 'lemma4.*'
expect_error_matching "run: abc for --iters" 2 "--iters.*'abc' is not an integer" "$NGVI" run $E --out "$W/o" --iters abc
expect_error_matching "run: 2.5 for --seeds" 2 "--seeds.*'2.5' is not an integer" "$NGVI" run $E --out "$W/o" --seeds 2.5
expect_error_matching "verify: abc for --threads" 2 "--threads.*'abc' is not an integer" "$NGVI" verify --threads abc
expect_error_matching "run fig1: abc for --batch" 2 "--batch.*'abc' is not an integer" "$NGVI" run fig1 --out "$W/o" --batch abc
expect_error_matching "bound: abc for --steps" 2 "--steps.*'abc' is not an integer" "$NGVI" bound --data diabetes --batch 2 --noise 1 --iters 10 --steps abc
expect_error_matching "run: --iters out of range names the range" 2 "--iters.*outside \[1, " "$NGVI" run $E --out "$W/o" --iters 0
# Allocation sizes are checked against the data before anything is allocated (instantly).
printf 'a,b,y\n1,2,3\n4,5,6.5\n7,8,10\n2,1,0\n' >"$W/small.csv"
expect_error_matching "bound: huge --batch refused up front" 2 "--batch.*n = 4 rows.*GB" "$NGVI" bound --data "$W/small.csv" --target y --batch 1073741824 --noise 1 --iters 10
expect_error_matching "run fig1: huge --batch refused up front" 2 "--batch.*n = 4 rows.*GB" "$NGVI" run fig1 --out "$W/o" --data "$W/small.csv" --target y --batch 1073741824 --quiet
# Truncated gzip: the stream ends before its trailer; a gzip whose trailer's length field is wrong.
python3 - "$W" <<'PY'
import gzip, sys
w = sys.argv[1]
rows = "a,b,y\n" + "".join(f"{i},{i % 7},{2 * i + 1}\n" for i in range(200))
blob = gzip.compress(rows.encode(), mtime=0)
open(f"{w}/good.csv.gz", "wb").write(blob)
open(f"{w}/truncated.csv.gz", "wb").write(blob[: len(blob) // 2])
open(f"{w}/notrailer.csv.gz", "wb").write(blob[:-8])
bad = bytearray(blob); bad[-1] ^= 1
open(f"{w}/badlength.csv.gz", "wb").write(bytes(bad))
PY
expect_error_matching "bound: gzip cut in half" 1 "truncated.csv.gz.*truncated gzip" "$NGVI" bound --data "$W/truncated.csv.gz" --target y --batch 2 --noise 1 --iters 10
expect_error_matching "bound: gzip without its trailer" 1 "notrailer.csv.gz.*truncated gzip" "$NGVI" bound --data "$W/notrailer.csv.gz" --target y --batch 2 --noise 1 --iters 10
expect_error_matching "bound: gzip with a wrong length in its trailer" 1 "badlength.csv.gz.*(length|corrupt)" "$NGVI" bound --data "$W/badlength.csv.gz" --target y --batch 2 --noise 1 --iters 10
expect_error_matching "run fig1: gzip without its trailer" 1 "notrailer.csv.gz.*truncated gzip" "$NGVI" run fig1 --out "$W/o" --data "$W/notrailer.csv.gz" --target y --quiet
check "bound: the complete gzip is read" "$NGVI" bound --data "$W/good.csv.gz" --target y --batch 2 --noise 1 --iters 10 --steps 5 --samples 4
# Numerical failures inside a run name the option to change.
LIMIT=60 expect_error_matching "run fig1: --noise 1e-300" 1 "--noise" "$NGVI" run fig1 --out "$W/o" --data "$W/good.csv.gz" --target y --noise 1e-300 --iters 50 --seeds 1 --quiet
LIMIT=60 expect_error_matching "run fig1: --clamp 1e-300" 1 "--clamp" "$NGVI" run fig1 --out "$W/o" --data "$W/good.csv.gz" --target y --clamp 1e-300 --iters 50 --seeds 1 --quiet
LIMIT=60 expect_error_matching "bound: --noise 1e-300" 2 "--noise" "$NGVI" bound --data "$W/good.csv.gz" --target y --batch 2 --noise 1e-300 --iters 10 --steps 5 --samples 4
# --version: kit version, commit, build type, compiler.
"$NGVI" --version >"$W/version.txt" 2>&1
check "--version exits 0" test $? -eq 0
check "--version names the kit version" grep -Eq '^ngvi \(ngvikit\) [0-9]+\.[0-9]+\.[0-9]+' "$W/version.txt"
check "--version names the commit" grep -Eq '^commit ([0-9a-f]{12}|unknown)' "$W/version.txt"
check "--version names the build type" grep -Eq '^build type [A-Za-z]+' "$W/version.txt"
check "--version names the compiler" grep -Eq '^compiler .+' "$W/version.txt"

finish
