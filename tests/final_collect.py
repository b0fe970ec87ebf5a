"""pytest's last collections of a process made cheap, with nothing left out.

At the end of every process that ran tests (each xdist worker and the controller),
pytest's ``unraisableexception`` plugin calls ``gc.collect()`` five times, each a walk over
every live object ("a single collection doesn't necessarily collect everything": a
finalizer may leave new garbage), then reports each exception a finalizer raised. After a
worker's share of the suite (sympy's caches, JAX's, the test modules) a walk takes
0.4-0.7 CPU-s on 0.6 million objects and more on larger heaps, five times over.

:func:`unconfigure` (``pytest_unconfigure``, which runs before that cleanup, with pytest's
hook for unraisable exceptions still in place) first empties the caches no test will read
again (:func:`clear_caches`: sympy's and JAX's, a quarter of the objects left after
``tests/test_rules_vs_jax.py``), then collects until a collection finds nothing
unreachable (at most those five times, :func:`collect`), then freezes the survivors
(``gc.freeze()``), so that pytest's own five collections walk only what is made after it.
A collection that finds no unreachable object means there is no cyclic garbage left, so
pytest's five would free nothing and run no finalizer: every exception they could report
is raised, and reported, here (what the caches held is freed by reference counting, or by
these collections, with the hook in place). Where garbage remains after five, nothing is
frozen and pytest collects as before.
"""

from __future__ import annotations

import gc
import sys

ROUNDS = 5  # pytest's gc_collect_iterations


def unconfigure(config) -> None:
    """The caches emptied (:func:`clear_caches`), then :func:`collect`."""
    clear_caches()
    collect()


def clear_caches() -> None:
    """sympy's cache and JAX's staging and compilation caches emptied, each where its
    module was imported: what they hold is freed now, by reference counting, instead of
    being walked by every collection that follows and freed at the interpreter's exit."""
    cache = sys.modules.get("sympy.core.cache")
    if cache is not None:
        cache.clear_cache()
    jax = sys.modules.get("jax")
    if jax is not None:
        jax.clear_caches()


def collect() -> None:
    """Collect until nothing is unreachable (at most :data:`ROUNDS` times), then freeze the
    survivors so that pytest's final collections skip them."""
    for _ in range(ROUNDS):
        if gc.collect() == 0:
            gc.freeze()
            return
