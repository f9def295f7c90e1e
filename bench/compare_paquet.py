#!/usr/bin/env python3
"""One sweep of Paquet's Algorithm 1 (docs/systems.md B.2, B.4: eq. 7, options (a) and (b)) in numpy
next to the kit's, on InstEval at K = 5: rating accesses per second of each and their ratio.

Correctness first: for every configuration the kit writes one sweep out (ngvi_paquet_sweep_dump: the
ratings, the initial point, the sample it drew, the parameters after the sweep) and both numpy sweeps
below repeat it from the same inputs; they must give the kit's parameters to 1e-10 relative (entry by
entry, |numpy - kit| <= 1e-10 max(|kit|, 1): the precisions are >= 1 and the precision-means O(1),
and both sides sum the same terms of eq. (7) in double, so they differ by rounding only).

Two numpy sweeps, both exact transcriptions of the algorithm:
  vectorised  the natural numpy form: for each coordinate k, every user node (m, k) at once (option (a)
              is still sequential: the nodes of one side share no child, so the users' k-th
              coordinates are independent given the items; coordinate k sees the new values of
              k' < k), then every item node; np.bincount sums the children per node.
  per-node    a Python loop over the hidden nodes, each node's children summed by numpy (the
              algorithm as printed); timed on a single sweep only (it is slow).
Timing: CPU time of this process (time.process_time, as the kit's figure is Google Benchmark's CPU
time; the BLAS is held to one thread) of the sweep alone (numpy draws its own sample for C = 1 inside the timer, as the kit does);
the median of --reps sweeps from the same initial point. The kit's figure is BM_PaquetSweep's
accesses_per_s (median of --bench-reps repetitions) from ngvi_bench.

Usage: bench/compare_paquet.py [--build build/release] [--data insteval.csv] [--reps 9] [--bench-reps 5]
The data defaults to $NGVI_INSTEVAL or ${NGVI_DATA_CACHE:-$HOME/.cache/ngvikit}/insteval.csv
(scripts/export-insteval.sh writes it).
"""
import argparse
import json
import os

# One core for numpy as for the kit (set before numpy loads its BLAS).
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    sys.exit("compare_paquet.py: needs python3-numpy (scripts/install-deps.sh verify)")

K = 5
SEED = 20240601
RHO = 0.5
REL_TOL = 1e-10


class Net:
    """The ratings in both orientations (rows by user and by item, ratings in file order within a row,
    as the kit's RatingMatrix builds them)."""

    def __init__(self, user, item, value, M, N):
        self.M, self.N = M, N
        self.sides = []
        for row, other, R in ((user, item, M), (item, user, N)):
            order = np.argsort(row, kind="stable")
            deg = np.bincount(row, minlength=R)
            ptr = np.concatenate(([0], np.cumsum(deg)))
            self.sides.append(dict(R=R, deg=deg, ptr=ptr, row=row[order], other=other[order], val=value[order]))


def moments(lam):
    return lam[..., 1] / lam[..., 0], 1.0 / lam[..., 0]


def full_selection(net):
    """C = all: every slot of every row (the same for each k)."""
    return [[(s["row"], np.arange(len(s["row"])), np.ones(s["R"]))] * K for s in net.sides]


def selection_from_picks(net, start, picks):
    """The kit's sample: for side, k the (row of each picked slot, slot, N_i/|C_i| per row)."""
    out = []
    base = 0
    for side in net.sides:
        R = side["R"]
        per_k = []
        for k in range(K):
            j = base + np.arange(R) * K + k
            cnt = start[j + 1] - start[j]
            rows = np.repeat(np.arange(R), cnt)
            first = np.repeat(start[j] - np.concatenate(([0], np.cumsum(cnt)[:-1])), cnt)
            pos = picks[first + np.arange(cnt.sum())]
            slots = side["ptr"][rows] + pos
            per_k.append((rows, slots, side["deg"] / np.maximum(cnt, 1)))
        out.append(per_k)
        base += R * K
    return out


def draw_one_child(net, rng):
    """C = 1 drawn by numpy: one uniform child per node."""
    out = []
    for side in net.sides:
        R = side["R"]
        per_k = []
        for k in range(K):
            pos = (rng.random(R) * side["deg"]).astype(np.int64)
            per_k.append((np.arange(R), side["ptr"][:-1] + pos, side["deg"].astype(float)))
        out.append(per_k)
    return out


def sweep_vectorised(net, lam_u, lam_v, rho, option, sel):
    lam = [lam_u.copy(), lam_v.copy()]
    new = [lam_u.copy(), lam_v.copy()] if option == "b" else lam
    mom = [list(moments(lam[0])), list(moments(lam[1]))]
    for side_i, side in enumerate(net.sides):
        mu_self, _ = mom[side_i]
        mu_o, s_o = mom[1 - side_i]
        for k in range(K):
            rows, slots, scale = sel[side_i][k]
            o = side["other"][slots]
            mo = mu_o[o]
            ms = mu_self[rows]
            co = (ms * mo).sum(axis=1) - ms[:, k] * mo[:, k]
            mv = mo[:, k]
            sp = np.bincount(rows, weights=s_o[o, k] + mv * mv, minlength=side["R"])
            sm = np.bincount(rows, weights=mv * (side["val"][slots] - co), minlength=side["R"])
            t = new[side_i][:, k, :]
            t[:, 0] = (1 - rho) * lam[side_i][:, k, 0] + rho * (1 + scale * sp)
            t[:, 1] = (1 - rho) * lam[side_i][:, k, 1] + rho * (scale * sm)
            if option == "a":
                mom[side_i][0][:, k] = t[:, 1] / t[:, 0]
                mom[side_i][1][:, k] = 1 / t[:, 0]
    return new


