"""ngvikit: the claims of natural-gradient variational inference, run from Python.

List and describe the claims (:func:`claims`, :func:`describe`), run any selection against the
kit's own algorithm, a registered variant (:func:`variants`) or **your implementation** of a
protocol (:func:`verify`), and get the records back as dicts (or a pandas DataFrame), claims.json,
JUnit XML or the HTML report.

An implementation of the ``conjugate-ngd`` protocol (NGD on Bayesian linear regression, the
protocol of ``thm1.rate``, ``thm1.average``, ``thm1.first_step``, ``thm1.exact`` (its Monte Carlo records), ``fig1.ngd_ahead``, ``fig1.same_slope``,
``lemma2.relative_smoothness``, ``lemma7.eta1_variance``, ``lemma8.eta2_variance``, ``lemma9.convex_hull``,
``cor1.eta1_bound``, ``cor2.mu1_bound``, ``lemma10.mu1_gap``, ``lemma11.mu2_gap``,
``x.unbiased_iterate`` and ``x.iterate_variance``) is any
object with

``start(problem) -> trajectory``
    called once per trajectory. ``problem`` has numpy arrays ``X`` (n, d), ``y`` (n,),
    ``prior_mean`` (d,), ``prior_cov`` (d, d), the pairs ``prior_natural`` and ``initial``
    (eta1 (d,), eta2 (d, d)), the numbers ``noise_var``, ``batch`` (M), ``n`` and ``d``, and
    ``precision`` (``"double"``; ``"mp50"`` in the mp50 runs of an implementation whose
    ``precisions`` names it, where the arrays hold ``mpmath.mpf``).
``trajectory.step(t, eta, batch) -> eta``
    step t = 0, 1, ...: the current natural parameter ``eta = (eta1, eta2)`` (eta1 = S^-1 m,
    eta2 = -S^-1 / 2) and the int64 array of the M indices the claim drew (uniform, with
    replacement); returns the next ``(eta1, eta2)``.
``trajectory.average() -> (mean, second_moment)``, optional
    the average the implementation keeps of its iterates after the last step, as expectation
    parameters (m, S + m m^T). Without it the claim averages the iterates with Theorem 1's weights.

and optional attributes ``name`` and ``version`` (recorded in the run's meta). The implementation
owns its step-size schedule, its gradient estimate and its average, as real implementations do; the
claims see an error in any of them.

An implementation of ``svi-lda`` (online LDA: ``svi.schedule``, ``lda.sstats_mass``,
``lda.gamma_mass``, ``lda.topic_recovery``) sets ``protocol = "svi-lda"`` and provides
``start(problem)`` and ``update(t, lam, docs)``; :mod:`ngvikit.adapters` puts scikit-learn's and
gensim's online LDA to those claims. An implementation of ``svi-gmm`` (SVI on the Gaussian
mixture: ``gmm.recovery`` and the mixture records of ``svi.cavi_equivalence``) sets
``protocol = "svi-gmm"`` and provides ``start(problem)`` and ``update(t, lam, batch)``; one of
``lsk-update`` (the positive-definite LSK update: the ``lsk.*`` claims) ``start(problem)`` and
``step(t, mean, precision, gbar, hbar)``; with ``precisions = ("double", "mp50")`` it also runs in
the claims' mp50 runs, handed numpy object arrays of ``mpmath.mpf``. See docs/python.md for every
protocol.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from . import _core

__all__ = [
    "claims",
    "describe",
    "variants",
    "verify",
    "Result",
    "FunctionNgd",
    "write_report",
    "protocols",
    "kill_matrix",
    "mutations",
]

__version__ = _core.kit_version
#: The commit the compiled module was built from.
commit = _core.commit
#: The protocols an implementation can provide, with their versions.
protocols = _core.protocols()
#: The base seed of the claims when none is given (the ``ngvi verify`` default).
default_seed = _core.default_seed


def claims(pattern: Optional[str] = None) -> list[dict]:
    """The registered claims, each a dict (id, statement, source, tag, protocols, cost hints).

    ``pattern``: optional comma-separated ids or globs (``"thm1.*,x.*"``); every item must match a
    claim.
    """
    every = _core.claims()
    if pattern is None:
        return every
    if not isinstance(pattern, str):
        raise TypeError(f"pattern: expected a str, got {type(pattern).__name__}")
    import fnmatch

    items = [p.strip() for p in pattern.split(",")]
    out = []
    for item in items:
        if not item:
            raise ValueError(f"pattern: '{pattern}' has an empty item")
        matched = [c for c in every if fnmatch.fnmatchcase(c["id"], item)]
        if not matched:
            raise ValueError(f"pattern: '{item}' matches no claim (see ngvikit.claims())")
        out.extend(c for c in matched if c not in out)
    return [c for c in every if c in out]


def describe(claim_id: str) -> dict:
    """The claim with this exact id (a dict as in :func:`claims`)."""
    for c in _core.claims():
        if c["id"] == claim_id:
            return c
    raise ValueError(f"claim_id: '{claim_id}' is not a registered claim (see ngvikit.claims())")


def variants() -> list[dict]:
    """The registered variants and mutants of the kit's algorithm (name, description, mutant,
    replaces)."""
    return _core.variants()


class Result:
    """The records of one run and its meta (what claims.json holds).

    ``records``: list of dicts (claim, instance, precision, kind, form, lhs, rhs, margin, tightness,
    resolution, verdict, outcome, seconds, unit, note, level, control_route). ``outcome`` is how the record
    counts: ``pass`` (a claim that holds, a control that is broken), ``fail``, ``vacuous`` or ``skipped``
    (neither). ``control_route`` is ``"rerun"`` for a control that runs the algorithm under a violated
    hypothesis, ``"injected"`` for one whose violation the checker applies to a computed value, and None
    for claim records.
    """

    def __init__(self, run: Any, implementation: Optional[dict] = None):
        self._run = run
        self.records: list[dict] = run.records
        self.meta: dict = run.meta
        self.counts: dict = run.counts
        #: name, version and protocol of the implementation under test (None: the kit's own)
        self.implementation = implementation

    @property
    def passed(self) -> bool:
        """No record fails and at least one is evidence."""
        return bool(self.counts["passed"])

    def failures(self) -> list[dict]:
        """The records that fail: broken claims, controls that hold, errors."""
        return [r for r in self.records if r["outcome"] == "fail"]

    def verdicts(self) -> dict:
        """Each claim's verdict: ``PASS`` (evidence, no failure), ``FAIL`` (a record fails) or
        ``NO EVIDENCE`` (only vacuous or skipped records)."""
        out: dict = {}
        for r in self.records:
            v = out.get(r["claim"], "NO EVIDENCE")
            if r["outcome"] == "fail":
                v = "FAIL"
            elif r["outcome"] == "pass" and v != "FAIL":
                v = "PASS"
            out[r["claim"]] = v
        return out

    def summary(self) -> str:
        """One line per claim and the verdict line."""
        who = "the kit's algorithm"
        if self.implementation:
            who = f"{self.implementation['name']} {self.implementation['version']}".strip()
            who += f" ({self.implementation['protocol']} v{self.implementation['protocol_version']})"
        elif self.meta.get("variant"):
            who = f"variant {self.meta['variant']}"
        lines = [f"ngvikit {__version__}: claims against {who}, seed {self.meta['seed']}, {self.meta['mode']}"]
        for claim, v in self.verdicts().items():
            fails = [r for r in self.records if r["claim"] == claim and r["outcome"] == "fail"]
            why = ""
            if fails:
                f = fails[0]
                why = f"  first failure: {f['kind']} {f['instance']} ({f['precision']}): {f['verdict']}"
                if f["note"]:
                    why += f": {f['note']}"
            lines.append(f"  {v:<12} {claim}{why}")
        c = self.counts
        lines.append(
            f"{'PASS' if self.passed else 'FAIL'}: {c['claims_hold']}/{c['claims']} claim records hold, "
            f"{c['controls_broken']}/{c['controls']} controls broken, {c['vacuous']} vacuous, "
            f"{c['skipped']} skipped, {c['errors']} error(s)"
        )
        return "\n".join(lines)

    def to_dataframe(self):
        """The records as a pandas DataFrame (pandas must be installed)."""
        try:
            import pandas
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Result.to_dataframe needs pandas (Debian: python3-pandas)") from e
        return pandas.DataFrame.from_records(self.records)

    def write_json(self, path: str) -> str:
        """Writes claims.json (the format of ``ngvi verify --json``; ``ngvi diff`` and ``ngvi report``
        read it). Returns the path."""
        self._run.write_json(_path(path, "path"))
        return str(path)

    def write_junit(self, path: str) -> str:
        """Writes JUnit XML (one test case per record). Returns the path."""
        self._run.write_junit(_path(path, "path"))
        return str(path)

    def write_report(self, directory: str, gnuplot: str = "gnuplot") -> str:
        """Writes claims.json into ``directory`` and the HTML report beside it; returns the index
        page's path."""
        import os

        d = _path(directory, "directory")
        os.makedirs(d, exist_ok=True)
        self.write_json(os.path.join(d, "claims.json"))
        return write_report(d, gnuplot)

    def __repr__(self) -> str:
        c = self.counts
        return (
            f"<ngvikit.Result {'PASS' if self.passed else 'FAIL'}: {c['records']} records, "
            f"{c['failures']} failure(s), {c['skipped']} skipped>"
        )


