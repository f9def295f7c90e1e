"""The kit's PyTorch port of the positive-definite LSK update (ngvikit.adapters.TorchLsk) behind the
lsk-update protocol: it holds the three lsk claims; the same port with the
(η²/2)ĜS⁻¹Ĝ term dropped (the bug the claims exist for) breaks both; its autograd expectations equal the closed form of a Gaussian
target; and its fit has that target's posterior as a fixed point."""

import numpy as np
import pytest

import ngvikit

torch = pytest.importorskip("torch")
from ngvikit.adapters import TorchLsk  # noqa: E402

EPS = np.finfo(float).eps


def test_holds_the_lsk_claims_that_accept_it():
    res = ngvikit.verify("lsk.*", TorchLsk())
    assert res.implementation["protocol"] == "lsk-update"
    assert res.verdicts() == {"lsk.posdef_always": "PASS", "lsk.gaussian_target": "PASS",
                              "lsk.matches_conjugate_ngd": "PASS"}, res.summary()
    assert all(r["verdict"] != "error" for r in res.records)
    # A claim of another protocol: one skipped record, never the library's run in the port's name.
    (na,) = ngvikit.verify("thm1.rate", TorchLsk()).records
    assert na["verdict"] == "skipped" and "not applicable" in na["note"]


class _DropsTheTerm(TorchLsk):
    """The port with S' = (1 − η)S − ηH̄ whatever ensure_posdef says (the update without its
    positive-definiteness term)."""

    def update(self, mean, precision, gbar, hbar, eta, ensure_posdef=True):
        return super().update(mean, precision, gbar, hbar, eta, False)


def test_dropping_the_posdef_term_breaks_both_claims():
    res = ngvikit.verify("lsk.posdef_always,lsk.gaussian_target", _DropsTheTerm())
    assert res.verdicts() == {"lsk.posdef_always": "FAIL", "lsk.gaussian_target": "FAIL"}
    for claim in ("lsk.posdef_always", "lsk.gaussian_target"):
        assert any(r["claim"] == claim and r["verdict"] == "broken" and r["kind"] == "claim" for r in res.records)


def test_a_raising_step_is_one_error_record():
    class Raises(TorchLsk):
        def start(self, problem):
            raise RuntimeError("no GPU")

    res = ngvikit.verify("lsk.posdef_always", Raises())
    (rec,) = res.records
    assert rec["verdict"] == "error"
    assert "lsk-update call 'start'" in rec["note"] and "RuntimeError: no GPU" in rec["note"]


def _gaussian_target(rng, d=4):
    A = rng.standard_normal((d, d))
    Lam = A @ A.T + d * np.eye(d)
    mu = rng.standard_normal(d)
    Lam_t, mu_t = torch.from_numpy(Lam), torch.from_numpy(mu)

    def log_density(z):
        r = z - mu_t
        return -0.5 * r @ (Lam_t @ r)

    return mu, Lam, log_density


def test_autograd_expectations_match_the_closed_form():
    rng = np.random.default_rng(5)
    mu, Lam, log_density = _gaussian_target(rng)
    m = rng.standard_normal(4)
    S = np.eye(4) * 2.0
    g, H = TorchLsk().expectations(log_density, m, S)
    # Closed form: ∇log π(m) = −Λ(m − μ), ∇²log π = −Λ; autograd forms the same sums (a few per entry).
    scale = np.abs(Lam).max() * (1 + np.abs(m - mu).max())
    tol = 8 * 4 * EPS * scale
    assert np.max(np.abs(g.numpy() + Lam @ (m - mu))) <= tol
    assert np.max(np.abs(H.numpy() + Lam)) <= 8 * 4 * EPS * np.abs(Lam).max()
    # Averaged over draws: the Hessian is constant, the gradient is −Λ(z̄ − μ).
    g2, H2 = TorchLsk().expectations(log_density, m, S, samples=3, generator=torch.Generator().manual_seed(1))
    assert np.max(np.abs(H2.numpy() + Lam)) <= 8 * 4 * EPS * np.abs(Lam).max()
    with pytest.raises(ValueError, match="^samples: "):
        TorchLsk().expectations(log_density, m, S, samples=-1)


def test_fit_has_the_gaussian_posterior_as_fixed_point():
    rng = np.random.default_rng(9)
    mu, Lam, log_density = _gaussian_target(rng)
    # From the target itself one step stays there: B = (1 − η)Λ + ηΛ = Λ, W = L⁻¹Λ = Lᵀ, WᵀW = Λ.
    m, S = TorchLsk().fit(log_density, mu, Lam, eta=0.5, steps=1)
    kappa = np.linalg.cond(Lam)
    tol = 64 * 4 * EPS * kappa
    assert np.max(np.abs(S - Lam)) <= tol * np.abs(Lam).max()
    assert np.max(np.abs(m - mu)) <= tol * (1 + np.abs(mu).max())
    # From elsewhere the fit moves towards it (each whitened eigenvalue's error contracts by (1 − η)²/(2a)).
    m0, S0 = np.zeros(4), np.eye(4)
    m1, S1 = TorchLsk().fit(log_density, m0, S0, eta=0.5, steps=60)
    assert np.linalg.norm(S1 - Lam) < 1e-3 * np.linalg.norm(S0 - Lam)
    assert np.linalg.norm(m1 - mu) < 1e-3 * np.linalg.norm(m0 - mu)


def test_kill_matrix_of_the_port():
    # Both lsk-update mutations flip records of both claims (each part seen in two places).
    km = ngvikit.kill_matrix("lsk.posdef_always,lsk.gaussian_target", TorchLsk())
    assert km["implementation"].passed
    assert set(km["mutations"]) == {"posdef-term-off", "step-size-1.01"}
    for name, m in km["mutations"].items():
        assert m["killed"], name
        assert {f[0] for f in m["flipped"]} == {"lsk.posdef_always", "lsk.gaussian_target"}, (name, m["flipped"])
    with pytest.raises(ValueError, match="^mutation: 'schedule-off-by-one' is a mutation of the conjugate-ngd protocol"):
        ngvikit.mutations.mutate(TorchLsk(), "schedule-off-by-one")
