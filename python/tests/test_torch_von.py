"""The kit's PyTorch port of VON / the Bayesian learning rule (ngvikit.adapters.TorchVon) behind the
conjugate-ngd protocol: one step equals conjugate NGD in closed form (numpy, the formula of
docs/math.md, not the port's own route). The port against the claims (x.unbiased_iterate, 168,800
steps at about 0.2-0.5 ms each) is make verify's: `python3 -m ngvikit.external` runs it and the report
shows the records (docs/systems.md A.7); here, the step's formula and how a run records the port."""

import types

import numpy as np
import pytest

import ngvikit

torch = pytest.importorskip("torch")
from ngvikit.adapters import TorchVon  # noqa: E402


def _problem(rng, n=12, d=3, M=2):
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n)
    A = rng.standard_normal((d, d))
    prior_cov = A @ A.T + np.eye(d)
    prior_mean = rng.standard_normal(d)
    P = np.linalg.inv(prior_cov)
    return types.SimpleNamespace(X=X, y=y, noise_var=0.7, prior_mean=prior_mean, prior_cov=prior_cov,
                                 prior_natural=(P @ prior_mean, -0.5 * P), initial=(P @ prior_mean, -0.5 * P),
                                 batch=M, n=n, d=d)


def _conjugate_ngd(p, t, eta, batch, gamma):
    """Closed form: η' = (1 − γ)η + γ(η_prior + (n/M) Σ_{i∈S} (x_i y_i/σ², −x_i x_iᵀ/(2σ²)))."""
    s = p.n / len(batch)
    Xb, yb = p.X[batch], p.y[batch]
    target1 = p.prior_natural[0] + s * Xb.T @ yb / p.noise_var
    target2 = p.prior_natural[1] - 0.5 * s * Xb.T @ Xb / p.noise_var
    return (1 - gamma) * eta[0] + gamma * target1, (1 - gamma) * eta[1] + gamma * target2


@pytest.mark.parametrize("hessian", ["autograd", "gauss-newton"])
def test_one_step_is_conjugate_ngd(hessian):
    rng = np.random.default_rng(11)
    p = _problem(rng)
    traj = TorchVon(hessian=hessian).start(p)
    eta = p.initial
    for t in range(6):
        batch = rng.integers(0, p.n, size=p.batch)
        got = traj.step(t, eta, batch)
        want = _conjugate_ngd(p, t, eta, batch, 2.0 / (t + 2))
        # The port goes through (m, P) and back: a solve with P and a product, each relatively
        # accurate to about d·ε·κ(P) (Higham, Thm 14.3 for the solve); 64 covers the few such steps.
        P = -2 * np.asarray(want[1])
        tol = 64 * p.d * np.finfo(float).eps * np.linalg.cond(P)
        for g, w in zip(got, want):
            assert np.max(np.abs(g - w)) <= tol * max(1.0, np.max(np.abs(w))), (t, g, w)
        eta = got


def test_the_port_owns_its_schedule():
    rng = np.random.default_rng(3)
    p = _problem(rng)
    batch = np.array([0, 5])
    got = TorchVon(schedule=lambda t: 1.0 / (t + 1)).start(p).step(1, p.initial, batch)
    want = _conjugate_ngd(p, 1, p.initial, batch, 0.5)
    assert np.allclose(got[0], want[0], rtol=1e-12, atol=1e-12)


def test_runs_through_the_protocol():
    # A claim of another protocol is not applicable; the implementation's name and version are recorded.
    res = ngvikit.verify("lsk.posdef_always", TorchVon())
    assert res.implementation["protocol"] == "conjugate-ngd"
    assert res.implementation["version"].startswith("torch ")
    (rec,) = res.records
    assert rec["verdict"] == "skipped" and "not applicable" in rec["note"]


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="^hessian: "):
        TorchVon(hessian="finite-differences")
    with pytest.raises(TypeError, match="^schedule: "):
        TorchVon(schedule=0.5)



@pytest.mark.parametrize("hessian", ["autograd", "gauss-newton"])
def test_one_exact_step_lands_on_the_posterior(hessian):
    # lemma2.relative_smoothness (one of ngvikit.external's default claims for the port): one step at
    # the port's own γ₀ = 1 with the whole data set, from a random q, lands on the posterior of
    # Gaussian conditioning within the claim's derived budget; its re-run on the targets (1 + δ)y
    # and the kit-formed γ < 1 control break. A step that scaled its gradient wrongly would miss.
    from ngvikit.external import DEFAULT_CLAIMS

    assert "lemma2.relative_smoothness" in DEFAULT_CLAIMS["conjugate-ngd"].split(",")
    res = ngvikit.verify("lemma2.relative_smoothness", TorchVon(hessian=hessian))
    claims = [r for r in res.records if r["kind"] == "claim"]
    controls = [r for r in res.records if r["kind"] == "control"]
    assert claims and all(r["verdict"] == "holds" for r in claims), claims
    assert any("scaled-targets" in r["instance"] for r in controls)
    assert controls and all(r["verdict"] == "broken" for r in controls), controls
    assert res.passed


def test_the_one_step_claim_sees_the_ports_schedule_and_batch_scale():
    km = ngvikit.kill_matrix("lemma2.relative_smoothness", TorchVon(hessian="gauss-newton"))
    assert km["implementation"].passed
    killed = {name for name, m in km["mutations"].items() if m["killed"]}
    assert {"schedule-off-by-one", "batch-scale-m-plus-one"} <= killed, km["mutations"].keys()
