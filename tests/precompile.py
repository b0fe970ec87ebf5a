"""Bytecode for the run's processes, compiled once by the process that starts the run.

Every process of a test run imports dgraph's ~260 modules (``--doctest-modules`` imports
them all) and the test files, and the command-line and notebook tests start more
processes that import dgraph again. Without bytecode on disk each process compiles them
from source, and pytest's workers each rewrite the asserts of the ~160 test files (half
of a worker's collection). Where ``PYTHONDONTWRITEBYTECODE`` is set nothing is ever
written, and in a fresh checkout the workers, starting together, all compile anyway.

So before the workers start, the process that starts the run writes what they would
read: ``dgraph/**/__pycache__/*.cpython-XY.pyc`` by :mod:`compileall` (the files any
Python run writes there unless told not to), and for the test files (``conftest.py`` and
what ``python_files`` matches, the files pytest rewrites) pytest's own cached rewrite,
``tests/__pycache__/*.cpython-XY-pytest-V.pyc``, the file pytest itself writes when
bytecode is allowed. Both places are git-ignored (``__pycache__/``). Both kinds of file
record the source's modification time and size, and the reader compiles from source
when they differ, so an edited file is never run stale; both are written to a temporary
file and renamed into place, so a concurrent reader sees a whole file or none.
Up-to-date files are not written again.

Writing the rewritten files uses pytest's own functions
(``_pytest.assertion.rewrite._rewrite_test``, ``_write_pyc``): the same code the worker
would compile, with the run's configuration. Where those names are missing, or asserts
are not rewritten (``--assert=plain``), or there are no workers (``-n 0``: the one process
rewrites only the files it collects), the test files are left to pytest.
``DGRAPH_TEST_PRECOMPILE=0`` turns all of it off.
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path

ENV = "DGRAPH_TEST_PRECOMPILE"
ROOT = Path(__file__).resolve().parent.parent


def _rewriter(config):
    """pytest's rewrite and pyc writer, or None where this pytest lacks them."""
    if config.getoption("assertmode", "rewrite") != "rewrite":
        return None
    try:
        from _pytest.assertion import assertstate_key
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            get_cache_dir,
        )
        from _pytest.pathlib import fnmatch_ex
    except ImportError:
        return None
    state = config.stash.get(assertstate_key, None)
    if state is None:
        return None
    patterns = list(config.getini("python_files"))

    def rewrites(path: Path) -> bool:
        return path.name == "conftest.py" or any(fnmatch_ex(p, path) for p in patterns)

    def rewrite(path: Path) -> None:
        pyc = get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)
        if _read_pyc(path, pyc) is not None:
            return  # up to date
        pyc.parent.mkdir(exist_ok=True)
        stat, code = _rewrite_test(path, config)
        _write_pyc(state, code, stat, pyc)

    return rewrites, rewrite


def configure(config) -> None:
    """Write the bytecode the run's processes will read (the starting process only)."""
    if hasattr(config, "workerinput") or os.environ.get(ENV, "1") == "0":
        return
    rewriter = _rewriter(config)
    # the test files only for workers: one process (-n 0) rewrites just what it collects
    workers = bool(getattr(config.option, "numprocesses", None))
    for path in sorted((ROOT / "dgraph").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py")):
        if not (path.parent / "__init__.py").exists():
            continue  # not a module (tests/hostile/, the command line's inputs)
        try:
            if rewriter is None or not rewriter[0](path):
                compileall.compile_file(path, quiet=2)
            elif workers:
                rewriter[1](path)
        except (OSError, SyntaxError):
            pass  # a read-only checkout, a broken file: left to the importing process
