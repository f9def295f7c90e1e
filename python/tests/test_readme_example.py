"""The README's Python example, run as written: it passes the Theorem 1 claims, and each of three
plausible bugs in the code it owns (its schedule, its average, its batch scale) makes it fail.

The bugs are applied to the README's text, so that the example a reader copies is the one checked.
Each substitution must apply exactly once (else the README changed and this test must follow)."""
import subprocess
import sys

import pytest

SCHEDULE = ("2 / (t + 2)", "1 / (t + 1)")
BATCH_SCALE = ("self.p.n / len(batch) / self.p.noise_var", "self.p.n / (len(batch) + 1) / self.p.noise_var")
# Averages the natural parameters with Theorem 1's weights and maps the average to expectation
# parameters at the end, in place of averaging the expectation parameters.
NATURAL_AVERAGE = [
    ("mu = np.concatenate([m, (S + m[:, :, None] * m[:, None, :]).reshape(len(w), -1)], 1)",
     "mu = np.concatenate([eta1, eta2.reshape(len(w), -1)], 1)"),
    ("return avg[:d], avg[d:].reshape(d, d)",
     "S = np.linalg.inv(-2 * avg[d:].reshape(d, d)); m = S @ avg[:d]; return m, S + np.outer(m, m)"),
]


SELECTION = 'ngvikit.verify("thm1.*,x.*"'


def run_example(code: str):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)


def mutate(code: str, substitutions) -> str:
    for old, new in substitutions:
        assert code.count(old) == 1, f"the README example no longer contains exactly one '{old}'"
        code = code.replace(old, new)
    return code


def test_example_passes(readme_example):
    r = run_example(readme_example)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1].startswith("PASS"), r.stdout
    # The claims of the protocol ran against the implementation (not skipped).
    for claim in ("thm1.rate", "thm1.average", "thm1.first_step", "x.unbiased_iterate", "x.iterate_variance"):
        assert any(line.split()[:2] == ["PASS", claim] for line in r.stdout.splitlines()), r.stdout


# Each bug, with a claim of the README's selection that sees it. To keep the test short, each is run
# against that claim only: a claim's records do not depend on which other claims run, so the
# README's whole selection fails whenever this claim does. The schedule 1/(t+1) has γ₀ = 1, as
# Theorem 1's, so thm1.first_step cannot see it; x.iterate_variance does (Var η_T 23% off).
BUGS = [
    ("schedule 1/(t+1)", [SCHEDULE], "x.iterate_variance"),
    ("natural-parameter average", NATURAL_AVERAGE, "thm1.average"),
    ("batch scale n/(M+1)", [BATCH_SCALE], "x.unbiased_iterate"),
]


@pytest.mark.parametrize("bug, substitutions, claim", BUGS, ids=[b[0] for b in BUGS])
def test_example_fails_under_bug(readme_example, bug, substitutions, claim):
    code = mutate(readme_example, substitutions + [(SELECTION, f'ngvikit.verify("{claim}"')])
    r = run_example(code)
    assert r.returncode == 1, f"{bug}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    assert r.stdout.splitlines()[-1].startswith("FAIL"), r.stdout
    assert any(line.split()[:2] == ["FAIL", claim] for line in r.stdout.splitlines()), r.stdout


def test_documented_kill_matrix_of_the_example(readme_example, root):
    """docs/python.md's kill matrix of the README's example: thm1.first_step and thm1.average kill
    every mutation of the conjugate-ngd protocol."""
    import ngvikit

    line = 'km = ngvikit.kill_matrix("thm1.first_step,thm1.average", NumpyNgd())'
    assert line in (root / "docs" / "python.md").read_text(), "docs/python.md no longer shows this kill matrix"
    head = readme_example.split("result = ngvikit.verify")[0]
    assert "class NumpyNgd" in head
    ns = {}
    exec(head, ns)
    exec(line, ns)
    km = ns["km"]
    assert km["implementation"].passed
    wanted = ngvikit.mutations.mutations_for(ns["NumpyNgd"]())
    assert sorted(km["mutations"]) == sorted(wanted) and len(wanted) == 4
    for name, m in km["mutations"].items():
        assert m["killed"], f"{name}: no record flipped"
