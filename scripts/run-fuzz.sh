#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (built by the fuzz preset: `make fuzz`), each for RUNS executions
# from its seed corpus under AddressSanitizer and UndefinedBehaviorSanitizer (leaks checked, 10 s per
# input at most: a hang is a finding), and prints one line per target: executions, seconds, the
# coverage reached and the result. The working corpus (the seeds and what the runs added) is kept in
# BUILD/corpus/<target>/, so runs accumulate; an input that crashed is written to BUILD/artifacts/ and
# belongs, once the bug is fixed, in fuzz/regressions/<target>/ (ctest replays it in every build).
# Usage: scripts/run-fuzz.sh BUILD_DIR [RUNS] [TARGET...]   (exit 1 when a target finds a crash)
set -uo pipefail
build=${1:?usage: run-fuzz.sh BUILD_DIR [RUNS] [TARGET...]}
runs=${2:-20000}
shift $(( $# < 2 ? $# : 2 ))
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(csv bag_of_words ratings idx claims_json instance)
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run-fuzz.sh: RUNS must be a positive integer (got '$runs')" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)/fuzz
status=0
for t in "${targets[@]}"; do
  exe="$build/fuzz/ngvi_fuzz_$t"
  [[ -x "$exe" ]] || { echo "run-fuzz.sh: '$exe' is not built (make fuzz builds it)" >&2; exit 2; }
  [[ -d "$src/corpus/$t" ]] || { echo "run-fuzz.sh: no seed corpus '$src/corpus/$t'" >&2; exit 2; }
  corpus="$build/corpus/$t"
  mkdir -p "$corpus" "$build/artifacts"
  cp -n "$src/corpus/$t"/* "$corpus"/
  log="$build/fuzz-$t.log"
  start=$(date +%s)
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$exe" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$t-" "$corpus" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [[ $rc -eq 0 ]]; then
    printf '%-14s %9s executions in %5s s, %s, corpus %s inputs: no crash, hang or leak\n' "$t" "${done_runs:-?}" "$secs" "${cov:-cov: ?}" "$(ls "$corpus" | wc -l)"
  else
    status=1
    printf '%-14s FINDING (exit %s) after %s s: %s; the input: %s\n' "$t" "$rc" "$secs" \
      "$(grep -m1 -E 'ERROR|SUMMARY|Timeout|out-of-memory' "$log" || echo 'see the log')" "$(ls -t "$build/artifacts/$t-"* 2>/dev/null | head -1)"
    echo "  log: $log"
  fi
done
exit $status
