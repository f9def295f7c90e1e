#!/usr/bin/env python3
"""Reference client of the conjugate-ngd line protocol, version 1 (docs/protocol.md).

Python 3 and numpy only. `NumpyNgd` is Theorem 1's natural-gradient descent on Bayesian linear
regression (eq. (15) mini-batch estimate, gamma_t = 2/(t + 2), Theorem 1's average); it can be
imported and used as a module. `main()` serves the line protocol on stdin/stdout:

    ngvi verify --algorithm 'exec:python3 clients/python/conjugate_ngd_client.py' --claims 'thm1.*,x.*'

Flags inject the bugs a user makes, so that the claims can be seen to catch them:
    --schedule-offset K       gamma_t = 2/(t + 2 + K) (K = 1: a schedule indexed from t = 1)
    --average natural         average eta with Theorem 1's weights, then map the average to (m, S + mm^T)
    --average none            keep no average (hello says "average": false; the claims average)
    --batch-scale-plus-one    scale the batch sum by n/(M + 1) instead of n/M
and, for the tests of ngvi itself, misbehaviour after the N-th step call of the process:
    --die-after-steps N       exit at once with status 9
    --hang-after-steps N      sleep for ever without answering
    --garbage-after-steps N   answer a line that is not JSON
    --tag WORD                ignored (a unique word to find the process by)
"""

import argparse
import json
import os
import sys
import time

import numpy as np

PROTOCOL = "conjugate-ngd"
PROTOCOL_VERSION = 1


def natural_to_expectation(eta1, eta2):
    """(eta1, eta2) = (S^-1 m, -S^-1/2) -> (m, S + m m^T)."""
    cov = np.linalg.inv(-2.0 * eta2)
    cov = 0.5 * (cov + cov.T)
    mean = cov @ eta1
    return mean, cov + np.outer(mean, mean)


class Trajectory:
    """One run of NumpyNgd on one problem: step(t, eta, batch) -> eta_{t+1}; average() -> (mean, second_moment)."""

    def __init__(self, impl, problem):
        self.impl = impl
        self.X = np.asarray(problem["X"], dtype=float)
        self.y = np.asarray(problem["y"], dtype=float)
        self.noise_var = float(problem["noise_var"])
        prior = problem["prior_natural"]
        self.prior1 = np.asarray(prior["eta1"], dtype=float)
        self.prior2 = np.asarray(prior["eta2"], dtype=float)
        self.n = self.X.shape[0]
        self.steps = 0         # iterates averaged so far
        self.avg_first = None  # the running average (expectation or natural parameters, by impl.average)
        self.avg_second = None

    def step(self, t, eta, batch):
        """eta_{t+1} = (1 - gamma_t) eta_t + gamma_t (prior_natural + (n/M) sum_i (x_i y_i / s2, -x_i x_i^T / (2 s2)))."""
        eta1, eta2 = eta
        gamma = 2.0 / (t + 2 + self.impl.schedule_offset)
        idx = np.asarray(batch, dtype=int)
        m = len(idx) + (1 if self.impl.batch_scale_plus_one else 0)
        scale = self.n / m / self.noise_var
        xb = self.X[idx]
        target1 = self.prior1 + scale * (xb.T @ self.y[idx])
        target2 = self.prior2 - (scale / 2.0) * (xb.T @ xb)
        new1 = (1.0 - gamma) * eta1 + gamma * target1
        new2 = (1.0 - gamma) * eta2 + gamma * target2
        if self.impl.average != "none":
            # Theorem 1's weights: iterate s = t + 1 weighs s, so the running mean moves by 2/(s + 1).
            self.steps = t + 1
            if self.impl.average == "natural":
                first, second = new1, new2
            else:
                first, second = natural_to_expectation(new1, new2)
            if self.avg_first is None:
                self.avg_first, self.avg_second = first.copy(), second.copy()
            else:
                w = 2.0 / (self.steps + 1)
                self.avg_first = self.avg_first + w * (first - self.avg_first)
                self.avg_second = self.avg_second + w * (second - self.avg_second)
        return new1, new2

    def average(self):
        """Theorem 1's mu-bar_t = sum_s s mu_s / sum_s s as (mean, second_moment); None when no step was taken."""
        if self.avg_first is None:
            return None
        if self.impl.average == "natural":
            return natural_to_expectation(self.avg_first, self.avg_second)
        return self.avg_first, self.avg_second


