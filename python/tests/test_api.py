"""The ngvikit package's interface: listing, selection errors, records, the error records of a
faulty implementation, the interpreter lock and thread count, and the files it writes."""
import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import ngvikit

# The claims of the conjugate-ngd protocol.
PROTOCOL_CLAIMS = {"thm1.rate", "x.unbiased_iterate", "x.iterate_variance"}


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


def test_claims_listing():
    every = ngvikit.claims()
    assert len(every) > 10
    ids = [c["id"] for c in every]
    assert len(set(ids)) == len(ids)
    accepting = {c["id"] for c in every if "conjugate-ngd" in c["protocols"]}
    assert PROTOCOL_CLAIMS <= accepting
    assert {c["id"] for c in ngvikit.claims("x.*")} <= {i for i in ids if i.startswith("x.")}
    assert ngvikit.describe("thm1.rate")["statement"]
    assert ngvikit.protocols == {"conjugate-ngd": 1}


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


def test_records_of_an_implementation():
    res = ngvikit.verify("thm1.rate,x.unbiased_iterate,lemma1.*", Ngd())
    assert ngvikit.__file__.startswith(__import__("sys").prefix), "the installed package, not the source tree"
    assert res.passed, res.summary()
    by_claim = {}
    for r in res.records:
        by_claim.setdefault(r["claim"], []).append(r)
        assert set(r) >= {"claim", "instance", "precision", "kind", "lhs", "rhs", "margin", "verdict", "outcome", "note"}
        assert r["precision"] in ("double", "-")
    for claim in ("thm1.rate", "x.unbiased_iterate"):
        assert any(r["outcome"] == "pass" for r in by_claim[claim])
    # A claim that does not accept the protocol: one skipped record, never the kit's algorithm in
    # the implementation's name.
    other = [c for c in by_claim if c.startswith("lemma1")]
    assert other
    for c in other:
        assert [r["verdict"] for r in by_claim[c]] == ["skipped"]
    assert res.implementation["name"] == "test-ngd"
    assert res.verdicts()["thm1.rate"] == "PASS"


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
    one = ngvikit.verify("thm1.rate", Ngd(), threads=1)
    two = ngvikit.verify("thm1.rate", Ngd(), threads=2)
    same_values(one.records, two.records)
    # The kit's own algorithm runs its replicates on the threads.
    one = ngvikit.verify("x.unbiased_iterate", threads=1)
    two = ngvikit.verify("x.unbiased_iterate", threads=2)
    same_values(one.records, two.records)


def test_the_seed_changes_the_stochastic_records():
    a = ngvikit.verify("thm1.rate", Ngd(), seed=1)
    b = ngvikit.verify("thm1.rate", Ngd(), seed=2)
    assert a.meta["seed"] == 1 and b.meta["seed"] == 2
    assert [r["lhs"] for r in a.records] != [r["lhs"] for r in b.records]


def test_function_implementation():
    def step(p, t, eta, batch):
        g, s = 2 / (t + 2), p.n / len(batch) / p.noise_var
        X, y = p.X[batch], p.y[batch]
        return ((1 - g) * eta[0] + g * (p.prior_natural[0] + s * X.T @ y),
                (1 - g) * eta[1] + g * (p.prior_natural[1] - s / 2 * X.T @ X))

    res = ngvikit.verify("thm1.rate", ngvikit.FunctionNgd(step, name="fn"))
    assert res.passed, res.summary()
    assert res.implementation["name"] == "fn"


def test_writes_claims_json_junit_and_report(tmp_path):
    res = ngvikit.verify("thm1.rate,lemma1.*", Ngd())
    doc = json.loads(open(res.write_json(tmp_path / "out" / "claims.json")).read())
    assert len(doc["records"]) == len(res.records)
    assert doc["meta"]["seed"] == ngvikit.default_seed and doc["meta"]["claims"] == "thm1.rate,lemma1.*"
    suite = ET.parse(res.write_junit(tmp_path / "junit.xml")).getroot()
    assert len(suite.findall(".//testcase")) == len(res.records)
    index = res.write_report(tmp_path / "report")
    assert open(index).read().lower().startswith("<!doctype html")


def test_dataframe():
    pandas = pytest.importorskip("pandas")
    df = ngvikit.verify("thm1.rate", Ngd()).to_dataframe()
    assert isinstance(df, pandas.DataFrame) and {"claim", "verdict", "margin"} <= set(df.columns)


def test_the_kit_algorithm_and_a_mutant():
    assert ngvikit.verify("thm1.rate").passed
    # The registered mutants of the parts thm1.rate reads (its schedule, average, estimate) fail it:
    # the kill matrix's route, from Python.
    parts = {"schedule", "averaging", "estimate"}
    mutants = [v["name"] for v in ngvikit.variants() if v["mutant"] and v["replaces"] in parts]
    assert len(mutants) >= 3
    for m in mutants[:3]:
        res = ngvikit.verify("thm1.rate,x.unbiased_iterate", variant=m)
        assert not res.passed, m
        assert res.meta["variant"] == m
