"""The peer tools' own test functions (Graphax, asdex, sparsejac), re-stated here, and the
harness that runs each through ``from_jax(level="array")`` and ``make_function`` against
JAX's ``jacrev``/``jacfwd`` (tests/test_peers.py; benchmarks/peers.py prints the table)."""

from .asdex_cases import CASES as ASDEX
from .asdex_interpret_cases import CASES as ASDEX_INTERPRET
from .graphax_cases import CASES as GRAPHAX
from .sparsejac_cases import CASES as SPARSEJAC

CASES = [*GRAPHAX, *ASDEX, *ASDEX_INTERPRET, *SPARSEJAC]
