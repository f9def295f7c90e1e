"""The field's implementations put to the kit's claims: every available adapter of
:mod:`ngvikit.adapters` run against the claims that accept its protocol (``svi-lda`` for the online
LDA adapters, ``svi-gmm`` for BayesPy's stochastic VB on the mixture, ``conjugate-ngd`` for the
PyTorch VON port, ``lsk-update`` for the PyTorch LSK port), as a JSON table.

    python3 -m ngvikit.external OUT.json [--seed S] [--full] [--only NAME,...] [--claims GLOBS]

An adapter whose library is not installed is skipped with a message (and listed under ``missing``).
The table (a JSON object):

``protocols`` (each protocol run and its version), ``kit_version``, ``commit``, ``seed``, ``mode``
    what was run;
``claims``
    the claims run (id, statement and the protocol they were run for);
``implementations``
    one entry per implementation run: ``name``, ``version``, ``adapter`` (its configuration),
    ``protocol``, ``protocol_version``, ``claims`` (the claims that applied), ``verdicts`` (each
    claim's PASS / FAIL / NO EVIDENCE), ``counts`` (``holds``, ``broken``, ``vacuous`` claim
    records; ``controls_broken``, ``controls_holding``; ``skipped``; ``errors``; ``records``),
    ``seconds`` and ``failures``: each failing record's ``claim``, ``instance``, ``kind``,
    ``statement``, ``verdict``, ``margin``, ``lhs``, ``rhs``, ``unit`` and ``note`` (how far it misses);
``missing``
    the adapters not run, each with the reason.

A failing record is a finding about the implementation or about the claim's reading of it, never
something to tune away: docs/systems.md ("External implementations") says which, for each.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any, Callable, Optional

# The claims run by default for each protocol: every claim that accepts svi-lda, svi-gmm or lsk-update; for conjugate-ngd
# x.unbiased_iterate, thm1.exact (its Monte Carlo records, about 44,000 step calls), thm1.first_step (480 steps) and
# lemma2.relative_smoothness (one step call per instance and control), since thm1.rate and x.iterate_variance call the PyTorch port's step (an
# autograd Hessian each) millions of times (figures in bench/README.md); --claims runs them.
DEFAULT_CLAIMS = {"svi-lda": None, "svi-gmm": None,
                  "conjugate-ngd": "x.unbiased_iterate,thm1.exact,thm1.first_step,lemma2.relative_smoothness,lemma7.*,lemma8.*", "lsk-update": None}


def _configurations(found: dict) -> list:
    """The implementations to run, as (label, protocol, factory), made from the available adapter
    classes: scikit-learn's, gensim's as its own fit of D documents would replicate, gensim fed one
    chunk per call as a stream (its replication then counts the documents seen; docs/systems.md),
    BayesPy's stochastic VB on the Gaussian mixture, the kit's PyTorch port of VON with autograd's Hessian, and its port of the LSK update."""
    out = []
    if "SklearnLda" in found:
        out.append(("SklearnLda()", "svi-lda", lambda: found["SklearnLda"]()))
    if "GensimLda" in found:
        out.append(("GensimLda()", "svi-lda", lambda: found["GensimLda"]()))
        out.append(('GensimLda(numdocs="stream")', "svi-lda", lambda: found["GensimLda"](numdocs="stream")))
    if "BayesPyGmm" in found:
        out.append(("BayesPyGmm()", "svi-gmm", lambda: found["BayesPyGmm"]()))
    if "TorchVon" in found:
        out.append(("TorchVon()", "conjugate-ngd", lambda: found["TorchVon"]()))
    if "TorchLsk" in found:
        out.append(("TorchLsk()", "lsk-update", lambda: found["TorchLsk"]()))
    return out


