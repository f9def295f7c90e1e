"""A Python implementation run in mp50: the lsk-update claims hand it numpy object arrays of
mpmath.mpf when it declares mp50 among its `precisions`. A written-once numpy/mpmath update holds
every lsk claim in both precisions; the same update rounding to float64 inside holds them in double
and breaks them in mp50 (what only a 50-digit run can see); precisions it does not declare, or a
protocol whose binding runs in double only (svi-gmm), are a ValueError naming `precision`; an entry mpmath
cannot read is one error record naming the call and the step."""
import copy
import re

import mpmath
import numpy as np
import pytest

import ngvikit

LSK_CLAIMS = "lsk.posdef_always,lsk.gaussian_target,lsk.matches_conjugate_ngd"


def _solve(a, b):
    """a⁻¹b (b a vector or a matrix) for float64 arrays (numpy) or object arrays of mpmath.mpf
    (mpmath's LU, factored once: lu_solve keeps it on the matrix)."""
    if a.dtype != object:
        return np.linalg.solve(a, b)
    am = mpmath.matrix(a.tolist())
    cols = b.reshape(len(b), -1)
    x = [mpmath.lu_solve(am, mpmath.matrix(cols[:, j].tolist())) for j in range(cols.shape[1])]
    return np.array([[x[j][i] for j in range(len(x))] for i in range(len(b))], dtype=object).reshape(b.shape)


class Lsk:
    """The positive-definite LSK update written once for numpy's float64 and mpmath's mpf:
    S' = S − ηĜ + (η²/2)ĜS⁻¹Ĝ, Ĝ = S + H̄ (or (1 − η)S − ηH̄), m' = m + ηS'⁻¹ḡ."""

    protocol = "lsk-update"
    precisions = ("double", "mp50")
    name, version = "numpy-mpmath-lsk", "0"

    def start(self, problem):
        # A trajectory of its own: a claim runs two at once (with and without the term).
        traj = copy.copy(self)
        traj.eta, traj.posdef = problem.eta, problem.ensure_posdef
        return traj

    def arrays(self, *xs):
        return xs

    def step(self, t, mean, precision, gbar, hbar):
        m, s, g, h = self.arrays(mean, precision, gbar, hbar)
        eta = self.eta
        if self.posdef:
            big_g = s + h
            s_new = s - eta * big_g + (eta * eta / 2) * (big_g @ _solve(s, big_g))
        else:
            s_new = (1 - eta) * s - eta * h
        # The claims hand ḡ = 0 where S' may be singular (ensure_posdef false): no solve there.
        step = _solve(s_new, g) if any(x != 0 for x in g) else g
        return m + eta * step, s_new


class RoundsToDouble(Lsk):
    """The same update computing in float64 whatever it is handed (a cast inside)."""

    name = "rounds-to-double"

    def start(self, problem):
        traj = super().start(problem)
        traj.eta = float(problem.eta)
        return traj

    def arrays(self, *xs):
        return tuple(np.asarray(x, dtype=np.float64) for x in xs)


def _verdicts(res, precision):
    """claim records of `precision`: {(claim, instance): verdict}."""
    return {(r["claim"], r["instance"]): r["verdict"] for r in res.records if r["precision"] == precision and r["kind"] == "claim"}


# The claims this file runs the mpmath update on: lsk.gaussian_target's d = 12 instance costs this
# update (an mpmath LU per solve) some 6 s in mp50; the C++ test of the protocol
# (proofs_checks/tests/lsk_update_protocol_test.cpp) runs the kit's mp50 form on all three claims.
MP50_CLAIMS = "lsk.posdef_always,lsk.matches_conjugate_ngd"


def test_a_two_precision_implementation_holds_in_both():
    res = ngvikit.verify(MP50_CLAIMS, Lsk(), precision="all")
    assert res.passed, res.summary()
    mp = _verdicts(res, "mp50")
    assert mp and set(mp.values()) == {"holds"}, mp
    # The same instances as the library's mp50 run: nothing skipped in the implementation's name.
    lib = ngvikit.verify(MP50_CLAIMS, precision="mp50")
    assert set(mp) == set(_verdicts(lib, "mp50"))


