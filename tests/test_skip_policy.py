"""The CI skip policy (tests/skip_policy.py): in CI a skip whose reason is not allowed fails
the run, with xdist's workers too; outside CI skips are only listed; every allowed reason
says why. Run on a tiny suite in a temporary directory, in a fresh pytest process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .skip_policy import ALLOWED, unexpected

ROOT = Path(__file__).resolve().parents[1]

SUITE = {
    "conftest.py": "from tests.skip_policy import pytest_sessionstart, pytest_terminal_summary\n",
    "test_some.py": """\
import pytest


def test_runs():
    assert 1 + 1 == 2


@pytest.mark.skipif(True, reason="needs CuPy and a CUDA GPU")
def test_on_a_gpu():
    pass


def test_latex():
    pytest.skip("pdflatex not installed")
""",
    "test_module_skip.py": """\
import pytest

pytest.importorskip("no_such_module_here", reason="no_such_module_here is not installed")


def test_never():
    pass
""",
}


def _run(tmp_path: Path, ci: str | None, *args: str, only: str = "") -> tuple[int, str]:
    for name, text in SUITE.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if ci is not None:
        env["CI"] = ci
    # xdist alone of the installed plugins: loading every one (hypothesis, anyio, ...) took
    # most of each run's time, in the controller and in each worker
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    command = [sys.executable, "-m", "pytest", "-p", "xdist.plugin", "-p", "no:cacheprovider"]
    command += ["-rs", *args]
    done = subprocess.run(
        [*command, *([only] if only else [])],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("workers", ["0", "2"])
def test_in_ci_an_unexpected_skip_fails_the_run(tmp_path, workers):
    code, out = _run(tmp_path, "true", "-n", workers)
    assert code == 1, out
    assert "skips CI does not allow" in out
    assert "test_some.py::test_latex: pdflatex not installed" in out
    assert "test_module_skip.py: no_such_module_here is not installed" in out
    assert "2 unexpected skip(s)" in out
    assert not re.search(r"test_on_a_gpu:", out)  # allowed: listed by -rs only
    assert "1 passed, 3 skipped" in out


def test_in_ci_allowed_skips_pass(tmp_path):
    code, out = _run(tmp_path, "true", "-n", "0", only="test_some.py::test_on_a_gpu")
    assert code == 0, out
    assert "SKIPPED [1] test_some.py:8: needs CuPy and a CUDA GPU" in out
    assert "skips CI does not allow" not in out


@pytest.mark.parametrize("ci", [None, "false"])
def test_outside_ci_skips_are_listed_not_failed(tmp_path, ci):
    code, out = _run(tmp_path, ci, "-n", "0")
    assert code == 0, out
    assert "pdflatex not installed" in out and "skips CI does not allow" not in out


def test_a_failure_stays_a_failure(tmp_path):
    (tmp_path / "test_fails.py").write_text("def test_no():\n    assert 1 == 2\n")
    code, out = _run(tmp_path, "true", "-n", "0")
    assert code == 1 and "1 failed" in out and "skips CI does not allow" in out


class _Report:
    def __init__(self, nodeid, longrepr):
        self.nodeid, self.longrepr = nodeid, longrepr


def test_reasons_match_whole_and_in_every_form():
    """A worker's report carries its longrepr as a list; a reason must match whole."""
    reports = [
        _Report("a", ("f.py", 3, "Skipped: no nvcc")),
        _Report("b", ["f.py", 4, "Skipped: no nvcc on this machine"]),
        _Report("c", "Skipped: casadi not installed"),
        _Report("d", ("f.py", 5, "Skipped: JAX is not installed")),
    ]
    assert unexpected(reports) == [
        ("b", "no nvcc on this machine"),
        ("d", "JAX is not installed"),
    ]


def test_every_allowed_reason_says_why():
    for pattern, why in ALLOWED:
        re.compile(pattern)
        assert len(why) > 20, pattern
    assert len({p for p, _ in ALLOWED}) == len(ALLOWED)
