#!/usr/bin/env python3
"""Times the same stochastic NGD step in numpy and in PyTorch (CPU, float64) and, given the JSON
output of ngvi_bench, prints the kit's time over each framework's.

The step is the one of BM_NgdStep (bench/ngd_bench.cpp): gather a mini-batch of M rows, form the
log-likelihood gradient (n/(M s2)) X_b^T y_b and -(n/(2 M s2)) X_b^T X_b, update the natural
parameters eta <- (1 - gamma) eta + gamma (eta_p + g), convert to (m, S) and mu = (m, S + m m^T)
(here through one Cholesky factorisation and the frameworks' inverse; the kit inverts by an
LDL^T-based route and forms S + m m^T inside the average's pass), and add mu to the t-weighted
running average.

Usage:
  ngvi_bench --benchmark_filter='BM_(NgdStep|GramFloor)' --benchmark_format=json > ngvi.json
  python3 bench/compare_frameworks.py --ngvi-json ngvi.json
Frameworks that are not installed are skipped with a message (Debian: python3-numpy, python3-torch;
run it with Debian's /usr/bin/python3, which is the interpreter those packages install into).
Debian's numpy and PyTorch call the system BLAS (libblas.so.3): install libopenblas0-pthread for
OpenBLAS, otherwise the reference BLAS runs. The script prints the library, and, through
threadpoolctl when it is present, OpenBLAS's kernel and thread count and PyTorch's thread count:
OpenBLAS 0.3.21 does not recognise every current CPU and then runs its generic "Prescott" kernels
(set OPENBLAS_CORETYPE, e.g. SkylakeX on AVX-512 machines), and OpenBLAS's threads plus PyTorch's
intra-op threads can oversubscribe the cores (compare OPENBLAS_NUM_THREADS and --torch-threads).
Quote the fastest configuration of each framework.
"""
import argparse
import json
import re
import statistics
import sys
import time

SIZES = [(10, 32), (100, 256), (500, 256)]
N_ROWS = 4096


def time_step(step, state, reps, inner):
    """Median over `reps` repetitions of the mean time of `inner` steps, in microseconds."""
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            step(state)
        samples.append((time.perf_counter() - t0) / inner * 1e6)
    return statistics.median(samples)


def inner_count(d):
    return 2000 if d <= 10 else (200 if d <= 100 else 20)


def numpy_bench(d, m, reps):
    import numpy as np
    from numpy.linalg import cholesky
    rng = np.random.default_rng(1)
    x = rng.standard_normal((N_ROWS, d))
    y = rng.standard_normal(N_ROWS)
    scale = N_ROWS / m
    st = {"eta1": np.zeros(d), "eta2": -0.5 * np.eye(d), "avg1": np.zeros(d), "avg2": np.eye(d), "t": 0,
          "ep1": np.zeros(d), "ep2": -0.5 * np.eye(d)}

    def step(s):
        idx = rng.integers(0, N_ROWS, m)
        xb = x[idx]
        yb = y[idx]
        gamma = 2.0 / (s["t"] + 2)
        s["eta1"] = (1 - gamma) * s["eta1"] + gamma * (s["ep1"] + scale * (xb.T @ yb))
        s["eta2"] = (1 - gamma) * s["eta2"] + gamma * (s["ep2"] - 0.5 * scale * (xb.T @ xb))
        l = cholesky(-2.0 * s["eta2"])
        linv = np.linalg.inv(l)  # triangular inverse; numpy has no dedicated routine
        cov = linv.T @ linv
        mean = cov @ s["eta1"]
        s["t"] += 1
        w = 2.0 / (s["t"] + 1)
        s["avg1"] += w * (mean - s["avg1"])
        s["avg2"] += w * (cov + np.outer(mean, mean) - s["avg2"])

    return time_step(step, st, reps, inner_count(d))


