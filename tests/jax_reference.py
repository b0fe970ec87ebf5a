"""JAX derivative references for the tests, jitted, and stored as data.

Eager ``jax.hessian(g)(x)`` runs op by op and compiles one small XLA program per new
primitive and shape; under ``jax.jit`` the whole transform compiles once, which is several
times cheaper for the reference programs of the tests (same values). Use these only for
functions that take arrays and return arrays (no Python branching on values). Each
transform is kept per function, so a test that calls one at several points of one shape
compiles it once (the last 64 kept: each holds its compiled program).

Stored references (tests/jax_reference_store.py): a call looks its value up in
``tests/jax_references/<test module>.npz`` by a key of the transform, the function's
primal program and the point, and computes it live with JAX only on a miss; the values
returned are NumPy arrays (read-only) either way. To record the misses, run the tests
with ``DGRAPH_WRITE_JAX_REFERENCES=1``; to regenerate a module's store, delete its file
and run its tests so (``-n 2`` is safe: writes are merged under a lock).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import numpy as np

from . import jax_reference_store as store

__all__ = [
    "Reference",
    "assert_hessian",
    "forward_hessian",
    "grad",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "references",
    "value_gradient_hessian",
]

Argnums = int | Sequence[int]


def _argnums(argnums: Argnums) -> int | tuple[int, ...]:
    return argnums if isinstance(argnums, int) else tuple(argnums)


def _value_gradient_hessian(g: Callable[..., Any], argnums: int) -> Callable[..., Any]:
    """``x -> (g(x), jax.grad(g)(x), jax.hessian(g)(x))`` of a scalar ``g``: the Hessian
    is ``jax.hessian``'s ``jacfwd(jacrev(g))``, and the value and gradient are its forward
    pass's primal outputs, so XLA compiles the Hessian's program alone (not three
    programs, the Hessian's holding the other two)."""

    def gradient(x: Any) -> tuple[Any, tuple[Any, Any]]:
        value, grad = jax.value_and_grad(g, argnums)(x)
        return grad, (value, grad)

    def all_three(x: Any) -> tuple[Any, Any, Any]:
        hess, (value, grad) = jax.jacfwd(gradient, has_aux=True)(x)
        return value, grad, hess

    return all_three


def _value_and_jacfwd(g: Callable[..., Any], argnums: Any) -> Callable[..., Any]:
    return lambda *xs: (g(*xs), jax.jacfwd(g, argnums)(*xs))


TRANSFORMS: dict[str, Callable[[Callable[..., Any], Any], Callable[..., Any]]] = {
    "grad": lambda g, argnums: jax.grad(g, argnums),
    "hessian": lambda g, argnums: jax.hessian(g, argnums),
    "jacfwd": lambda g, argnums: jax.jacfwd(g, argnums),
    "jacrev": lambda g, argnums: jax.jacrev(g, argnums),
    "jacobian": lambda g, argnums: jax.jacobian(g, argnums),
    "forward_hessian": lambda g, argnums: jax.jacfwd(jax.jacfwd(g, argnums), argnums),
    "value_and_grad": lambda g, argnums: jax.value_and_grad(g, argnums),
    "value_and_jacfwd": _value_and_jacfwd,
    "value_gradient_hessian": _value_gradient_hessian,
}


@functools.lru_cache(maxsize=64)  # bounded: a test's functions are new objects
def _jitted(transform: str, g: Callable[..., Any], argnums: int | tuple[int, ...]) -> Any:
    return jax.jit(TRANSFORMS[transform](g, argnums))


class Reference(NamedTuple):
    """``TRANSFORMS[transform](g, argnums)(*args)``: one reference a test asks for."""

    transform: str
    g: Callable[..., Any]
    args: tuple[Any, ...]
    argnums: int | tuple[int, ...] = 0


def references(wanted: Sequence[Reference]) -> list[Any]:
    """JAX's values of ``wanted`` (read-only NumPy arrays in JAX's structure): each stored
    one from the test module's store (tests/jax_reference_store.py), the others computed
    live by JAX in one jitted program (one compile for them all; a single one through the
    per-function program kept above), and recorded where the store is being written."""
    module = store.caller_module()
    if module is not None and not (store.WRITING or store.has_store(module)):
        module = None  # nothing stored: no key to trace
    wanted = [w._replace(argnums=_argnums(w.argnums)) for w in wanted]
    found: list[Any] = [None] * len(wanted)
    missed: list[tuple[int, str | None]] = []
    for i, (transform, g, args, argnums) in enumerate(wanted):
        key = store.key_of(transform, g, args, argnums) if module else None
        value = None if key is None else store.lookup(module, key)
        if value is None:
            missed.append((i, key))
        else:
            found[i] = value
    live: list[Any] = []
    if len(missed) == 1:
        transform, g, args, argnums = wanted[missed[0][0]]
        live = [_jitted(transform, g, argnums)(*args)]
    elif missed:
        programs = [
            TRANSFORMS[wanted[i].transform](wanted[i].g, wanted[i].argnums) for i, _ in missed
        ]
        live = jax.jit(lambda every: [p(*a) for p, a in zip(programs, every, strict=True)])(
            [wanted[i].args for i, _ in missed]
        )
    for (i, key), value in zip(missed, live, strict=True):
        found[i] = store.as_numpy(value)
        if store.WRITING and key is not None:
            store.record(module, key, found[i])
    return found


class _Stored:
    """``jax.jit(TRANSFORMS[transform](g, argnums))`` as a callable whose values come from
    :func:`references` (live, as JAX arrays, where called inside a JAX trace)."""

    def __init__(self, transform: str, g: Callable[..., Any], argnums: Argnums) -> None:
        self.transform, self.g, self.argnums = transform, g, _argnums(argnums)

    def __call__(self, *args: Any) -> Any:
        if any(isinstance(a, jax.core.Tracer) for a in jax.tree_util.tree_leaves(args)):
            return _jitted(self.transform, self.g, self.argnums)(*args)
        return references([Reference(self.transform, self.g, args, self.argnums)])[0]


def grad(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.grad(g, argnums))``."""
    return _Stored("grad", g, argnums)


def hessian(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.hessian(g, argnums))``."""
    return _Stored("hessian", g, argnums)


def jacfwd(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.jacfwd(g, argnums))``."""
    return _Stored("jacfwd", g, argnums)


def jacrev(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.jacrev(g, argnums))``."""
    return _Stored("jacrev", g, argnums)


def jacobian(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.jacobian(g, argnums))`` (reverse mode, as ``jax.jacobian``)."""
    return _Stored("jacobian", g, argnums)


def value_gradient_hessian(g: Callable[..., Any]) -> Callable[..., Any]:
    """``x -> (g(x), jax.grad(g)(x), jax.hessian(g)(x))`` of a scalar ``g``, one jitted
    program (:func:`_value_gradient_hessian`)."""
    return _Stored("value_gradient_hessian", g, 0)


def forward_hessian(g: Callable[..., Any]) -> Callable[..., Any]:
    """``jax.jit(jax.jacfwd(jax.jacfwd(g)))``: forward over forward (JAX's reverse mode
    refuses a while_loop)."""
    return _Stored("forward_hessian", g, 0)


def gradient_and_hessian_by_mode(g: Callable[..., Any], x: Any) -> dict[str, Any]:
    """JAX's gradient and Hessian of ``g`` at ``x`` as ``{"jacobian": …, "hessian": …}``
    (NumPy arrays), from one jitted :func:`value_gradient_hessian` program (the gradient is
    the Hessian's forward pass), not one per mode."""
    with jax.enable_x64(True):
        _, gradient, hessian_ = value_gradient_hessian(g)(x)
    return {"jacobian": gradient, "hessian": hessian_}


def assert_hessian(
    f: Callable[..., Any],
    f_jax: Callable[..., Any],
    x: Any,
    rtol: float = 1e-10,
    method: str | None = None,
):
    """``dgraph.hessian(f, x)`` (a NumPy program) equals ``jax.hessian`` of its JAX twin at
    ``x``, and so do the values, to ``rtol`` (absolute: ``rtol`` of the largest entry).
    ``method``: the Hessian's, as :func:`dgraph.hessian` takes it (None: its choice)."""
    import dgraph

    value, _, want = value_gradient_hessian(f_jax)(jax.numpy.asarray(x))
    assert np.isclose(f(x), float(value), rtol=1e-12)
    want = np.asarray(want)
    got = dgraph.hessian(f, x, method=method)(x)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want).max())
