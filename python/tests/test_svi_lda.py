"""The svi-lda protocol from Python: a small numpy online LDA (written here, independent of the kit)
holds the claims that accept the protocol; wrong ones (schedule counted from 0, replication D/|S|
dropped) fail the claims that read what they got wrong; a raising or malformed implementation gives
one error record naming the call and the step; the adapters of scikit-learn and gensim run (skipped
when the library is missing). Only the quick claims run here (lda.topic_recovery fits 9 x 160
minibatches: python3 -m ngvikit.external runs it)."""
import json

import numpy as np
import pytest

import ngvikit

QUICK = "svi.schedule,lda.sstats_mass,lda.gamma_mass"


def digamma(x):
    from scipy.special import psi

    return psi(x)


def e_log_dirichlet(a):
    """E[log x] under Dir(a), row by row."""
    return digamma(a) - digamma(a.sum(axis=-1, keepdims=True))


class NumpyLda:
    """Online LDA in numpy (Hoffman et al. 2010, Algorithm 2): γ from 1, at most 100 updates until the
    mean change is below 1e-3; ρ_t = (τ₀ + t + shift)^(−κ); λ̂ = η + (D/|S|) sstats, or η + sstats
    without the replication."""

    protocol = "svi-lda"
    origin = 1

    def __init__(self, shift=1, replicate=True, name="numpy online LDA", gamma=True):
        self.shift, self.replicate, self.name, self.version, self.gamma = shift, replicate, name, "test", gamma

    def start(self, problem):
        return _NumpyTrajectory(self, problem)


class _NumpyTrajectory:
    def __init__(self, owner, p):
        self.o, self.p = owner, p

    def update(self, t, lam, docs):
        p = self.p
        eb = np.exp(e_log_dirichlet(lam))  # K x V
        sstats = np.zeros_like(lam)
        gammas = np.empty((len(docs), p.K))
        for i, (ids, cnts) in enumerate(docs):
            b = eb[:, ids]
            g = np.ones(p.K)
            for _ in range(100):
                et = np.exp(e_log_dirichlet(g))
                new = p.alpha + et * (b @ (cnts / (et @ b)))
                done = np.mean(np.abs(new - g)) < 1e-3
                g = new
                if done:
                    break
            et = np.exp(e_log_dirichlet(g))
            sstats[:, ids] += np.outer(et, cnts / (et @ b))
            gammas[i] = g
        sstats *= eb
        rho = (p.tau0 + t + self.o.shift) ** (-p.kappa)
        scale = p.D / len(docs) if self.o.replicate else 1.0
        nxt = (1 - rho) * lam + rho * (p.eta + scale * sstats)
        return (nxt, gammas) if self.o.gamma else nxt


def by_claim(result):
    out = {}
    for r in result.records:
        out.setdefault(r["claim"], []).append(r)
    return out


def test_protocol_is_registered_with_its_claims():
    assert ngvikit.protocols["svi-lda"] == 1
    accepting = {c["id"] for c in ngvikit.claims() if "svi-lda" in c["protocols"]}
    assert accepting == {"svi.schedule", "lda.sstats_mass", "lda.gamma_mass", "lda.topic_recovery"}


def test_numpy_reference_holds():
    res = ngvikit.verify(QUICK, NumpyLda())
    assert res.passed, res.summary()
    assert res.implementation["protocol"] == "svi-lda"
    skipped = [r for r in res.records if r["verdict"] == "skipped"]
    assert [r["claim"] for r in skipped] == ["svi.schedule"]  # rho0 = 1/2 is not a protocol parameter
    assert "rho0" in skipped[0]["note"]


def test_schedule_from_zero_fails_the_schedule():
    res = ngvikit.verify("svi.schedule,lda.gamma_mass", NumpyLda(shift=0, name="rho from 0"))
    v = res.verdicts()
    assert v["svi.schedule"] == "FAIL"
    assert v["lda.gamma_mass"] == "PASS"


def test_dropped_replication_fails_the_sstats_mass_only():
    res = ngvikit.verify(QUICK, NumpyLda(replicate=False, name="no D/|S|"))
    v = res.verdicts()
    assert v["lda.sstats_mass"] == "FAIL"
    assert v["svi.schedule"] == "PASS"
    assert v["lda.gamma_mass"] == "PASS"


def test_kill_matrix_across_the_protocol():
    km = ngvikit.kill_matrix(QUICK, NumpyLda())
    assert km["implementation"].passed
    m = km["mutations"]
    assert sorted(m) == ["replication-dropped", "replication-s-plus-one", "tau-plus-one"]
    flipped = {name: {k[0] for k in e["flipped"]} for name, e in m.items()}
    # The mass of λ̂, read back with the declared ρ_t, sees a wrong replication and a shifted schedule;
    # the schedule read off the absent words sees the shift only; γ sees neither.
    assert flipped == {"replication-dropped": {"lda.sstats_mass"}, "replication-s-plus-one": {"lda.sstats_mass"},
                       "tau-plus-one": {"svi.schedule", "lda.sstats_mass"}}


