"""The kit's own PyTorch port of the variational online Newton (VON) step, the Bayesian learning rule
for a full-covariance Gaussian, behind the ``conjugate-ngd`` protocol.

This is **not** a third-party library: no maintained PyTorch package ships this update for a full
Gaussian, so ngvikit writes it the way the field writes it (Khan & Rue's Bayesian learning rule,
variational online Newton): the state is the mean m and the precision P, the log-likelihood of the
minibatch is a torch function of the weights, its gradient and Hessian come from autograd, and the
update is

    P' = (1 − ρ_t) P + ρ_t (P_p − Ĥ),          Ĥ = (n/M) ∇² Σ_{i∈S} log p(y_i | x_i, z) at z = m,
    m' = m + ρ_t P'^{-1} (ĝ − P_p (m − m_p)),   ĝ = (n/M) ∇ Σ_{i∈S} log p(y_i | x_i, z) at z = m,

with ρ_t = 2/(t + 2) (Theorem 1's schedule; ``schedule=`` chooses another). For a Gaussian
likelihood the log-likelihood is quadratic in z, so its gradient and Hessian at the mean are their
expectations under q exactly, and the update is conjugate NGD with γ_t = ρ_t in natural parameters
(docs/math.md; docs/systems.md, "External implementations"). The claims therefore reach the parts
the port owns: the schedule, the minibatch scale n/M, the prior's terms, the solve, and the maps
between (m, P) and the protocol's natural parameters (η₁ = P m, η₂ = −P/2). The port keeps no
average (the field's VON does not): the claims average its iterates with Theorem 1's weights.

Everything is computed in torch float64 on the CPU; the protocol's numpy arrays cross with
``torch.from_numpy`` and ``Tensor.numpy()`` (no copy).
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np


class TorchVon:
    """The kit's PyTorch port of VON / the Bayesian learning rule for a full Gaussian on Bayesian
    linear regression, as a conjugate-ngd implementation (see the module's documentation).

    ``schedule(t) -> ρ_t`` is the step size at step t = 0, 1, … (default Theorem 1's 2/(t + 2));
    ``hessian`` is ``"autograd"`` (``torch.autograd.functional.hessian`` of the minibatch
    log-likelihood, the default) or ``"gauss-newton"`` (−(n/M) Σ x_i x_iᵀ/σ², the generalised
    Gauss-Newton matrix the field uses for speed; equal to the Hessian for this likelihood).
    """

    protocol = "conjugate-ngd"

    def __init__(self, schedule: Optional[Callable[[int], float]] = None, hessian: str = "autograd"):
        import torch

        if hessian not in ("autograd", "gauss-newton"):
            raise ValueError(f"hessian: must be 'autograd' or 'gauss-newton', got {hessian!r}")
        if schedule is not None and not callable(schedule):
            raise TypeError(f"schedule: must be a callable t -> rho_t, got {type(schedule).__name__}")
        self.torch = torch
        self.schedule = schedule if schedule is not None else (lambda t: 2.0 / (t + 2.0))
        self.hessian = hessian
        self.name = "ngvikit's PyTorch port of VON / the Bayesian learning rule (full Gaussian)"
        self.version = f"torch {torch.__version__}"

    def start(self, problem):
        return _VonTrajectory(self, problem)


class _VonTrajectory:
    def __init__(self, owner: TorchVon, problem):
        torch = owner.torch
        self.torch = torch
        self.owner = owner
        self.X = torch.from_numpy(np.ascontiguousarray(problem.X, dtype=np.float64))
        self.y = torch.from_numpy(np.ascontiguousarray(problem.y, dtype=np.float64))
        self.noise_var = float(problem.noise_var)
        self.n = int(problem.n)
        self.prior_mean = torch.from_numpy(np.asarray(problem.prior_mean, dtype=np.float64))
        self.prior_precision = torch.linalg.inv(torch.from_numpy(np.asarray(problem.prior_cov, dtype=np.float64)))

    def _loglik(self, Xb, yb, scale):
        noise_var = self.noise_var

        def loglik(z):
            r = yb - Xb @ z
            return -0.5 * scale * (r * r).sum() / noise_var

        return loglik

    def step(self, t, eta, batch):
        torch = self.torch
        eta1 = torch.from_numpy(np.asarray(eta[0], dtype=np.float64))
        eta2 = torch.from_numpy(np.asarray(eta[1], dtype=np.float64))
        P = -2.0 * eta2  # the precision and the mean: the rule's own state
        m = torch.linalg.solve(P, eta1)
        rho = float(self.owner.schedule(int(t)))
        idx = torch.from_numpy(np.asarray(batch, dtype=np.int64))
        Xb, yb = self.X[idx], self.y[idx]
        scale = self.n / len(batch)
        loglik = self._loglik(Xb, yb, scale)
        z = m.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(loglik(z), z)
        if self.owner.hessian == "autograd":
            H = torch.autograd.functional.hessian(loglik, m)
        else:
            H = -(scale / self.noise_var) * (Xb.T @ Xb)
        g_post = g - self.prior_precision @ (m - self.prior_mean)
        P_new = (1.0 - rho) * P + rho * (self.prior_precision - H)
        P_new = 0.5 * (P_new + P_new.T)
        m_new = m + rho * torch.linalg.solve(P_new, g_post)
        return (P_new @ m_new).numpy(), (-0.5 * P_new).numpy()
