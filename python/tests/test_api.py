"""The ngvikit package's interface: listing, selection errors, records, the error records of a
faulty implementation, the interpreter lock and thread count, and the files it writes."""
import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import ngvikit

# The claims of the conjugate-ngd protocol.
PROTOCOL_CLAIMS = {"thm1.rate", "thm1.average", "thm1.first_step", "fig1.ngd_ahead", "lemma2.relative_smoothness",
                   "lemma7.eta1_variance", "lemma8.eta2_variance", "x.unbiased_iterate", "x.iterate_variance"}


class Ngd:
    """Theorem 1's NGD, stateless (the claim averages the iterates); `fail_at` raises at that step,
    `shape_at` returns a wrong shape there."""

    name, version = "test-ngd", "0"

    def __init__(self, fail_at=None, shape_at=None, raise_type=ValueError):
        self.fail_at, self.shape_at, self.raise_type = fail_at, shape_at, raise_type

    def start(self, p):
        self.p = p
        return self

    def step(self, t, eta, batch):
        if t == self.fail_at:
            raise self.raise_type(f"deliberate failure at {t}")
        p, g = self.p, 2 / (t + 2)
        s = p.n / len(batch) / p.noise_var
        X, y = p.X[batch], p.y[batch]
        e1 = (1 - g) * eta[0] + g * (p.prior_natural[0] + s * X.T @ y)
        e2 = (1 - g) * eta[1] + g * (p.prior_natural[1] - s / 2 * X.T @ X)
        if t == self.shape_at:
            return e1[:-1], e2
        return e1, e2


class AveragingNgd(Ngd):
    """Ngd with Theorem 1's average of its own: the expectation parameters μ_t weighted by t."""

    def start(self, p):
        self.total, self.weight = 0, 0
        return super().start(p)

    def step(self, t, eta, batch):
        eta = super().step(t, eta, batch)
        S = np.linalg.inv(-2 * eta[1])
        m = S @ eta[0]
        self.total = self.total + (t + 1) * np.concatenate([m, (S + np.outer(m, m)).ravel()])
        self.weight += t + 1
        return eta

    def average(self):
        avg, d = self.total / self.weight, self.p.d
        return avg[:d], avg[d:].reshape(d, d)


def test_claims_listing():
    every = ngvikit.claims()
    assert len(every) > 10
    ids = [c["id"] for c in every]
    assert len(set(ids)) == len(ids)
    accepting = {c["id"] for c in every if "conjugate-ngd" in c["protocols"]}
    assert PROTOCOL_CLAIMS <= accepting
    assert {c["id"] for c in ngvikit.claims("x.*")} <= {i for i in ids if i.startswith("x.")}
    assert ngvikit.describe("thm1.rate")["statement"]
    assert ngvikit.protocols == {"conjugate-ngd": 1, "svi-lda": 1, "svi-gmm": 1, "lsk-update": 1}


@pytest.mark.parametrize("call, argument", [
    (lambda: ngvikit.describe("thm9.none"), "claim_id"),
    (lambda: ngvikit.claims("thm1.rate,nothing.here"), "nothing.here"),
    (lambda: ngvikit.verify("nothing.here"), "nothing.here"),
    (lambda: ngvikit.verify("thm1.rate,"), "empty item"),
    (lambda: ngvikit.verify("thm1.rate", variant="no-such-variant"), "variant"),
    (lambda: ngvikit.verify("thm1.rate", precision="quad"), "precision"),
    (lambda: ngvikit.verify("thm1.rate", Ngd(), precision="mp50"), "precision"),
    (lambda: ngvikit.verify("thm1.rate", seed=-1), "seed"),
    (lambda: ngvikit.verify("thm1.rate", threads=-2), "threads"),
])
def test_bad_arguments_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_bad_types_name_the_argument():
    with pytest.raises(TypeError, match="implementation"):
        ngvikit.verify("thm1.rate", object())
    with pytest.raises(TypeError, match="claims"):
        ngvikit.verify(["thm1.rate"])
    with pytest.raises(ValueError, match="exclusive"):
        ngvikit.verify("thm1.rate", Ngd(), variant=ngvikit.variants()[0]["name"])