class Raising(NumpyLda):
    def start(self, problem):
        traj = super().start(problem)
        inner = traj.update

        def update(t, lam, docs):
            if t == 1:
                raise ValueError("no topics today")
            return inner(t, lam, docs)

        traj.update = update
        return traj


def test_raising_implementation_is_one_error_record_naming_call_and_step():
    res = ngvikit.verify("lda.sstats_mass", Raising(name="raiser"))
    assert len(res.records) == 1
    r = res.records[0]
    assert r["verdict"] == "error"
    assert "svi-lda call 'update' at step t = 1 of implementation 'raiser'" in r["note"]
    assert "ValueError: no topics today" in r["note"]


class Transposed(NumpyLda):
    def start(self, problem):
        traj = super().start(problem)
        inner = traj.update
        traj.update = lambda t, lam, docs: inner(t, lam, docs)[0].T
        return traj


def test_wrong_shape_is_an_error_record():
    res = ngvikit.verify("svi.schedule", Transposed())
    assert [r["verdict"] for r in res.records] == ["error"]
    assert "returned lam of shape (16, 3), expected (3, 16)" in res.records[0]["note"]


def test_no_gamma_skips_gamma_mass_with_a_note():
    res = ngvikit.verify("lda.gamma_mass", NumpyLda(gamma=False))
    assert {r["verdict"] for r in res.records} == {"skipped"}
    assert all("returns no gamma" in r["note"] for r in res.records)


def test_other_claims_are_not_applicable():
    res = ngvikit.verify("svi.unbiased_target,svi.cavi_equivalence", NumpyLda())
    assert [r["verdict"] for r in res.records] == ["skipped", "skipped"]
    assert all("not applicable" in r["note"] for r in res.records)


def test_bad_origin_is_refused():
    impl = NumpyLda()
    impl.origin = -1
    with pytest.raises(TypeError, match="origin"):
        ngvikit.verify("svi.schedule", impl)


def test_scikit_learn_adapter():
    pytest.importorskip("sklearn")
    from ngvikit.adapters import SklearnLda

    impl = SklearnLda()
    import sklearn

    assert impl.version == sklearn.__version__ and impl.origin == 1
    res = ngvikit.verify(QUICK, impl)
    assert res.passed, res.summary()
    # scikit-learn takes learning_offset >= 1 only: the setting tau0 = 0 is refused at start.
    notes = [r["note"] for r in res.records if r["verdict"] == "skipped"]
    assert len(notes) == 2 and any("learning_offset" in n for n in notes), notes


def test_gensim_adapter():
    pytest.importorskip("gensim")
    from ngvikit.adapters import GensimLda

    res = ngvikit.verify(QUICK, GensimLda())
    assert res.passed, res.summary()
    # gensim counts from 0 (origin 0): with tau0 = 0 its first rho is 0^-kappa.
    notes = [r["note"] for r in res.records if r["verdict"] == "skipped"]
    assert len(notes) == 2 and any("tau0 + origin = 0" in n for n in notes), notes


def test_gensim_read_with_hoffmans_origin_breaks_the_schedule():
    # gensim's docstring says offset "corresponds to tau_0"; its rho counts updates from 0, so read as
    # Hoffman's and scikit-learn's (tau0 + t)^-kappa, t = 1, 2, ..., its schedule is off by one.
    pytest.importorskip("gensim")
    from ngvikit.adapters import GensimLda

    impl = GensimLda()
    impl.origin = 1
    assert ngvikit.verify("svi.schedule", impl).verdicts()["svi.schedule"] == "FAIL"


def test_gensim_streamed_numdocs_breaks_the_mass():
    # Fed one chunk per update() call, gensim replicates by the documents seen so far, not D
    # (docs/systems.md, "External implementations").
    pytest.importorskip("gensim")
    from ngvikit.adapters import GensimLda

    v = ngvikit.verify(QUICK, GensimLda(numdocs="stream")).verdicts()
    assert v["lda.sstats_mass"] == "FAIL"
    assert v["svi.schedule"] == "PASS"


def test_external_table(tmp_path):
    pytest.importorskip("sklearn")
    from ngvikit import external

    out = tmp_path / "external.json"
    table = external.run(str(out), only=["SklearnLda"], claims="svi.schedule,lda.sstats_mass", progress=lambda s: None)
    assert json.loads(out.read_text()) == table
    assert table["protocols"] == {"svi-lda": 1}
    assert {(c["id"], c["protocol"]) for c in table["claims"]} == {("svi.schedule", "svi-lda"), ("lda.sstats_mass", "svi-lda")}
    (row,) = table["implementations"]
    assert row["name"] == "scikit-learn LatentDirichletAllocation"
    assert row["claims"] == ["lda.sstats_mass", "svi.schedule"]
    assert row["counts"]["errors"] == 0 and row["failures"] == []