def _number(x: Any) -> Any:
    """A float for JSON (NaN and infinities as strings, which JSON cannot hold)."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def _row(adapter: str, impl: Any, result: Any, statements: dict, seconds: float) -> dict:
    recs = result.records
    claim_recs = [r for r in recs if r["kind"] == "claim"]
    control_recs = [r for r in recs if r["kind"] == "control"]
    counts = {
        "records": len(recs),
        "holds": sum(r["verdict"] == "holds" for r in claim_recs),
        "broken": sum(r["verdict"] == "broken" for r in claim_recs),
        "vacuous": sum(r["verdict"] == "vacuous" for r in claim_recs),
        "controls_broken": sum(r["verdict"] == "broken" for r in control_recs),
        "controls_holding": sum(r["verdict"] in ("holds", "vacuous") for r in control_recs),
        "skipped": sum(r["verdict"] == "skipped" for r in recs),
        "errors": sum(r["verdict"] == "error" for r in recs),
    }
    failures = [
        {
            "claim": r["claim"],
            "instance": r["instance"],
            "kind": r["kind"],
            "statement": statements.get(r["claim"], ""),
            "verdict": r["verdict"],
            "margin": _number(r["margin"]),
            "lhs": _number(r["lhs"]),
            "rhs": _number(r["rhs"]),
            "unit": r["unit"],
            "note": r["note"],
        }
        for r in result.failures()
    ]
    return {
        "name": result.implementation["name"],
        "version": result.implementation["version"],
        "adapter": adapter,
        "origin": int(getattr(impl, "origin", 1)),
        "protocol": result.implementation["protocol"],
        "protocol_version": result.implementation["protocol_version"],
        "claims": sorted({r["claim"] for r in recs}),
        "verdicts": result.verdicts(),
        "counts": counts,
        "seconds": round(seconds, 3),
        "failures": failures,
    }


def run(
    out: Optional[str] = None,
    *,
    seed: Optional[int] = None,
    full: bool = False,
    only: Optional[list] = None,
    claims: Optional[str] = None,
    progress: Callable[[str], None] = print,
) -> dict:
    """Runs every available adapter (or those whose configuration names start with one of ``only``)
    against the claims that accept its protocol (by default DEFAULT_CLAIMS; ``claims``,
    comma-separated globs, selects among them for every protocol) and returns the table; writes it
    as JSON to ``out`` when given."""
    import ngvikit
    from . import adapters

    every = ngvikit.claims()
    statements = {c["id"]: c["statement"] for c in every}
    found, missing = adapters.available()
    for name, why in missing.items():
        progress(f"ngvikit.external: skipping {name}: {why}")
    rows = []
    run_claims: dict = {}
    for label, protocol, make in _configurations(found):
        if only and not any(label.startswith(o) for o in only):
            continue
        wanted = claims if claims is not None else DEFAULT_CLAIMS[protocol]
        ids = [c["id"] for c in ngvikit.claims(wanted) if protocol in c["protocols"]]
        if not ids:
            progress(f"ngvikit.external: {label}: no claim of protocol {protocol} in the selection")
            continue
        selection = ",".join(ids)
        for i in ids:
            run_claims[i] = protocol
        impl = make()
        progress(f"ngvikit.external: {impl.name} {impl.version} ({label}; {selection}) ...")
        t0 = time.perf_counter()
        result = ngvikit.verify(selection, impl, seed=seed, full=full)
        row = _row(label, impl, result, statements, time.perf_counter() - t0)
        c = row["counts"]
        progress(
            f"  {c['holds']} hold, {c['broken']} broken, {c['vacuous']} vacuous, {c['controls_broken']} controls broken "
            f"({c['controls_holding']} holding), {c['skipped']} skipped, {c['errors']} error(s) in {row['seconds']:.1f} s"
        )
        for f in row["failures"]:
            progress(f"    FAIL {f['claim']} {f['instance']}: {f['verdict']}, lhs {f['lhs']} rhs {f['rhs']} {f['unit']}")
        rows.append(row)
    table = {
        "protocols": {p: ngvikit.protocols[p] for p in sorted(set(run_claims.values()))},
        "kit_version": ngvikit.__version__,
        "commit": ngvikit.commit,
        "seed": ngvikit.default_seed if seed is None else seed,
        "mode": "full" if full else "quick",
        "claims": [{"id": i, "statement": statements[i], "protocol": p} for i, p in sorted(run_claims.items())],
        "implementations": rows,
        "missing": [{"adapter": n, "reason": r} for n, r in missing.items()],
    }
    if out is not None:
        with open(out, "w") as f:
            json.dump(table, f, indent=1)
            f.write("\n")
    return table


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m ngvikit.external", description=__doc__.split("\n\n")[0])
    ap.add_argument("out", metavar="OUT.json", help="the table to write")
    ap.add_argument("--seed", type=int, default=None, help="the claims' base seed (default: ngvikit.default_seed)")
    ap.add_argument("--full", action="store_true", help="the claims' full instance set")
    ap.add_argument("--only", default=None, help="comma-separated prefixes of the configurations to run (e.g. SklearnLda)")
    ap.add_argument("--claims", default=None, help="comma-separated globs of the claims to run, among those each adapter's protocol accepts "
                    "(default: every claim of its protocol; x.unbiased_iterate, thm1.exact, thm1.first_step and "
                    "lemma2.relative_smoothness for conjugate-ngd)")
    a = ap.parse_args(argv)
    run(a.out, seed=a.seed, full=a.full, only=a.only.split(",") if a.only else None, claims=a.claims)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
