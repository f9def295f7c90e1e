"""A conjugate-NGD implementation run in mp50: the claims of the protocol that run in mp50
(thm1.first_step, lemma2.relative_smoothness) hand it numpy object arrays of mpmath.mpf when it
declares mp50 among its `precisions`. A written-once numpy/mpmath NGD holds both claims in both
precisions; the same NGD casting its data to float64 inside holds them in double and breaks the
mp50 records (what only a 50-digit run can see); an implementation without the mp50 form is asked
for double only."""
import re

import mpmath
import numpy as np
import pytest

import ngvikit

CLAIMS = "thm1.first_step,lemma2.relative_smoothness"


def _inv(a):
    """a⁻¹ for float64 arrays (numpy) or object arrays of mpmath.mpf (mpmath)."""
    if a.dtype != object:
        return np.linalg.inv(a)
    return np.array(mpmath.inverse(mpmath.matrix(a.tolist())).tolist(), dtype=object)


class Ngd:
    """Theorem 1's NGD with its weighted average, written once for float64 and mpmath.mpf."""

    name, version, precisions = "numpy-mpmath-ngd", "0", ("double", "mp50")
    inv = staticmethod(_inv)

    def start(self, p):
        traj = type(self)()
        traj.p, traj.total, traj.weight = p, 0, 0
        return traj

    def data(self, batch):
        return self.p.X[batch], self.p.y[batch]

    def step(self, t, eta, batch):
        p = self.p
        g = 2 / (t + 2) if p.precision == "double" else mpmath.mpf(2) / (t + 2)
        s = p.n / len(batch) / p.noise_var
        X, y = self.data(batch)
        e1 = (1 - g) * eta[0] + g * (p.prior_natural[0] + s * (X.T @ y))
        e2 = (1 - g) * eta[1] + g * (p.prior_natural[1] - s / 2 * (X.T @ X))
        S = self.inv(-2 * e2)
        m = S @ e1
        mu = np.concatenate([m, (S + np.outer(m, m)).ravel()])
        self.total, self.weight = self.total + (t + 1) * mu, self.weight + t + 1
        return e1, e2

    def average(self):
        avg, d = self.total / self.weight, self.p.d
        return avg[:d], avg[d:].reshape(d, d)


class CastsToDouble(Ngd):
    """The same NGD reading its data as float64 (np.asarray(..., dtype=float) inside)."""

    name = "casts-to-double"

    def data(self, batch):
        X, y = super().data(batch)
        return np.asarray(X, dtype=float), np.asarray(y, dtype=float)


def _records(res, precision, kind):
    return [r for r in res.records if r["precision"] == precision and r["kind"] == kind]


def test_a_two_precision_implementation_holds_in_both():
    res = ngvikit.verify(CLAIMS, Ngd(), precision="all")
    for prec in ("double", "mp50"):
        claims, controls = _records(res, prec, "claim"), _records(res, prec, "control")
        # Both claims ran the implementation in this precision (no skipped record in its name).
        assert {r["claim"] for r in claims} == set(CLAIMS.split(",")), (prec, claims)
        assert all(r["verdict"] == "holds" for r in claims), [(r["claim"], r["instance"], r["verdict"]) for r in claims]
        assert controls and all(r["verdict"] == "broken" for r in controls), [(r["instance"], r["verdict"]) for r in controls]
    assert res.passed


def test_casting_to_double_inside_is_seen_in_mp50_only():
    res = ngvikit.verify(CLAIMS, CastsToDouble(), precision="all")
    assert all(r["verdict"] == "holds" for r in _records(res, "double", "claim"))
    broken = {(r["claim"], r["instance"]) for r in _records(res, "mp50", "claim") if r["verdict"] == "broken"}
    # Lemma 2's one exact step misses the posterior by double's rounding, some 34 digits above the
    # mp50 budget, on every instance; and so does Theorem 1's first step where it is an identity
    # (every batch's gradient exact: the zero-variance instance).
    lemma2 = {i for c, i in broken if c == "lemma2.relative_smoothness"}
    assert lemma2 == {r["instance"] for r in _records(res, "mp50", "claim") if r["claim"] == "lemma2.relative_smoothness"}
    assert all(i.endswith("one-step-gamma1") for i in lemma2)
    assert ("thm1.first_step", "signflip-n8-d3-M2/zero-variance") in broken
    assert not res.passed


def test_handed_values_are_mp50_exactly_and_the_precision_is_restored():
    seen = {}

    class Spy(Ngd):
        def start(self, p):
            if p.precision == "mp50":
                seen["problem"], seen["prec"] = p, mpmath.mp.prec
            else:
                seen["double"] = p
            return super().start(p)

        def step(self, t, eta, batch):
            if self.p.precision == "mp50":
                seen["eta"] = eta
            return super().step(t, eta, batch)

    before = mpmath.mp.prec
    ngvikit.verify("lemma2.relative_smoothness", Spy(), precision="all")
    assert mpmath.mp.prec == before
    p, d = seen["problem"], seen["double"]
    # At least twice mp50's significand while the implementation runs.
    assert seen["prec"] >= 2 * 166
    assert p.X.dtype == object and all(isinstance(x, mpmath.mpf) for x in p.X.ravel())
    assert isinstance(p.noise_var, mpmath.mpf)
    assert all(isinstance(x, mpmath.mpf) for x in seen["eta"][1].ravel())
    # The same data as the double run's (exact binary values, which both precisions hold exactly).
    assert np.array_equal(np.array([float(x) for x in p.X.ravel()]), d.X.ravel())


def test_an_implementation_without_the_mp50_form_is_asked_for_double_only():
    class DoubleOnly(Ngd):
        precisions = ("double",)

    with pytest.raises(ValueError, match="precision"):
        ngvikit.verify(CLAIMS, DoubleOnly(), precision="mp50")
    res = ngvikit.verify(CLAIMS, DoubleOnly())
    assert {r["precision"] for r in res.records} == {"double"} and res.passed


def test_the_docs_inverse_holds_in_both(root):
    """docs/python.md's two-precision inverse (conjugate-ngd, "In mp50"), as printed there."""
    text = (root / "docs" / "python.md").read_text()
    section = text[text.index("## Your implementation: protocol `conjugate-ngd`"):text.index("### The kill matrix of your implementation")]
    block = re.search(r"```python\n(.*?)```", section[section.index("**In mp50.**"):], re.S)
    assert block, "docs/python.md has no conjugate-ngd mp50 example"
    ns = {"np": np, "mpmath": mpmath}
    exec(block.group(1), ns)

    class DocsNgd(Ngd):
        inv = staticmethod(ns["inv"])

    res = ngvikit.verify(CLAIMS, DocsNgd(), precision="all")
    assert res.passed, res.summary()
    assert {r["precision"] for r in res.records} == {"double", "mp50"}