def _path(p: Any, argument: str) -> str:
    import os

    if not isinstance(p, (str, os.PathLike)):
        raise TypeError(f"{argument}: expected a path (str or os.PathLike), got {type(p).__name__}")
    return os.fspath(p)


def write_report(directory: str, gnuplot: str = "gnuplot") -> str:
    """The HTML report of a directory holding claims.json (and runs/, as ``ngvi report`` reads it);
    returns the index page's path."""
    return _core.write_report(_path(directory, "directory"), gnuplot)


def verify(
    claims: str = "*",
    implementation: Any = None,
    *,
    variant: Optional[str] = None,
    precision: str = "double",
    seed: Optional[int] = None,
    full: bool = False,
    threads: int = 0,
) -> Result:
    """Runs the selected claims and returns their records.

    claims
        comma-separated claim ids or globs (``"thm1.*,x.*"``; default every claim). Each item must
        match a claim.
    implementation
        your implementation of a protocol (see the module's documentation); the claims that accept
        its protocol run against it, every other selected claim gives one ``skipped`` record ("not
        applicable"). Runs in double; a ``conjugate-ngd`` or ``lsk-update`` implementation whose
        ``precisions`` attribute names ``"mp50"`` also in mp50. Default: the kit's own algorithm.
    variant
        a registered variant or mutant of the kit's algorithm (:func:`variants`); exclusive with
        ``implementation``.
    precision
        ``"double"`` (default), ``"mp50"`` or ``"all"`` (both). For an implementation every
        precision asked must be one its protocol runs in (mp50: ``conjugate-ngd``, ``lsk-update``) and one it
        declares (its ``precisions``, default ``("double",)``); a ``ValueError`` naming
        ``precision`` otherwise.
    seed
        the claims' base seed (default :data:`default_seed`, as ``ngvi verify``); the records are a
        function of the seed, the selection, the mode and the algorithm, not of ``threads``.
    full
        the full instance set (``ngvi verify --full``) instead of the quick one.
    threads
        threads for the kit's Monte Carlo replicates (0: one per core). A Python implementation is
        called from one thread at a time, with the interpreter lock held only during its calls.

    An exception your implementation raises becomes one ``error`` record of that claim naming the
    protocol call and the step; the other claims still run. KeyboardInterrupt stops the run.
    """
    if not isinstance(claims, str):
        raise TypeError(f"claims: expected a str of comma-separated ids or globs, got {type(claims).__name__}")
    if variant is not None and not isinstance(variant, str):
        raise TypeError(f"variant: expected a str, got {type(variant).__name__}")
    if not isinstance(precision, str):
        raise TypeError(f"precision: expected a str, got {type(precision).__name__}")
    if seed is None:
        seed = default_seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 or seed >= 2**64:
        raise ValueError(f"seed: expected an int in [0, 2**64), got {seed!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads: expected an int >= 0 (0: one per core), got {threads!r}")
    info = None
    if implementation is not None:
        protocol = str(getattr(implementation, "protocol", _core.conjugate_ngd_protocol))
        if protocol not in protocols:
            raise ValueError(
                f"implementation: protocol '{protocol}' (its 'protocol' attribute) is not one of {sorted(protocols)}"
            )
        if not callable(getattr(implementation, "start", None)):
            raise TypeError(
                f"implementation: expected an object with a start(problem) method (protocol {protocol}; "
                "see help(ngvikit) and docs/python.md)"
            )
        info = {
            "name": str(getattr(implementation, "name", type(implementation).__name__)),
            "version": str(getattr(implementation, "version", "")),
            "protocol": protocol,
            "protocol_version": protocols[protocol],
        }
    run = _core.run(claims, implementation, variant or "", precision, int(seed), bool(full), int(threads))
    return Result(run, info)


