"""The kit's mutations of a user's implementation (protocols conjugate-ngd, lsk-update, svi-lda and
svi-gmm), and its kill matrix.

An implementation owns its schedule, its estimate and its average, so the kit cannot swap those
parts inside it; it can change what crosses the protocol, so that the implementation computes as if
it had a plausible bug in a part the protocol exposes:

``schedule-off-by-one``
    the step index handed is t + 1: a schedule indexed from t = 1 (γ_t = 2/(t + 3) for Theorem 1's).
``batch-scale-m-plus-one``
    the noise variance handed is σ²·(M + 1)/M: the data term of the estimate scaled by n/(M + 1)
    instead of n/M (for an implementation that divides by σ², as eq. (15) does).
``average-uniform``
    the implementation's average replaced by the uniform average of its iterates' expectation
    parameters (Theorem 1 weighs μ_t by t).
``average-last``
    the implementation's average replaced by its last iterate.

and for an lsk-update implementation:

``posdef-term-off``
    ensure_posdef handed as False where the claim asks for True: the implementation computes the update
    without its (η²/2)ĜS⁻¹Ĝ term (the bug lsk.posdef_always exists for);
``step-size-1.01``
    the step size handed is 1.01·η: an implementation whose η is 1 % off the one it was given.

and for an svi-lda or svi-gmm implementation, whose update is λ_{t+1} = (1 − ρ_t)λ_t + ρ_t(λ_p + r·s_t)
with r = N/|S_t| (D/|S_t| for LDA), λ_p the prior (η for LDA) and ρ_t its declared schedule
ρ₀(τ + t + origin)^(−κ) (the replication mutations read r·s_t back from what the implementation
returned, with that ρ_t, and rescale it):

``replication-dropped``
    r = 1: the minibatch's statistics not scaled up to the data set (the bug is invisible at
    |S| = N, where r = 1);
``replication-s-plus-one``
    r = N/(|S| + 1): the scale off by one point;
``tau-plus-one``
    τ (τ₀) handed one larger: a schedule whose count starts one update late;
``rho0-ignored`` (svi-gmm; svi-lda v1 hands no ρ₀)
    ρ₀ handed as 1 whatever the claim asks: an implementation whose step ignores its ρ₀.

:func:`kill_matrix` runs the claims against the implementation and against each mutation and says
which records each mutation flips: a mutation no record sees is a gap in what the claims can tell
about this implementation.
"""

from __future__ import annotations

import types
from typing import Any, Optional

import numpy as np

__all__ = ["MUTATIONS", "PROTOCOL_OF", "mutations_for", "mutate", "kill_matrix"]


def _expectation(eta):
    S = np.linalg.inv(-2.0 * np.asarray(eta[1], dtype=float))
    S = (S + S.T) / 2
    m = S @ np.asarray(eta[0], dtype=float)
    return m, S + np.outer(m, m)


class _MutatedBase:
    """An implementation under a mutation: its name carries the mutation's, its version is its own."""

    def __init__(self, inner, mutation: str):
        self.inner, self.mutation = inner, mutation
        self.name = f"{getattr(inner, 'name', type(inner).__name__)} [{mutation}]"
        self.version = str(getattr(inner, "version", ""))


class _Mutated(_MutatedBase):
    protocol = "conjugate-ngd"

    def start(self, problem):
        p = problem
        if self.mutation == "batch-scale-m-plus-one":
            p = types.SimpleNamespace(**vars(problem))
            p.noise_var = problem.noise_var * (problem.batch + 1) / problem.batch
        traj = self.inner.start(p)
        return _MutatedTrajectory(traj, self.mutation)


class _MutatedTrajectory:
    def __init__(self, traj, mutation):
        self.traj, self.mutation = traj, mutation
        self.total, self.weight, self.last = None, 0.0, None
        if mutation in ("average-uniform", "average-last"):
            self.average = self._average
        elif hasattr(traj, "average"):
            self.average = traj.average

    def step(self, t, eta, batch):
        nxt = self.traj.step(t + 1 if self.mutation == "schedule-off-by-one" else t, eta, batch)
        if self.mutation in ("average-uniform", "average-last"):
            mu = _expectation(nxt)
            self.last = mu
            flat = np.concatenate([mu[0], mu[1].ravel()])
            self.total = flat if self.total is None else self.total + flat
            self.weight += 1.0
        return nxt

    def _average(self):
        if self.mutation == "average-last":
            return self.last
        d = len(self.last[0])
        avg = self.total / self.weight
        return avg[:d], avg[d:].reshape(d, d)


class _MutatedLsk(_MutatedBase):
    protocol = "lsk-update"

    def start(self, problem):
        p = types.SimpleNamespace(**vars(problem))
        if self.mutation == "posdef-term-off":
            p.ensure_posdef = False
        elif self.mutation == "step-size-1.01":
            p.eta = problem.eta * 1.01
        return self.inner.start(p)


class _MutatedSvi(_MutatedBase):
    """An svi-lda or svi-gmm implementation under a mutation (see the module's documentation)."""

    def __init__(self, inner, mutation: str, protocol: str):
        super().__init__(inner, mutation)
        self.protocol = protocol
        self.origin = int(getattr(inner, "origin", 1))

    def start(self, problem):
        p = types.SimpleNamespace(**vars(problem))
        if self.mutation == "rho0-ignored":
            p.rho0 = 1.0
        elif self.mutation == "tau-plus-one":
            if self.protocol == "svi-lda":
                p.tau0 = problem.tau0 + 1.0
            else:
                p.tau = problem.tau + 1.0
        traj = self.inner.start(p)
        if self.mutation in ("rho0-ignored", "tau-plus-one"):
            return traj
        return _RescaledTrajectory(traj, problem, self.origin, self.mutation, self.protocol)


