#!/usr/bin/env python3
"""Per-call cost of putting an implementation to the claims from outside, against the kit's own step.

Runs the conjugate-NGD claims (default: thm1.rate and x.unbiased_iterate, quick) four ways and
prints the wall time, the number of protocol calls and the cost per call:

  library      the kit's own algorithm (its steps are the calls counted for the other routes)
  python-id    a Python implementation whose step returns eta unchanged: the cost of the boundary
               (the interpreter lock, the arrays handed and returned, the checks) and of a Python
               call, with no arithmetic of its own
  python-numpy the README's numpy NGD (the cost a numpy user pays, arithmetic included)
  exec-numpy   the same numpy NGD as a child process speaking the line protocol (ngvi verify
               --algorithm 'exec:...'), when the ngvi command and the reference client are given

Usage (with the package installed in a venv, docs/python.md):
  VENV/bin/python bench/protocol_overhead.py [--claims SEL] [--ngvi build/release/experiments/ngvi]
      [--client clients/python/conjugate_ngd_client.py]
The ratios go to bench/README.md ("The algorithm under test from outside"); they are measured, not
asserted.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import ngvikit

ROOT = pathlib.Path(__file__).resolve().parents[1]


def readme_ngd():
    text = (ROOT / "README.md").read_text()
    code = re.search(r"# --- python example begin ---\n(.*?)# --- python example end ---", text, re.S).group(1)
    ns = {}
    exec(code.split("result = ngvikit.verify")[0], ns)
    return ns["NumpyNgd"]


class Counting:
    """Counts the step calls of an implementation."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0
        self.name, self.version = getattr(inner, "name", "x"), getattr(inner, "version", "")

    def start(self, p):
        traj = self.inner.start(p)
        outer = self

        class T:
            def step(self, t, eta, batch):
                outer.calls += 1
                return traj.step(t, eta, batch)

        if hasattr(traj, "average"):
            T.average = lambda self: traj.average()
        return T()


class Identity:
    name, version = "identity", "0"

    def start(self, p):
        return self

    def step(self, t, eta, batch):
        return eta


def timed(fn):
    t0 = time.perf_counter()
    r = fn()
    return time.perf_counter() - t0, r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--claims", default="thm1.rate,x.unbiased_iterate")
    ap.add_argument("--ngvi", default=str(ROOT / "build/release/experiments/ngvi"))
    ap.add_argument("--client", default=str(ROOT / "clients/python/conjugate_ngd_client.py"))
    ap.add_argument("--threads", type=int, default=1, help="threads of the library's run (default 1: one core each way)")
    a = ap.parse_args()

    rows = []
    lib_s, _ = timed(lambda: ngvikit.verify(a.claims, threads=a.threads))
    ident = Counting(Identity())
    id_s, _ = timed(lambda: ngvikit.verify(a.claims, ident))
    calls = ident.calls
    numpy_impl = Counting(readme_ngd()())
    np_s, res = timed(lambda: ngvikit.verify(a.claims, numpy_impl))
    rows.append(("library", lib_s, calls))
    rows.append(("python-id", id_s, ident.calls))
    rows.append(("python-numpy", np_s, numpy_impl.calls))
    if os.path.exists(a.ngvi) and os.path.exists(a.client):
        with tempfile.TemporaryDirectory() as d:
            cmd = [a.ngvi, "verify", "--algorithm", f"exec:{sys.executable} {a.client}", "--claims", a.claims,
                   "--threads", "1", "--json", os.path.join(d, "c.json")]
            ex_s, r = timed(lambda: subprocess.run(cmd, capture_output=True, text=True))
            if r.returncode in (0, 1):
                rows.append(("exec-numpy", ex_s, numpy_impl.calls))
            else:
                print(f"exec route skipped: ngvi exited {r.returncode}: {r.stderr.strip()[:200]}")
    else:
        print("exec route skipped: no ngvi command or reference client at the given paths")

    per_lib = lib_s / calls
    print(f"claims {a.claims} (quick), {calls} step calls; library's time per step {per_lib * 1e6:.2f} us")
    print(f"{'route':<14}{'wall s':>9}{'calls':>10}{'us/call':>10}{'vs library step':>17}")
    for name, s, n in rows:
        print(f"{name:<14}{s:>9.2f}{n:>10}{s / n * 1e6:>10.2f}{(s / n) / per_lib:>16.1f}x")
    if len(rows) > 3:
        print(f"process protocol overhead per call (exec-numpy - python-numpy): "
              f"{(rows[3][1] - rows[2][1]) / calls * 1e6:.2f} us")
    print(f"boundary overhead per call (python-id - library): {(id_s - lib_s) / calls * 1e6:.2f} us")


if __name__ == "__main__":
    main()
