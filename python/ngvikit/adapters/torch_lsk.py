"""The kit's own PyTorch port of the positive-definite LSK update (Lin, Schmidt & Khan 2020: NGVI for
any log density with a full-covariance Gaussian, the update that keeps the precision positive
definite), behind the ``lsk-update`` protocol.

This is **not** a third-party library: the update lives inside research code (and in Julia, in
AdvancedVI.jl), so ngvikit writes it in PyTorch the way the field writes it and labels it as its own.
With q = N(m, S⁻¹), ḡ = E_q ∇log π and H̄ = E_q ∇²log π:

    S' = ½S + ½WᵀW,  W = L⁻¹((1 − η)S − ηH̄),  S = LLᵀ     (= S − ηĜ + (η²/2)ĜS⁻¹Ĝ, Ĝ = S + H̄)
    S' = (1 − η)S − ηH̄                                       (ensure_posdef = False)
    m' = m + ηS'⁻¹ḡ      (without ensure_posdef, S' may be singular: the least-squares solution)

in torch float64 on the CPU (``torch.linalg.cholesky``, ``solve_triangular``, ``solve``). The claims
hand exact expectations (``lsk.posdef_always``: adversarial indefinite H̄); for use on a log density,
:meth:`TorchLsk.expectations` computes ḡ and H̄ with autograd (``torch.autograd.grad`` and
``torch.autograd.functional.hessian``) at the mean or averaged over draws from q, and :meth:`TorchLsk.fit`
runs the update on a log density with them. No claim reaches those estimates yet (docs/engine.md,
"lsk-update"); ``python/tests/test_torch_lsk.py`` checks them against the closed form of a Gaussian
target.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np


class TorchLsk:
    """The kit's PyTorch port of the positive-definite LSK update as an lsk-update implementation (see
    the module's documentation)."""

    protocol = "lsk-update"

    def __init__(self):
        import torch

        self.torch = torch
        self.name = "ngvikit's PyTorch port of the LSK positive-definite update"
        self.version = f"torch {torch.__version__}"

    def start(self, problem):
        return _LskTrajectory(self, float(problem.eta), bool(problem.ensure_posdef))

    def update(self, mean, precision, gbar, hbar, eta: float, ensure_posdef: bool = True):
        """One update from q = N(mean, precision⁻¹) with the expectations ``gbar`` and ``hbar`` (torch
        tensors or arrays); returns ``(mean', precision')`` as float64 tensors."""
        torch = self.torch
        m, S, g, H = (torch.as_tensor(np.asarray(x, dtype=np.float64)) if not torch.is_tensor(x) else x.double()
                      for x in (mean, precision, gbar, hbar))
        if not eta > 0:
            raise ValueError(f"eta: must be > 0, got {eta}")
        B = (1.0 - eta) * S - eta * H
        if ensure_posdef:
            L = torch.linalg.cholesky(S)
            W = torch.linalg.solve_triangular(L, B, upper=False)
            S_new = 0.5 * S + 0.5 * (W.T @ W)
        else:
            S_new = B
        S_new = 0.5 * (S_new + S_new.T)
        if ensure_posdef:
            m_new = m + eta * torch.linalg.solve(S_new, g)
        else:
            # Without the term S' may be indefinite or singular (lsk.posdef_always's draws put an
            # eigenvalue of I − ηA at 0 on purpose): the least-squares solution of S'x = ḡ.
            m_new = m + eta * torch.linalg.lstsq(S_new, g.unsqueeze(1)).solution.squeeze(1)
        return m_new, S_new

    def expectations(self, log_density: Callable, mean, precision, samples: int = 0, generator=None):
        """ḡ = E_q ∇log π and H̄ = E_q ∇²log π for q = N(mean, precision⁻¹) by autograd:
        ``log_density`` maps a (d,) float64 tensor to a scalar tensor. With ``samples = 0`` at the mean
        (exact when log π is quadratic); otherwise averaged over ``samples`` draws z = m + L⁻ᵀu, u
        standard normal from ``generator`` (a ``torch.Generator``)."""
        torch = self.torch
        if not isinstance(samples, int) or samples < 0:
            raise ValueError(f"samples: must be an int >= 0, got {samples!r}")
        m = torch.as_tensor(np.asarray(mean, dtype=np.float64)) if not torch.is_tensor(mean) else mean.double()
        S = torch.as_tensor(np.asarray(precision, dtype=np.float64)) if not torch.is_tensor(precision) else precision.double()
        if samples == 0:
            points = [m]
        else:
            L = torch.linalg.cholesky(S)
            u = torch.randn((samples, m.shape[0]), dtype=torch.float64, generator=generator)
            points = [m + torch.linalg.solve_triangular(L.T, u[i].unsqueeze(1), upper=True).squeeze(1) for i in range(samples)]
        g = torch.zeros_like(m)
        H = torch.zeros((m.shape[0], m.shape[0]), dtype=torch.float64)
        for z in points:
            zz = z.detach().clone().requires_grad_(True)
            (gz,) = torch.autograd.grad(log_density(zz), zz)
            g += gz
            H += torch.autograd.functional.hessian(log_density, z.detach())
        g /= len(points)
        H /= len(points)
        return g, 0.5 * (H + H.T)

    def fit(self, log_density: Callable, mean, precision, eta: float, steps: int, samples: int = 0,
            seed: Optional[int] = None, ensure_posdef: bool = True):
        """``steps`` LSK updates on ``log_density`` from q = N(mean, precision⁻¹) with autograd
        expectations (:meth:`expectations`); returns ``(mean, precision)`` as numpy arrays."""
        torch = self.torch
        if not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps: must be an int >= 0, got {steps!r}")
        gen = torch.Generator().manual_seed(int(seed)) if seed is not None else None
        m = torch.as_tensor(np.asarray(mean, dtype=np.float64))
        S = torch.as_tensor(np.asarray(precision, dtype=np.float64))
        for _ in range(steps):
            g, H = self.expectations(log_density, m, S, samples, gen)
            m, S = self.update(m, S, g, H, eta, ensure_posdef)
        return m.numpy(), S.numpy()


class _LskTrajectory:
    def __init__(self, owner: TorchLsk, eta: float, ensure_posdef: bool):
        self.owner = owner
        self.eta = eta
        self.ensure_posdef = ensure_posdef

    def step(self, t, mean, precision, gbar, hbar):
        torch = self.owner.torch
        m, S, g, H = (torch.from_numpy(np.asarray(x, dtype=np.float64)) for x in (mean, precision, gbar, hbar))
        m_new, S_new = self.owner.update(m, S, g, H, self.eta, self.ensure_posdef)
        return m_new.numpy(), S_new.numpy()