# One run shared by the tests that read its records (the Python route costs about 30 us a step, and
# x.unbiased_iterate takes some 170,000 steps).
@pytest.fixture(scope="module")
def shared_run():
    return ngvikit.verify("x.unbiased_iterate,lemma1.*", Ngd())


def test_records_of_an_implementation(shared_run):
    res = shared_run
    assert ngvikit.__file__.startswith(__import__("sys").prefix), "the installed package, not the source tree"
    assert res.passed, res.summary()
    by_claim = {}
    for r in res.records:
        by_claim.setdefault(r["claim"], []).append(r)
        assert set(r) >= {"claim", "instance", "precision", "kind", "lhs", "rhs", "margin", "verdict", "outcome", "note",
                          "control_route"}
        assert r["precision"] in ("double", "-")
        # Controls say how they violate the hypothesis; claim records have no route.
        assert r["control_route"] in (("rerun", "injected") if r["kind"] == "control" else (None,))
    assert any(r["outcome"] == "pass" for r in by_claim["x.unbiased_iterate"])
    # A claim that does not accept the protocol: one skipped record, never the kit's algorithm in
    # the implementation's name.
    other = [c for c in by_claim if c.startswith("lemma1")]
    assert other
    for c in other:
        assert [r["verdict"] for r in by_claim[c]] == ["skipped"]
    assert res.implementation["name"] == "test-ngd"
    assert res.verdicts()["x.unbiased_iterate"] == "PASS"


def test_an_exception_is_one_error_record_and_the_run_goes_on():
    res = ngvikit.verify("thm1.rate,x.unbiased_iterate", Ngd(fail_at=3))
    assert not res.passed
    errors = [r for r in res.records if r["verdict"] == "error"]
    assert errors
    for r in errors:
        assert "call 'step' at step t = 3" in r["note"] and "deliberate failure at 3" in r["note"], r["note"]
        assert "ValueError" in r["note"]
    assert {r["claim"] for r in errors} == {"thm1.rate", "x.unbiased_iterate"}


def test_a_wrong_shape_is_an_error_record():
    res = ngvikit.verify("thm1.rate", Ngd(shape_at=0))
    notes = [r["note"] for r in res.records if r["verdict"] == "error"]
    assert notes and all("eta1 of shape" in n for n in notes), notes


def test_keyboard_interrupt_stops_the_run():
    with pytest.raises(KeyboardInterrupt):
        ngvikit.verify("thm1.rate,x.unbiased_iterate", Ngd(fail_at=2, raise_type=KeyboardInterrupt))


def same_values(a, b):
    def key(r):
        return (r["claim"], r["instance"], r["precision"], r["kind"])

    assert [key(r) for r in a] == [key(r) for r in b]
    for x, y in zip(a, b):
        for f in ("lhs", "rhs", "margin"):
            assert x[f] == y[f] or (math.isnan(x[f]) and math.isnan(y[f])), (key(x), f, x[f], y[f])
        assert x["verdict"] == y["verdict"]


def test_records_do_not_depend_on_the_thread_count():
    # The kit's own algorithm runs the replicates on the threads (a Python implementation is run on
    # one thread whatever the count: the claims' replicates are bitwise the same for any count).
    one = ngvikit.verify("x.unbiased_iterate", threads=1)
    two = ngvikit.verify("x.unbiased_iterate", threads=2)
    same_values(one.records, two.records)
    one = ngvikit.verify("x.unbiased_iterate", Ngd(fail_at=40), threads=1)
    two = ngvikit.verify("x.unbiased_iterate", Ngd(fail_at=40), threads=2)
    assert one.records[0]["note"] == two.records[0]["note"] and "t = 40" in one.records[0]["note"]


def test_the_seed_changes_the_stochastic_records():
    a = ngvikit.verify("x.unbiased_iterate", seed=1)
    b = ngvikit.verify("x.unbiased_iterate", seed=2)
    assert a.meta["seed"] == 1 and b.meta["seed"] == 2
    assert [r["lhs"] for r in a.records] != [r["lhs"] for r in b.records]


def test_function_implementation():
    def step(p, t, eta, batch):
        g, s = 2 / (t + 2), p.n / len(batch) / p.noise_var
        X, y = p.X[batch], p.y[batch]
        return ((1 - g) * eta[0] + g * (p.prior_natural[0] + s * X.T @ y),
                (1 - g) * eta[1] + g * (p.prior_natural[1] - s / 2 * X.T @ X))

    res = ngvikit.verify("x.unbiased_iterate", ngvikit.FunctionNgd(step, name="fn"))
    assert res.passed, res.summary()
    assert res.implementation["name"] == "fn"