class _RescaledTrajectory:
    """The implementation's λ_{t+1} with its statistics' replication r rescaled (see the module's
    documentation)."""

    def __init__(self, traj, problem, origin: int, mutation: str, protocol: str):
        self.traj, self.p, self.origin, self.mutation, self.lda = traj, problem, origin, mutation, protocol == "svi-lda"
        if self.lda:
            self.prior, self.n, self.rho0, self.tau = problem.eta, problem.D, 1.0, problem.tau0
        else:
            d = problem.X.shape[1]
            prior = np.empty((problem.K, d + 2))
            prior[:, 0] = problem.alpha0
            prior[:, 1 : d + 1] = np.asarray(problem.m0, dtype=float) / problem.s0_2
            prior[:, d + 1] = -1.0 / (2.0 * problem.s0_2)
            self.prior, self.n, self.rho0, self.tau = prior, problem.X.shape[0], problem.rho0, problem.tau

    def update(self, t, lam, batch):
        out = self.traj.update(t, lam, batch)
        gamma = None
        if self.lda and isinstance(out, tuple):
            out, gamma = out
        nxt = np.asarray(out, dtype=float)
        lam = np.asarray(lam, dtype=float)
        rho = self.rho0 * (self.tau + t + self.origin) ** (-self.p.kappa)
        scaled = nxt - (1.0 - rho) * lam - rho * self.prior  # ρ_t·r·s_t
        size = len(batch)
        factor = size / self.n if self.mutation == "replication-dropped" else size / (size + 1.0)
        mutated = (1.0 - rho) * lam + rho * self.prior + factor * scaled
        return (mutated, gamma) if self.lda else mutated


#: The mutations, with the part each changes.
MUTATIONS = {
    "schedule-off-by-one": "schedule",
    "batch-scale-m-plus-one": "estimate",
    "average-uniform": "averaging",
    "average-last": "averaging",
    "posdef-term-off": "positive-definiteness term",
    "step-size-1.01": "step size",
    "replication-dropped": "estimate scaling",
    "replication-s-plus-one": "estimate scaling",
    "tau-plus-one": "schedule",
    "rho0-ignored": "schedule",
}

#: The protocols each mutation applies to.
PROTOCOL_OF = {
    "schedule-off-by-one": ("conjugate-ngd",),
    "batch-scale-m-plus-one": ("conjugate-ngd",),
    "average-uniform": ("conjugate-ngd",),
    "average-last": ("conjugate-ngd",),
    "posdef-term-off": ("lsk-update",),
    "step-size-1.01": ("lsk-update",),
    "replication-dropped": ("svi-lda", "svi-gmm"),
    "replication-s-plus-one": ("svi-lda", "svi-gmm"),
    "tau-plus-one": ("svi-lda", "svi-gmm"),
    "rho0-ignored": ("svi-gmm",),
}


def _protocol(implementation: Any) -> str:
    return str(getattr(implementation, "protocol", "conjugate-ngd"))


def mutations_for(implementation: Any) -> list:
    """The names of the mutations that apply to the implementation's protocol."""
    return [n for n in MUTATIONS if _protocol(implementation) in PROTOCOL_OF[n]]


def mutate(implementation: Any, mutation: str):
    """The implementation under one of :data:`MUTATIONS` (one of its protocol's)."""
    if mutation not in MUTATIONS:
        raise ValueError(f"mutation: '{mutation}' is not one of {sorted(MUTATIONS)}")
    protocol = _protocol(implementation)
    if protocol not in PROTOCOL_OF[mutation]:
        raise ValueError(f"mutation: '{mutation}' is a mutation of the {' and '.join(PROTOCOL_OF[mutation])} protocol; the "
                         f"implementation's is {protocol} (its mutations: {mutations_for(implementation)})")
    if protocol == "lsk-update":
        return _MutatedLsk(implementation, mutation)
    if protocol in ("svi-lda", "svi-gmm"):
        return _MutatedSvi(implementation, mutation, protocol)
    return _Mutated(implementation, mutation)


def kill_matrix(claims: str, implementation: Any, mutations: Optional[list] = None, **verify_args) -> dict:
    """Runs ``claims`` against the implementation and against each mutation of it.

    Returns ``{"implementation": Result, "mutations": {name: {"part", "result", "flipped",
    "killed"}}}`` where ``flipped`` lists the records (claim, instance, precision, kind) whose outcome
    is ``pass`` for the implementation and ``fail`` under the mutation. A mutation is killed when some
    record flips. The implementation itself must pass for the matrix to say anything: a failing
    record of the implementation is reported, not counted as a kill.
    """
    from . import verify

    names = mutations_for(implementation) if mutations is None else list(mutations)
    base = verify(claims, implementation, **verify_args)

    def keys(result):
        # A record's instance may carry " [<implementation name>]"; the mutated one's name differs.
        tag = f" [{result.implementation['name']}]" if result.implementation else ""
        return lambda r: (r["claim"], r["instance"].replace(tag, ""), r["precision"], r["kind"])

    key = keys(base)
    passing = {key(r) for r in base.records if r["outcome"] == "pass"}
    out = {"implementation": base, "mutations": {}}
    for name in names:
        res = verify(claims, mutate(implementation, name), **verify_args)
        mkey = keys(res)
        flipped = [mkey(r) for r in res.records if r["outcome"] == "fail" and mkey(r) in passing]
        out["mutations"][name] = {"part": MUTATIONS[name], "result": res, "flipped": flipped, "killed": bool(flipped)}
    return out
