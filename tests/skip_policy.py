"""Which skips CI accepts: every reason a test may skip there, each with why; in CI (the
environment variable ``CI`` set, as ``.ci/run`` runs) any other skip fails the run.

``sh setup.sh test`` installs everything the suite uses (JAX, OR-Tools, the explorer's
packages, graphviz, chromium, pdflatex, a C compiler), so a test skipped for want of one of
them means an install failed, and would otherwise pass unnoticed. The hooks are imported by
``tests/conftest.py``; with pytest-xdist they run in the controller, which holds every
worker's reports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

import pytest

# (pattern matched against the whole skip reason, why CI may skip for it)
ALLOWED: tuple[tuple[str, str], ...] = (
    (
        r"needs CuPy and a CUDA GPU",
        "CI machines have no GPU; the generated kernels run there through the C++ host"
        " build, and on a GPU with benchmarks/gpu.py",
    ),
    (r"no nvcc", "CI machines have no CUDA toolkit; the CUDA text is checked without it"),
    (r"JAX has no GPU here", "as above: CI's JAX is the CPU build"),
    (
        r"CuPy is installed here",
        "on a GPU machine the error for a missing CuPy cannot be raised",
    ),
    (
        r"the site is not built here \(sh setup\.sh docs builds it\)",
        "the site is built by `sh setup.sh docs` (Sphinx, minutes), not by the test job",
    ),
    (
        r"executed, with the same check for errors, by tests/test_browser\.py",
        "the notebook runs once, in chromium, in tests/test_browser.py",
    ),
    (
        r"casadi not installed",
        "CasADi is a benchmark baseline (the bench extra), not installed by"
        " `sh setup.sh test`; the comparison's other rows run",
    ),
)

_SESSION = pytest.StashKey[pytest.Session]()


def in_ci() -> bool:
    """Whether the environment variable ``CI`` says this is a CI run."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason a skipped report gives (a worker's report comes back with its
    ``longrepr`` a list rather than a tuple)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple | list) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason.removeprefix("Skipped: ")


def unexpected(
    reports: Iterable[pytest.TestReport | pytest.CollectReport],
    allowed: Iterable[tuple[str, str]] = ALLOWED,
) -> list[tuple[str, str]]:
    """(test id, reason) of every skip whose reason no pattern of ``allowed`` matches."""
    patterns = [re.compile(pattern) for pattern, _ in allowed]
    out = []
    for report in reports:
        reason = skip_reason(report)
        if not any(p.fullmatch(reason) for p in patterns):
            out.append((report.nodeid, reason))
    return out


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_SESSION] = session


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """In CI, list the skips no entry of :data:`ALLOWED` explains and fail the run."""
    if hasattr(config, "workerinput") or not in_ci():
        return
    bad = unexpected(terminalreporter.stats.get("skipped", []))
    if not bad:
        return
    terminalreporter.section("skips CI does not allow", sep="=", red=True, bold=True)
    for nodeid, reason in bad:
        terminalreporter.line(f"{nodeid or '(collection)'}: {reason}")
    terminalreporter.line(
        f"{len(bad)} unexpected skip(s): install what they need, or add the reason, with"
        " why, to ALLOWED in tests/skip_policy.py"
    )
    session = config.stash[_SESSION]
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
