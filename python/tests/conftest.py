"""Shared fixtures of the ngvikit package's tests: the repository root (NGVIKIT_ROOT, set by
scripts/install-python.sh) and the README's Python example."""
import os
import pathlib
import re

import pytest


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    r = os.environ.get("NGVIKIT_ROOT")
    if not r:
        r = str(pathlib.Path(__file__).resolve().parents[2])
    return pathlib.Path(r)


@pytest.fixture(scope="session")
def readme_example(root) -> str:
    text = (root / "README.md").read_text()
    m = re.search(r"# --- python example begin ---\n(.*?)# --- python example end ---", text, re.S)
    assert m, "README.md has no python example block"
    return m.group(1)