def test_rounding_to_double_inside_is_seen_in_mp50_only():
    res = ngvikit.verify(LSK_CLAIMS, RoundsToDouble(), precision="all")
    dbl, mp = _verdicts(res, "double"), _verdicts(res, "mp50")
    assert dbl and set(dbl.values()) == {"holds"}, dbl
    broken = {claim for (claim, _), v in mp.items() if v == "broken"}
    assert broken == set(LSK_CLAIMS.split(",")), mp
    assert not res.passed


def test_precisions_not_declared_or_not_bound_name_precision():
    class DoubleOnly(Lsk):
        precisions = ("double",)

    with pytest.raises(ValueError, match=r"^precision: the implementation declares precisions \('double',\)"):
        ngvikit.verify(LSK_CLAIMS, DoubleOnly(), precision="mp50")
    # Without the attribute: double only.
    no_attr = type("NoAttr", (), {k: v for k, v in vars(Lsk).items() if k != "precisions"})
    with pytest.raises(ValueError, match="^precision"):
        ngvikit.verify(LSK_CLAIMS, no_attr(), precision="all")

    class Gmm:
        protocol, precisions = "svi-gmm", ("double", "mp50")

        def start(self, problem):
            return self

    with pytest.raises(ValueError, match=r"^precision: an implementation of protocol 'svi-gmm' runs in \('double',\) only .*"
                                         r"\(mp50 is available for conjugate-ngd, lsk-update\)"):
        ngvikit.verify("gmm.recovery", Gmm(), precision="mp50")

    class BadAttr(Lsk):
        precisions = ("double", "quad")

    with pytest.raises(ValueError, match="precisions"):
        ngvikit.verify(LSK_CLAIMS, BadAttr(), precision="mp50")


def test_an_unreadable_entry_is_one_error_record():
    class Garbage(Lsk):
        def step(self, t, mean, precision, gbar, hbar):
            m, s = super().step(t, mean, precision, gbar, hbar)
            if t == 2:
                m = m.copy()
                m[0] = "not a number"
            return m, s

    res = ngvikit.verify("lsk.posdef_always", Garbage(), precision="mp50")
    errors = [r for r in res.records if r["verdict"] == "error"]
    assert len(errors) == 1 and len(res.records) == 1, res.records
    note = errors[0]["note"]
    assert "lsk-update call 'step' at step t = 2" in note and "mpmath.mpf cannot read" in note, note


def test_handed_values_are_mp50_exactly_and_the_precision_is_restored():
    seen = {"eta": []}

    class Spy(Lsk):
        def start(self, problem):
            seen["eta"].append(problem.eta)
            seen["precision"], seen["prec"] = problem.precision, mpmath.mp.prec
            return super().start(problem)

        def step(self, t, mean, precision, gbar, hbar):
            seen["dtype"], seen["type"] = precision.dtype, type(precision[0, 0])
            return super().step(t, mean, precision, gbar, hbar)

    before = mpmath.mp.prec
    ngvikit.verify("lsk.matches_conjugate_ngd", Spy(), precision="mp50")
    assert mpmath.mp.prec == before
    assert seen["precision"] == "mp50" and seen["dtype"] == object and seen["type"] is mpmath.mpf
    assert seen["prec"] > 166
    with mpmath.workprec(400):
        # The instances' γ = 1/2 and 1/4 (exact in binary) arrive as those rationals, and the step-size
        # control's γ(1 + δ) with its δ of order 1e-46 intact: a double would round it away.
        quarter = mpmath.mpf(1) / 4
        assert seen["eta"][0] == mpmath.mpf(1) / 2 and quarter in seen["eta"]
        shifts = [abs(e / quarter - 1) for e in seen["eta"] if abs(e / quarter - 1) < 1e-3]
        assert any(0 < x < 1e-40 for x in shifts), seen["eta"]


def test_the_docs_example_holds_in_both(root):
    """docs/python.md's mp50 example, as printed there."""
    text = (root / "docs" / "python.md").read_text()
    lsk = text[text.index("## Your implementation: protocol `lsk-update`"):]
    block = re.search(r"```python\n(.*?)```", lsk[lsk.index("**In mp50.**"):], re.S)
    assert block, "docs/python.md has no mp50 example"
    ns = {}
    exec(block.group(1), ns)
    res = ngvikit.verify(MP50_CLAIMS, ns["Lsk"](), precision="all")
    assert res.passed, res.summary()
    assert {r["precision"] for r in res.records} == {"double", "mp50"}
