#!/usr/bin/env python3
"""Measures, over suite seeds, how often the claim records of the given claims fail, for the claims
whose records are deterministic given the seed (no draw inside a run can change them, but the seed
chooses the data and every sample, so the suite's false-alarm accounting needs their rate over seeds:
docs/systems.md B.9, "Levels").

For each claim record (claim, instance, precision) it prints: the seeds run, the failures, the
smallest and mean relative margin margin/|rhs|, and two levels:
  normal  Phi(-mean/sd) of the relative margin over the seeds (a normal fit of the margin: the
          stated level when the margin varies; 0 spread gives 0, the record identical on every seed);
  cp95    the one-sided 95% Clopper-Pearson upper bound on the failure rate from the count alone.
The claims' `level` constants quote this script's output (the seeds and both figures).

Usage: scripts/measure-seed-levels.py --ngvi build/release/experiments/ngvi \
           --claims paquet.alg2_option_a,vpng.logistic_auc --seeds 1:300 [--jobs 2] [--full]
Standard library only.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def cp_upper(failures, n, alpha=0.05):
    """One-sided Clopper-Pearson upper bound on a binomial rate (bisection on the binomial CDF)."""
    if failures >= n:
        return 1.0

    def cdf(p):  # P(X <= failures) for X ~ Bin(n, p)
        return sum(math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(failures + 1))

    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        (lo, hi) = (mid, hi) if cdf(mid) > alpha else (lo, mid)
    return hi


def normal_tail(z):
    return 0.5 * math.erfc(z / math.sqrt(2))


def run_seed(ngvi, claims, seed, full, tmp):
    out = os.path.join(tmp, f"s{seed}.json")
    cmd = [ngvi, "verify", "--claims", claims, "--seed", str(seed), "--json", out, "--threads", "1"]
    if full:
        cmd.append("--full")
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(out):
        raise SystemExit(f"measure-seed-levels: seed {seed}: ngvi wrote no {out}: {proc.stderr.strip()[:300]}")
    with open(out) as f:
        return json.load(f)["records"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ngvi", required=True, help="the ngvi command")
    ap.add_argument("--claims", required=True, help="comma-separated claim ids, as ngvi verify --claims")
    ap.add_argument("--seeds", default="1:300", help="A:B, the suite seeds A..B inclusive (default 1:300)")
    ap.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    ap.add_argument("--full", action="store_true", help="the --full instances")
    a = ap.parse_args()
    try:
        first, last = (int(x) for x in a.seeds.split(":"))
    except ValueError:
        raise SystemExit(f"measure-seed-levels: --seeds '{a.seeds}' is not A:B with integers A <= B")
    if first > last or first < 0:
        raise SystemExit(f"measure-seed-levels: --seeds '{a.seeds}' must have 0 <= A <= B")
    if a.jobs < 1:
        raise SystemExit("measure-seed-levels: --jobs must be >= 1")
    seeds = range(first, last + 1)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(a.jobs) as pool:
        for recs in pool.map(lambda s: run_seed(a.ngvi, a.claims, s, a.full, tmp), seeds):
            for r in recs:
                if r["kind"] != "claim" or r["verdict"] == "skipped":
                    continue
                key = (r["claim"], r["instance"], r["precision"])
                rhs, margin = r["rhs"], r["margin"]
                rel = margin / abs(rhs) if isinstance(rhs, (int, float)) and rhs not in (0,) and isinstance(margin, (int, float)) else float("nan")
                rows.setdefault(key, []).append((r["verdict"] in ("holds", "vacuous"), rel))
    print(f"seeds {first}..{last} ({len(seeds)}), {'full' if a.full else 'quick'}")
    print(f"{'claim':<26} {'instance':<44} {'prec':<6} {'n':>4} {'fail':>4} {'min rel':>9} {'mean rel':>9} {'normal':>9} {'cp95':>9}")
    for (claim, inst, prec), v in sorted(rows.items()):
        n = len(v)
        fails = sum(1 for ok, _ in v if not ok)
        rels = [x for _, x in v if math.isfinite(x)]
        mean = sum(rels) / len(rels) if rels else float("nan")
        sd = math.sqrt(sum((x - mean) ** 2 for x in rels) / (len(rels) - 1)) if len(rels) > 1 else float("nan")
        normal = 0.0 if sd == 0 else normal_tail(mean / sd) if math.isfinite(sd) else float("nan")
        print(f"{claim:<26} {inst:<44} {prec:<6} {n:>4} {fails:>4} {min(rels) if rels else float('nan'):>9.3g} "
              f"{mean:>9.3g} {normal:>9.2g} {cp_upper(fails, n):>9.2g}")


if __name__ == "__main__":
    sys.exit(main())
