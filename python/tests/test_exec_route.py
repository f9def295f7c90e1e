"""The process route (ngvi verify --algorithm 'exec:...', docs/protocol.md) and the in-process Python
route give the same records for the same implementation and seed: the reference client's NumpyNgd,
served over the line protocol by clients/python/conjugate_ngd_client.py and handed to
ngvikit.verify directly. Values are compared exactly (the protocol writes doubles with round-trip
precision, so both routes compute with the same numbers)."""
import importlib.util
import json
import math
import os
import subprocess
import sys

import pytest

import ngvikit

# thm1.first_step's one step and thm1.average's runs of 100 steps per instance, each step on batches
# the claim draws from its seed: both routes must hand the program the same problem, natural
# parameters and batches, and read back the same numbers. (x.unbiased_iterate, 0.17 million step
# calls, is put to the same client over the process route in NgviCli.exec_protocol.)
CLAIMS = "thm1.first_step,thm1.average"


@pytest.fixture(scope="module")
def client(root):
    path = root / "clients" / "python" / "conjugate_ngd_client.py"
    spec = importlib.util.spec_from_file_location("conjugate_ngd_client", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return path, mod


class InProcess:
    """The client's NumpyNgd behind ngvikit's interface (its trajectories read the problem as the
    line protocol's JSON object)."""

    def __init__(self, mod):
        self.impl = mod.NumpyNgd()
        self.name, self.version = self.impl.name, self.impl.version

    def start(self, p):
        return self.impl.start({"X": p.X, "y": p.y, "noise_var": p.noise_var,
                                "prior_natural": {"eta1": p.prior_natural[0], "eta2": p.prior_natural[1]}})


def test_process_and_in_process_routes_agree(client, tmp_path):
    ngvi = os.environ.get("NGVI_BINARY")
    if not ngvi or not os.path.exists(ngvi):
        pytest.skip("NGVI_BINARY (the ngvi command) not given")
    path, mod = client
    out = tmp_path / "exec.json"
    r = subprocess.run([ngvi, "verify", "--algorithm", f"exec:{sys.executable} {path}", "--claims", CLAIMS,
                        "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    doc = json.loads(out.read_text())
    assert doc["meta"]["implementation"] == "numpy-ngd"
    exec_records = doc["records"]
    inproc = ngvikit.verify(CLAIMS, InProcess(mod)).records
    assert len(exec_records) == len(inproc) > 0
    for a, b in zip(exec_records, inproc):
        assert (a["claim"], a["instance"], a["kind"], a["verdict"]) == (b["claim"], b["instance"], b["kind"], b["verdict"])
        for f in ("lhs", "rhs", "margin"):
            x, y = (math.nan if a[f] is None else a[f]), b[f]  # claims.json writes NaN as null
            assert x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)), (a["instance"], f, x, y)
