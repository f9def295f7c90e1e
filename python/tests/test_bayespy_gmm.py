"""The svi-gmm protocol from Python, and BayesPy's stochastic VB on the Gaussian mixture behind it
(ngvikit.adapters.BayesPyGmm): BayesPy's batch step (|S| = N, ρ = 1) is the CAVI step of the claim's
independent moment-form reference; the kit's mutations across the protocol are each seen; a raising
or misshapen implementation is one error record naming the call and the step. gmm.recovery against
BayesPy (about 2000 steps of its node machinery per fit) runs in make verify's external table."""

import numpy as np
import pytest

import ngvikit
from ngvikit.mutations import kill_matrix, mutations_for


def test_the_protocol_is_listed_with_its_claims():
    assert ngvikit.protocols["svi-gmm"] == 1
    accepting = {c["id"] for c in ngvikit.claims() if "svi-gmm" in c["protocols"]}
    assert accepting == {"gmm.recovery", "svi.cavi_equivalence"}


class _Returns:
    """An svi-gmm implementation whose update raises at step 0 or returns a transposed λ."""

    protocol = "svi-gmm"

    def __init__(self, how):
        self.how, self.name = how, f"returns-{how}"

    def start(self, problem):
        return self

    def update(self, t, lam, batch):
        if self.how == "raise":
            raise ValueError("no mixture today")
        return np.asarray(lam).T


def test_raising_and_misshapen_implementations_are_one_error_record():
    (r,) = ngvikit.verify("svi.cavi_equivalence", _Returns("raise")).records
    assert r["verdict"] == "error"
    assert "svi-gmm call 'update' at step t = 0 of implementation 'returns-raise'" in r["note"]
    assert "ValueError: no mixture today" in r["note"]
    (r,) = ngvikit.verify("svi.cavi_equivalence", _Returns("transpose")).records
    assert r["verdict"] == "error" and "returned lam of shape (4, 3), expected (3, 4)" in r["note"]


bayespy = pytest.importorskip("bayespy")
from ngvikit.adapters import BayesPyGmm  # noqa: E402


def test_bayespy_batch_step_is_the_cavi_step():
    res = ngvikit.verify("svi.cavi_equivalence", BayesPyGmm())
    assert res.implementation["protocol"] == "svi-gmm"
    assert res.implementation["version"] == bayespy.__version__
    assert res.verdicts() == {"svi.cavi_equivalence": "PASS"}, res.summary()
    by_kind = {(r["kind"], r["precision"]): r for r in res.records}
    assert by_kind[("claim", "double")]["verdict"] == "holds"
    assert by_kind[("control", "double")]["verdict"] == "broken"
    # The LDA records of the claim read an LDA step the protocol does not have: none is written.
    assert all(r["instance"].startswith("gmm-") for r in res.records)


def test_each_mutation_across_the_protocol_is_seen_where_it_can_be():
    impl = BayesPyGmm()
    assert mutations_for(impl) == ["replication-dropped", "replication-s-plus-one", "tau-plus-one", "rho0-ignored"]
    km = kill_matrix("svi.cavi_equivalence", impl)
    assert km["implementation"].verdicts() == {"svi.cavi_equivalence": "PASS"}
    m = km["mutations"]
    # Every claim record (one per GMM start) holds and every control is broken under the
    # implementation; the mutation of the replication flips each claim record, that of ρ0 each
    # control, and neither flips the other kind.
    tag = f" [{impl.name}]"
    key = lambda r: (r["claim"], r["instance"].replace(tag, ""), r["precision"], r["kind"])
    claims = sorted(key(r) for r in km["implementation"].records if r["kind"] == "claim")
    controls = sorted(key(r) for r in km["implementation"].records if r["kind"] == "control")
    assert claims and controls
    assert sorted(m["replication-s-plus-one"]["flipped"]) == claims
    assert sorted(m["rho0-ignored"]["flipped"]) == controls
    # At |S| = N the replication is 1: dropping it changes nothing there (gmm.recovery sees it, in
    # make verify's table and the C++ test of the kit's own implementation with it dropped).
    assert not m["replication-dropped"]["killed"]
    # With κ = 0 the batch step's ρ does not depend on τ.
    assert not m["tau-plus-one"]["killed"]