class NumpyNgd:
    """Theorem 1's NGD on Bayesian linear regression, with optional injected bugs (see the module's doc)."""

    name = "numpy-ngd"
    version = "1.0"

    def __init__(self, schedule_offset=0, average="mu", batch_scale_plus_one=False):
        if average not in ("mu", "natural", "none"):
            raise ValueError("average must be mu, natural or none (got %r)" % (average,))
        self.schedule_offset = schedule_offset
        self.average = average
        self.batch_scale_plus_one = batch_scale_plus_one

    @property
    def has_average(self):
        return self.average != "none"

    def start(self, problem):
        return Trajectory(self, problem)


def _natural_from(obj):
    return np.asarray(obj["eta1"], dtype=float), np.asarray(obj["eta2"], dtype=float)


class Server:
    """Answers the requests of docs/protocol.md one line at a time; trajectories are keyed by run id."""

    def __init__(self, impl, die_after=0, hang_after=0, garbage_after=0):
        self.impl = impl
        self.runs = {}
        self.step_calls = 0
        self.die_after, self.hang_after, self.garbage_after = die_after, hang_after, garbage_after

    def answer(self, req):
        call = req.get("call")
        if call == "hello":
            if req.get("protocol") != PROTOCOL or req.get("version") != PROTOCOL_VERSION:
                return {"error": "this client speaks %s version %d" % (PROTOCOL, PROTOCOL_VERSION)}
            return {"protocol": PROTOCOL, "version": PROTOCOL_VERSION, "name": self.impl.name,
                    "implementation_version": self.impl.version, "average": self.impl.has_average}
        run = req.get("run")
        if call == "start":
            self.runs[run] = self.impl.start(req["problem"])
            return {"ok": True}
        if call == "end":
            self.runs.pop(run, None)
            return {"ok": True}
        if run not in self.runs:
            return {"error": "no run %r is open" % (run,)}
        traj = self.runs[run]
        if call == "step":
            eta1, eta2 = traj.step(int(req["t"]), _natural_from(req["eta"]), req["batch"])
            return {"eta": {"eta1": eta1.tolist(), "eta2": eta2.tolist()}}
        if call == "average":
            avg = traj.average()
            if avg is None:
                return {"error": "run %r has taken no step: no average yet" % (run,)}
            return {"average": {"mean": avg[0].tolist(), "second_moment": avg[1].tolist()}}
        return {"error": "unknown call %r" % (call,)}

    def misbehave(self):
        """The test flags: returns a line to write instead of the answer, or None."""
        self.step_calls += 1
        if self.die_after and self.step_calls >= self.die_after:
            os._exit(9)
        if self.hang_after and self.step_calls >= self.hang_after:
            while True:
                time.sleep(3600)
        if self.garbage_after and self.step_calls >= self.garbage_after:
            return "garbage: this line is not JSON"
        return None

    def serve(self, stdin, stdout):
        for line in iter(stdin.readline, ""):
            if not line.strip():
                continue
            try:
                req = json.loads(line)
                out = self.misbehave() if req.get("call") == "step" else None
                if out is None:
                    out = json.dumps(self.answer(req))
            except Exception as e:  # any failure of one call is that call's error answer
                out = json.dumps({"error": "%s: %s" % (type(e).__name__, e)})
            stdout.write(out + "\n")
            stdout.flush()


def main(argv=None):
    p = argparse.ArgumentParser(description="conjugate-ngd line protocol v1 client (docs/protocol.md)")
    p.add_argument("--schedule-offset", type=int, default=0)
    p.add_argument("--average", choices=("mu", "natural", "none"), default="mu")
    p.add_argument("--batch-scale-plus-one", action="store_true")
    p.add_argument("--die-after-steps", type=int, default=0)
    p.add_argument("--hang-after-steps", type=int, default=0)
    p.add_argument("--garbage-after-steps", type=int, default=0)
    p.add_argument("--tag", default="")
    a = p.parse_args(argv)
    impl = NumpyNgd(a.schedule_offset, a.average, a.batch_scale_plus_one)
    Server(impl, a.die_after_steps, a.hang_after_steps, a.garbage_after_steps).serve(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