def torch_bench(d, m, reps, threads=0):
    import torch
    if threads > 0:
        torch.set_num_threads(threads)
    if d == SIZES[0][0]:
        print(f"torch {torch.__version__}: {torch.get_num_threads()} intra-op threads")
    g = torch.Generator().manual_seed(1)
    x = torch.randn(N_ROWS, d, generator=g, dtype=torch.float64)
    y = torch.randn(N_ROWS, generator=g, dtype=torch.float64)
    scale = N_ROWS / m
    eye = torch.eye(d, dtype=torch.float64)
    st = {"eta1": torch.zeros(d, dtype=torch.float64), "eta2": -0.5 * eye.clone(), "avg1": torch.zeros(d, dtype=torch.float64),
          "avg2": eye.clone(), "t": 0, "ep1": torch.zeros(d, dtype=torch.float64), "ep2": -0.5 * eye.clone()}

    def step(s):
        idx = torch.randint(0, N_ROWS, (m,), generator=g)
        xb = x[idx]
        yb = y[idx]
        gamma = 2.0 / (s["t"] + 2)
        s["eta1"] = (1 - gamma) * s["eta1"] + gamma * (s["ep1"] + scale * (xb.T @ yb))
        s["eta2"] = (1 - gamma) * s["eta2"] + gamma * (s["ep2"] - 0.5 * scale * (xb.T @ xb))
        l = torch.linalg.cholesky(-2.0 * s["eta2"])
        cov = torch.cholesky_inverse(l)
        mean = cov @ s["eta1"]
        s["t"] += 1
        w = 2.0 / (s["t"] + 1)
        s["avg1"] += w * (mean - s["avg1"])
        s["avg2"] += w * (cov + torch.outer(mean, mean) - s["avg2"])

    with torch.no_grad():
        return time_step(step, st, reps, inner_count(d))


def ngvi_times(path, name):
    """Median real time (µs) per (d, M) of benchmark `name` in ngvi_bench's JSON output."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        m = re.match(r"^" + re.escape(name) + r"(<double>)?/d:(\d+)/M:(\d+)", b["name"])
        if not m:
            continue
        unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b.get("time_unit", "ns")]
        out[(int(m.group(2)), int(m.group(3)))] = b["real_time"] * unit
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ngvi-json", help="ngvi_bench JSON output (--benchmark_format=json)")
    ap.add_argument("--ngvi-name", default="BM_NgdStep", help="benchmark name of the full kit step (default BM_NgdStep)")
    ap.add_argument("--reps", type=int, default=7, help="repetitions; the median is reported (default 7)")
    ap.add_argument("--torch-threads", type=int, default=0, help="PyTorch intra-op threads (default 0: PyTorch's own default)")
    args = ap.parse_args()

    # Both frameworks use the system BLAS here (Debian's numpy and PyTorch builds); say which one,
    # since the reference BLAS and OpenBLAS differ by an order of magnitude at d = 100.
    import os
    blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    print(f"system BLAS (libblas.so.3): {blas if os.path.exists(blas) else 'not found'}")
    try:
        import threadpoolctl
        try:
            import numpy  # noqa: F401  (loads the system BLAS, so that threadpoolctl can see it)
        except ImportError:
            pass
        for info in threadpoolctl.threadpool_info():
            if info.get("internal_api") == "openblas":
                print(f"OpenBLAS {info.get('version')}: kernel {info.get('architecture')}, {info.get('num_threads')} threads")
    except ImportError:
        print("threadpoolctl not installed: OpenBLAS kernel and threads not shown (Debian package python3-threadpoolctl)")
    results = {}
    for fw, fn in (("numpy", numpy_bench), ("torch", lambda d, m, r: torch_bench(d, m, r, args.torch_threads))):
        try:
            __import__(fw)
        except ImportError:
            print(f"{fw}: not installed, skipped (Debian package python3-{fw})")
            continue
        results[fw] = {size: fn(*size, args.reps) for size in SIZES}
    kit = {}
    if args.ngvi_json:
        try:
            kit = ngvi_times(args.ngvi_json, args.ngvi_name)
        except (OSError, ValueError, KeyError) as e:
            print(f"compare_frameworks: cannot read {args.ngvi_json}: {e}", file=sys.stderr)
            return 2
    print(f"{'d':>4} {'M':>4} {'kit us':>10} " + " ".join(f"{fw + ' us':>10} {'kit/' + fw:>10}" for fw in results))
    for size in SIZES:
        row = f"{size[0]:>4} {size[1]:>4} {kit.get(size, float('nan')):>10.3f} "
        for fw in results:
            t = results[fw][size]
            row += f"{t:>10.3f} {kit.get(size, float('nan')) / t:>10.4f} "
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
