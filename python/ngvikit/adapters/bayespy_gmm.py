"""BayesPy's stochastic variational Bayes on the Gaussian mixture, behind the ``svi-gmm`` protocol.

``BayesPyGmm()`` is an svi-gmm implementation (``protocol = "svi-gmm"``, ``origin = 0``). For each
minibatch size it builds BayesPy's own model of docs/systems.md A.3, as BayesPy's stochastic
inference demo writes it:

    mu    = Gaussian(m0, I/s0_2, plates=(K,))            q(μ_k), full-covariance Gaussian nodes
    alpha = Dirichlet(alpha0 * ones(K))                   q(π)
    Z     = Categorical(alpha, plates=(|S|,), plates_multiplier=(N/|S|,))
    Y     = Mixture(Z, Gaussian, mu, I/sigma2)
    Q     = VB(Y, Z, mu, alpha), Q.ignore_bound_checks = True

(one graph per size: two children of one ``mu`` would both send it messages). Each update sets the
global nodes from the λ the claim hands (``mu.set_parameters([Λm, −Λ/2])`` with Λ = I/s_k²,
``alpha.set_parameters([γ])``: BayesPy's natural parameters of these nodes), observes the minibatch
``Y.observe(X[S])``, runs BayesPy's local update ``Q.update(Z)`` and its natural-gradient step
``Q.gradient_step(mu, alpha, scale=ρ_t)`` (λ + ρ_t times its Riemannian gradient, λ̂ − λ, with the
minibatch's messages scaled by ``plates_multiplier``), and reads λ_{t+1} back from the nodes'
parameters. The schedule is the demo's ``(n + delay)^(-forgetting_rate)`` with n counted from 0
(``origin = 0``), times ρ₀: ρ_t = ρ₀ (τ + t)^(−κ).

BayesPy holds q(μ_k) with a full precision matrix; the protocol's family is isotropic, N(m_k, s_k² I).
On this model the precision stays a multiple of I (isotropic prior and noise), and the adapter reads
s_k² from its diagonal after checking that it is one (a ``RuntimeError`` otherwise: the family is
not the protocol's).
"""

from __future__ import annotations

import numpy as np

# How far BayesPy's precision matrix may be from a multiple of I, relative to its diagonal, before the
# adapter refuses it: a guard on the family, not a claim's tolerance (the model keeps it exactly so).
_ISOTROPY_GUARD = 1e-12


class BayesPyGmm:
    """BayesPy's ``VB.gradient_step`` on its ``Mixture`` of Gaussians as an svi-gmm implementation
    (see the module's documentation)."""

    protocol = "svi-gmm"
    origin = 0  # the demo's step (n + delay)^(-forgetting_rate), n = 0, 1, ...

    def __init__(self):
        import bayespy
        from bayespy.inference import VB  # noqa: F401 (fails early when missing)

        self.name = "BayesPy VB.gradient_step (Mixture of Gaussians)"
        self.version = bayespy.__version__

    def start(self, problem):
        return _BayesPyTrajectory(self, problem)


class _Graph:
    """BayesPy's model for one minibatch size (see the module's documentation)."""

    def __init__(self, p, size: int):
        from bayespy.inference import VB
        from bayespy.nodes import Categorical, Dirichlet, Gaussian, Mixture

        d = p.X.shape[1]
        n = p.X.shape[0]
        self.mu = Gaussian(np.asarray(p.m0, dtype=float), np.eye(d) / p.s0_2, plates=(p.K,))
        self.alpha = Dirichlet(p.alpha0 * np.ones(p.K))
        self.Z = Categorical(self.alpha, plates=(size,), plates_multiplier=(n / size,))
        self.Y = Mixture(self.Z, Gaussian, self.mu, np.eye(d) / p.sigma2)
        self.Q = VB(self.Y, self.Z, self.mu, self.alpha)
        self.Q.ignore_bound_checks = True


class _BayesPyTrajectory:
    def __init__(self, impl: BayesPyGmm, problem):
        self.p = problem
        self.X = np.asarray(problem.X, dtype=float)
        self.K = int(problem.K)
        self.d = self.X.shape[1]
        self.graphs: dict[int, _Graph] = {}

    def _graph(self, size: int) -> _Graph:
        if size not in self.graphs:
            self.graphs[size] = _Graph(self.p, size)
        return self.graphs[size]

    def update(self, t, lam, batch):
        p, d, K = self.p, self.d, self.K
        g = self._graph(len(batch))
        lam = np.asarray(lam, dtype=float)
        # BayesPy's natural parameters of q(μ_k): (Λ_k m_k, −Λ_k/2), Λ_k = I/s_k², so Λ_k m_k = m_k/s_k².
        g.mu.set_parameters([lam[:, 1 : d + 1].copy(), lam[:, d + 1][:, None, None] * np.eye(d)])
        g.alpha.set_parameters([lam[:, 0].copy()])
        g.Y.observe(self.X[np.asarray(batch, dtype=np.int64)])
        g.Q.update(g.Z, verbose=False)
        rho = p.rho0 * (p.tau + t + BayesPyGmm.origin) ** (-p.kappa)
        g.Q.gradient_step(g.mu, g.alpha, scale=rho)
        phi0, phi1 = g.mu.get_parameters()
        gamma = g.alpha.get_parameters()[0]
        phi0 = np.broadcast_to(phi0, (K, d))
        phi1 = np.broadcast_to(phi1, (K, d, d))
        diag = np.array([phi1[k, 0, 0] for k in range(K)])
        off = np.abs(phi1 - diag[:, None, None] * np.eye(d)).max()
        if not off <= _ISOTROPY_GUARD * np.abs(diag).max():
            raise RuntimeError(f"BayesPy's precision of q(mu_k) is not a multiple of I (largest deviation {off:.3g}): "
                               "not the protocol's isotropic family")
        out = np.empty((K, d + 2))
        out[:, 0] = np.broadcast_to(gamma, (K,))
        out[:, 1 : d + 1] = phi0
        out[:, d + 1] = diag
        return out