def test_writes_claims_json_junit_and_report(tmp_path, shared_run):
    res = shared_run
    doc = json.loads(open(res.write_json(tmp_path / "out" / "claims.json")).read())
    assert len(doc["records"]) == len(res.records)
    assert doc["meta"]["seed"] == ngvikit.default_seed and doc["meta"]["claims"] == "x.unbiased_iterate,lemma1.*"
    # The implementation under test is recorded as ngvi verify records it (a baseline made against
    # another implementation is then refused).
    assert (doc["meta"]["implementation"], doc["meta"]["protocol"], doc["meta"]["protocol_version"]) == ("test-ngd", "conjugate-ngd", 1)
    assert res.meta["implementation"] == "test-ngd"
    suite = ET.parse(res.write_junit(tmp_path / "junit.xml")).getroot()
    assert len(suite.findall(".//testcase")) == len(res.records)
    index = res.write_report(tmp_path / "report")
    assert open(index).read().lower().startswith("<!doctype html")


def test_dataframe(shared_run):
    pandas = pytest.importorskip("pandas")
    df = shared_run.to_dataframe()
    assert isinstance(df, pandas.DataFrame) and {"claim", "verdict", "margin"} <= set(df.columns)


def test_the_kit_algorithm_and_a_mutant():
    assert ngvikit.verify("thm1.rate").passed
    # The registered mutants of the parts thm1.rate reads (its schedule, average, estimate) fail it:
    # the kill matrix's route, from Python.
    registered = {v["name"]: v for v in ngvikit.variants() if v["mutant"]}
    mutants = ["uniform-averaging", "step-off-by-one", "g1-bias"]
    assert all(m in registered for m in mutants), sorted(registered)
    for m in mutants:
        res = ngvikit.verify("thm1.rate,x.unbiased_iterate", variant=m)
        assert not res.passed, m
        assert res.meta["variant"] == m


def test_kill_matrix_of_an_implementation():
    # The mutations of the schedule and of the estimate's scale, seen by x.unbiased_iterate; those of
    # the average, seen by thm1.average (100 steps per instance) against an implementation that keeps
    # Theorem 1's average.
    for claims, impl, mutations in (("x.unbiased_iterate", Ngd(), ["schedule-off-by-one", "batch-scale-m-plus-one"]),
                                    ("thm1.average", AveragingNgd(), ["average-uniform", "average-last"])):
        km = ngvikit.kill_matrix(claims, impl, mutations=mutations)
        assert km["implementation"].passed, claims
        assert sorted(km["mutations"]) == sorted(mutations)
        for name, m in km["mutations"].items():
            assert m["killed"], f"{name}: no record flipped"
            assert m["part"] == ngvikit.mutations.MUTATIONS[name]
    # Without an average of its own, thm1.average has nothing of the implementation's to check.
    recs = ngvikit.verify("thm1.average", Ngd()).records
    assert recs and all(r["verdict"] == "skipped" for r in recs)
    with pytest.raises(ValueError, match="mutation"):
        ngvikit.mutations.mutate(Ngd(), "no-such-mutation")


def test_averaging_mutations_average_as_named():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(6, 2)), rng.normal(size=6)
    p = __import__("types").SimpleNamespace(
        X=X, y=y, noise_var=0.5, prior_natural=(np.zeros(2), -0.5 * np.eye(2)), n=6, d=2, batch=2,
        initial=(np.zeros(2), -0.5 * np.eye(2)))
    for name in ("average-uniform", "average-last"):
        traj = ngvikit.mutations.mutate(Ngd(), name).start(p)
        eta, mus = p.initial, []
        for t in range(5):
            eta = traj.step(t, eta, np.array([t % 6, (t + 1) % 6]))
            S = np.linalg.inv(-2 * eta[1])
            m = S @ eta[0]
            mus.append((m, S + np.outer(m, m)))
        want = mus[-1] if name == "average-last" else tuple(sum(x[k] for x in mus) / len(mus) for k in range(2))
        got = traj.average()
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
