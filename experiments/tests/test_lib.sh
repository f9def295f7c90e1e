# Shared helpers for the ngvi command tests (sourced). Each helper counts failures in FAILS.
FAILS=0
CASES=0

# The scripts' own Python (JSON checks, small data files): NGVI_PYTHON, the interpreter the build was
# configured with (CTest sets it; CMakeLists.txt), else python3 from PATH. A function, so that
# `check NAME python3 ...`, `$(python3 ...)` and here-documents all take it; a version manager's
# python3 shim on PATH took about 0.6 s of CPU a start against 0.06 s for the interpreter itself, and
# these scripts start it about 150 times in a run of the suite (bench/README.md, "Build time").
if [ -n "${NGVI_PYTHON:-}" ]; then
  python3() { "$NGVI_PYTHON" "$@"; }
fi

# expect_one_line_error NAME CMD...: CMD must exit non-zero with exactly one non-empty line on stderr.
expect_one_line_error() {
  local name="$1"; shift
  CASES=$((CASES + 1))
  local out err status lines
  out=$(mktemp); err=$(mktemp)
  "$@" >"$out" 2>"$err"
  status=$?
  lines=$(wc -l <"$err")
  if [ "$status" -eq 0 ]; then
    echo "FAIL [$name]: exit status 0 (expected non-zero): $*"; FAILS=$((FAILS + 1))
  elif [ "$status" -ge 128 ]; then
    echo "FAIL [$name]: killed by a signal (status $status): $*"; FAILS=$((FAILS + 1))
  elif [ "$lines" -ne 1 ] || [ ! -s "$err" ] || [ -z "$(tr -d '[:space:]' <"$err")" ]; then
    echo "FAIL [$name]: expected exactly one stderr line, got $lines: $*"; sed 's/^/  | /' "$err"; FAILS=$((FAILS + 1))
  else
    echo "ok   [$name] (status $status): $(cat "$err")"
  fi
  rm -f "$out" "$err"
}

# check NAME CONDITION-COMMAND...: records a failure unless the command succeeds.
check() {
  local name="$1"; shift
  CASES=$((CASES + 1))
  if "$@"; then echo "ok   [$name]"; else echo "FAIL [$name]: $*"; FAILS=$((FAILS + 1)); fi
}

finish() {
  echo "$CASES case(s), $FAILS failure(s)"
  [ "$FAILS" -eq 0 ]
}
