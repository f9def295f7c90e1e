#!/usr/bin/env bash
# Provenance in claims.json (meta.provenance) and run.json (provenance): the build facts fixed at
# build time (they match `ngvi --version`), the machine and library versions, start <= end, and the
# SHA-256 of every data file read, checked against coreutils' sha256sum (an independent route).
# Usage: provenance.sh NGVI_BINARY
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

"$NGVI" --version >"$W/version.txt" || { echo "FAIL: --version"; exit 1; }
COMMIT=$(sed -n 's/^commit \([0-9a-f]*\|unknown\).*/\1/p' "$W/version.txt")

"$NGVI" verify --claims 'lemma4.*' --precision double --json "$W/claims.json" >/dev/null 2>&1
check "verify wrote claims.json" test -s "$W/claims.json"
# check_meta FILE KEYPATH COMMIT: the provenance object's build and machine facts.
cat >"$W/check.py" <<'PY'
import json, sys
path, where, commit = sys.argv[1], sys.argv[2], sys.argv[3]
j = json.load(open(path))
p = j
for k in where.split("."):
    p = p[k]
problems = []
for key in ("kit_version", "commit", "build_type", "compiler", "cxx_flags", "cpu_model", "started", "finished"):
    if not isinstance(p.get(key), str) or not p[key]:
        problems.append(f"{key} missing or empty")
if not isinstance(p.get("dirty"), bool):
    problems.append("dirty is not a boolean")
if p.get("commit") != commit:
    problems.append(f"commit {p.get('commit')} differs from --version's {commit}")
for lib in ("Eigen", "Boost", "MPFR", "GMP"):
    if not p.get("libraries", {}).get(lib):
        problems.append(f"no {lib} version")
if not p.get("started", "") <= p.get("finished", ""):
    problems.append("started after finished")
print("; ".join(problems) if problems else "ok")
sys.exit(1 if problems else 0)
PY
check "claims.json meta.provenance: build, machine, libraries, times" python3 "$W/check.py" "$W/claims.json" meta.provenance "$COMMIT"

# A run on a gzip CSV: run.json names the file with the SHA-256 that sha256sum computes.
python3 - "$W/data.csv.gz" <<'PY'
import gzip, sys
rows = "a,b,y\n" + "".join(f"{i},{(i * 7) % 11},{2 * i - (i * 7) % 11 + 3}\n" for i in range(120))
open(sys.argv[1], "wb").write(gzip.compress(rows.encode(), mtime=0))
PY
"$NGVI" run fig1 --out "$W/r" --data "$W/data.csv.gz" --target y --iters 30 --seeds 1 --quiet
check "fig1 on a gzip CSV exits 0" test $? -eq 0
RUNJSON="$W/r/runs/fig1-data.csv.gz/run.json"
check "run.json provenance: build, machine, libraries, times" python3 "$W/check.py" "$RUNJSON" provenance "$COMMIT"
SUM=$(sha256sum "$W/data.csv.gz" | cut -d' ' -f1)
check "run.json lists the data file with its sha256sum" python3 -c "
import json, sys
p = json.load(open('$RUNJSON'))
files = p['provenance']['data_files']
sys.exit(0 if any(f['path'] == '$W/data.csv.gz' and f['sha256'] == '$SUM' and f['bytes'] > 0 for f in files) and p['dataset']['sha256'] == '$SUM' else 1)"

# A claim that reads a data file (the breast-cancer search of sec5.logistic.nonconvex, --full), run
# with claims that read none on a pool of two workers: the file is attributed to its reader only,
# and the output is that of the one-worker run (--threads 1) but for the seconds and the times.
BC=/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv
if [ -f "$BC" ]; then
  "$NGVI" verify --claims 'sec5.logistic.nonconvex,lemma4.*,lemma1.*' --precision double --full --threads 2 --json "$W/bc.json" >/dev/null 2>&1
  "$NGVI" verify --claims 'sec5.logistic.nonconvex,lemma4.*,lemma1.*' --precision double --full --threads 1 --json "$W/bc1.json" >/dev/null 2>&1
  BCSUM=$(sha256sum "$BC" | cut -d' ' -f1)
  check "claims.json lists breast_cancer.csv with its sha256sum and only the claim that read it" python3 -c "
import json, sys
files = json.load(open('$W/bc.json'))['meta']['provenance']['data_files']
sys.exit(0 if any(f['path'] == '$BC' and f['sha256'] == '$BCSUM' and f['read_by'] == ['sec5.logistic.nonconvex'] for f in files) else 1)"
  check "two claim workers give the records and data files of one" python3 -c "
import json, sys
def strip(path):
    j = json.load(open(path))
    m = j['meta']
    for k in ('started', 'command', 'threads'):
        m.pop(k, None)
    for k in ('started', 'finished'):
        m['provenance'].pop(k, None)
    for r in j['records']:
        r.pop('seconds', None)
    return j
a, b = strip('$W/bc.json'), strip('$W/bc1.json')
sys.exit(0 if a == b and len(a['records']) > 0 else 1)"
else
  echo "skip [claim data file]: $BC is not installed (python3-sklearn)"
fi
finish
