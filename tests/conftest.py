"""Shared fixtures: the paper graphs, and hypothesis settings for the property tests; the
hooks that fail a CI run on a skip not explained in tests/skip_policy.py; XLA's flags and
one compilation cache for the run's processes (tests/xla_compile.py); their bytecode
written once, before the workers start (tests/precompile.py); NumPy's huge-page requests
off (tests/numpy_pages.py); the cyclic collector's young collections less often
(tests/gc_thresholds.py); at the end sympy's and JAX's caches emptied, then the garbage
collections walked until clean (twice), not five times (tests/final_collect.py); sympy's
caches enlarged before sympy is imported (tests/sympy_cache.py)."""

from __future__ import annotations

from . import sympy_cache  # noqa: F401 (first: sympy's cache size, read at its import)

# isort: split

import pytest
from hypothesis import HealthCheck, settings

from dgraph.frontends import bundled

from . import c_builds, final_collect, gc_thresholds, numpy_pages, precompile, xla_compile
from .skip_policy import pytest_sessionstart, pytest_terminal_summary  # noqa: F401 (hooks)

# the command line's hostile inputs (tests/hostile/README.md), not modules: --doctest-modules
# would import them in every process (one loads sympy.physics) and find no doctest there
collect_ignore = ["hostile"]


def pytest_configure(config):
    precompile.configure(config)  # bytecode and rewritten test files, once for the run
    xla_compile.configure(config)  # XLA's flags, one compilation cache for the run
    numpy_pages.configure(config)  # no huge-page requests: no compaction stalls
    gc_thresholds.configure(config)  # young collections less often


def pytest_unconfigure(config):
    xla_compile.unconfigure(config)
    final_collect.unconfigure(config)  # last: pytest's five collections then walk nothing


@pytest.fixture(scope="module", autouse=True)
def _c_for_values(request):
    """Each module's C and C++ builds at -O0 (tests/c_builds.py), or at the -O2 users get
    where the module is marked ``c_optimized``."""
    if request.node.get_closest_marker("c_optimized") is not None:
        yield
        return
    with c_builds.unoptimized():
        yield


settings.register_profile(
    "dgraph", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("dgraph")

SIN_TRACE = """\
inputs: x0, x1
outputs: y
v1 = sin(x1)
v2 = x0*v1
y = v2*v1
"""


@pytest.fixture
def sin_graph():
    """Naumann's y = x0 sin(x1) sin(x1)."""
    return bundled("naumann_sin.trace")


@pytest.fixture
def discrepancy_graph():
    """Naumann's vertex-edge discrepancy graph."""
    return bundled("naumann_discrepancy.json")


@pytest.fixture
def two_blocks_graph():
    """Zhou's two chained simple blocks r -> {a, b} -> v -> {c, d} -> t."""
    return bundled("zhou_two_blocks.json")


@pytest.fixture
def loops_as_regions(monkeypatch):
    """Loops kept as regions even where their steps are independent (a sum of terms, which
    ``dgraph.frontends.jaxpr_reductions`` otherwise runs as a map): the tests of the
    regions' sweeps use such loops."""
    from dgraph.frontends import jaxpr_reductions

    monkeypatch.setattr(jaxpr_reductions, "MAP_LIMIT", 0)


@pytest.fixture
def choice_runs(monkeypatch) -> list[tuple[str, object]]:
    """The methods (with their budgets) the codegen choice accumulates, from an empty
    cache of choices (``dgraph.codegen.selection``: none kept from another test)."""
    from collections import OrderedDict

    from dgraph.codegen import selection

    runs: list[tuple[str, object]] = []
    accumulate = selection.accumulate

    def recording(graph, method="markowitz", **options):
        runs.append((method, options.get("budget")))
        return accumulate(graph, method, **options)

    monkeypatch.setattr(selection, "accumulate", recording)
    monkeypatch.setattr(selection, "_CHOICES", OrderedDict())
    return runs
