"""sympy's caches enlarged in the run's processes.

sympy remembers the results of its constructors and evaluations (``Mul``'s flattening,
assumptions, ``diff``'s steps) in least-recently-used caches of ``SYMPY_CACHE_SIZE``
entries each, 1,000 by default, read once when sympy is imported. The code generator's
passes (``cse`` over each program, then again after each pass of every pass order) and
the tests' sympy references rebuild the same subexpressions many times over, and at
1,000 entries many of them had been dropped again (tests/test_codegen.py fills none of
them to 100,000: ``AssocOp.__new__``, the fullest, holds 78,000). Building
tests/test_codegen.py's 21 suite programs took 11.3 and 12.0 CPU-s at 1,000 entries,
9.8 and 10.9 at 100,000, run side by side; the whole file about 3 % less.

The tests check values and generated text, never speed, and a cache changes neither (the
generated code of tests/test_codegen.py's programs is the same text at both sizes). So the
run's processes get ``SYMPY_CACHE_SIZE=100000`` before anything imports sympy (this module
is imported first by tests/conftest.py); the workers and the processes a test starts
inherit it. A value the caller set is kept.
"""

from __future__ import annotations

import os
import sys

ENV = "SYMPY_CACHE_SIZE"
SIZE = "100000"

if ENV not in os.environ and "sympy" not in sys.modules:
    os.environ[ENV] = SIZE