class FunctionNgd:
    """A conjugate-NGD implementation made of functions, for implementations without state.

    ``step(problem, t, eta, batch) -> eta`` is called at every step; ``average``, if given, is
    ``average(problem, iterates) -> (mean, second_moment)`` over the list of the iterates returned so
    far (eta_1, ..., eta_t).
    """

    def __init__(
        self,
        step: Callable,
        average: Optional[Callable] = None,
        name: str = "python-function",
        version: str = "",
    ):
        if not callable(step):
            raise TypeError(f"step: expected a callable step(problem, t, eta, batch), got {type(step).__name__}")
        if average is not None and not callable(average):
            raise TypeError(f"average: expected a callable or None, got {type(average).__name__}")
        self._step, self._average = step, average
        self.name, self.version = name, version

    def start(self, problem):
        return _FunctionTrajectory(self, problem)


class _FunctionTrajectory:
    def __init__(self, owner: FunctionNgd, problem):
        self._owner, self._problem, self._iterates = owner, problem, []
        if owner._average is not None:
            self.average = self._average_of

    def step(self, t, eta, batch):
        nxt = self._owner._step(self._problem, t, eta, batch)
        if self._owner._average is not None:
            self._iterates.append(nxt)
        return nxt

    def _average_of(self):
        return self._owner._average(self._problem, self._iterates)


from . import mutations  # noqa: E402  (after verify, which it uses)

kill_matrix = mutations.kill_matrix