def sweep_per_node(net, lam_u, lam_v, rho, option, sel):
    lam = [lam_u.copy(), lam_v.copy()]
    new = [lam_u.copy(), lam_v.copy()] if option == "b" else lam
    mom = [list(moments(lam[0])), list(moments(lam[1]))]
    for side_i, side in enumerate(net.sides):
        mu_self, s_self = mom[side_i]
        mu_o, s_o = mom[1 - side_i]
        for r in range(side["R"]):
            for k in range(K):
                rows, slots, scale = sel[side_i][k]
                a, b = np.searchsorted(rows, r), np.searchsorted(rows, r, side="right")
                sl = slots[a:b]
                o = side["other"][sl]
                mo = mu_o[o]
                co = mo @ mu_self[r] - mu_self[r, k] * mo[:, k]
                mv = mo[:, k]
                t0 = (1 - rho) * lam[side_i][r, k, 0] + rho * (1 + scale[r] * np.sum(s_o[o, k] + mv * mv))
                t1 = (1 - rho) * lam[side_i][r, k, 1] + rho * (scale[r] * np.sum(mv * (side["val"][sl] - co)))
                new[side_i][r, k] = (t0, t1)
                if option == "a":
                    mu_self[r, k], s_self[r, k] = t1 / t0, 1 / t0
    return new


def max_rel(x, ref):
    return float(np.max(np.abs(x - ref) / np.maximum(np.abs(ref), 1.0)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cache = os.environ.get("NGVI_DATA_CACHE") or os.path.expanduser("~/.cache/ngvikit")
    ap.add_argument("--data", default=os.environ.get("NGVI_INSTEVAL") or os.path.join(cache, "insteval.csv"))
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--bench-reps", type=int, default=5)
    a = ap.parse_args()
    dump = os.path.join(a.build, "bench", "ngvi_paquet_sweep_dump")
    bench = os.path.join(a.build, "bench", "ngvi_bench")
    for p in (a.data, dump, bench):
        if not os.path.exists(p):
            sys.exit(f"compare_paquet.py: {p} not found (build with -DNGVI_BUILD_BENCH=ON; data: scripts/export-insteval.sh)")

    env = dict(os.environ, NGVI_INSTEVAL=os.path.abspath(a.data))
    out = subprocess.run([bench, "--benchmark_filter=BM_PaquetSweep", f"--benchmark_repetitions={a.bench_reps}",
                          "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True, env=env).stdout
    kit = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            kit[b["run_name"]] = b["accesses_per_s"]

    rng = np.random.default_rng(SEED)
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for C in (0, 1):
            for option in ("a", "b"):
                subprocess.run([dump, a.data, tmp, str(K), str(C), option, repr(RHO), str(SEED)], check=True)
                rd = lambda name, dt: np.fromfile(os.path.join(tmp, name), dtype=dt)
                M, N, E, _, _, _, _, acc = open(os.path.join(tmp, "meta.txt")).read().split()
                M, N, E, acc = int(M), int(N), int(E), int(acc)
                net = Net(rd("user.i32", "<i4").astype(np.int64), rd("item.i32", "<i4").astype(np.int64), rd("value.f64", "<f8"), M, N)
                u0, v0 = rd("u0.f64", "<f8").reshape(M, K, 2), rd("v0.f64", "<f8").reshape(N, K, 2)
                u1, v1 = rd("u1.f64", "<f8").reshape(M, K, 2), rd("v1.f64", "<f8").reshape(N, K, 2)
                sel = selection_from_picks(net, rd("start.i64", "<i8"), rd("picks.i32", "<i4").astype(np.int64))
                errs = {}
                for name, fn in (("vectorised", sweep_vectorised), ("per-node", sweep_per_node)):
                    nu, nv = fn(net, u0, v0, RHO, option, sel)
                    errs[name] = max(max_rel(nu, u1), max_rel(nv, v1))
                    failed |= not errs[name] <= REL_TOL
                # Timing: the natural selection (C = all) or numpy's own draw (C = 1), inside the timer.
                def one_sweep(fn):
                    t0 = time.process_time()
                    s = full_selection(net) if C == 0 else draw_one_child(net, rng)
                    fn(net, u0, v0, RHO, option, s)
                    return time.process_time() - t0
                t_vec = float(np.median([one_sweep(sweep_vectorised) for _ in range(a.reps)]))
                t_node = one_sweep(sweep_per_node)
                name = f"BM_PaquetSweep/C:{C}/option_b:{0 if option == 'a' else 1}"
                k_rate = kit.get(name, float("nan"))
                rows.append((("all" if C == 0 else "1"), option, acc, k_rate, acc / t_vec, acc / t_node, errs))
    print(f"InstEval ({E} ratings, {M} users, {N} items), K = {K}, rho = {RHO}; accesses per sweep as the kit counts them")
    print(f"{'C':>4} {'opt':>3} {'accesses':>9} {'kit acc/s':>11} {'numpy-vec acc/s':>15} {'ratio':>7} {'numpy-node acc/s':>16} {'ratio':>8}  max rel. diff (vec, node)")
    for C, opt, acc, k, v, n, errs in rows:
        print(f"{C:>4} {opt:>3} {acc:>9} {k:11.4g} {v:15.4g} {k / v:7.1f} {n:16.4g} {k / n:8.0f}  {errs['vectorised']:.2e}, {errs['per-node']:.2e}")
    if failed:
        sys.exit(f"compare_paquet.py: a numpy sweep differs from the kit's by more than {REL_TOL} relative")


if __name__ == "__main__":
    main()
