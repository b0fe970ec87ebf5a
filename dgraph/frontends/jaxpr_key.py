"""A traced JAX program's structural key, and the compiled ``J·v`` references kept by it.

Each build of a JAX function's graph makes a new reference (:class:`~.jaxpr_arrays.JaxJvp`:
``jax.jit`` of ``jvp(f)``, a new function each time), so building the same program again —
another mode, language or option of ``make_function``, as ``benchmarks/real_programs_hessian.py``
does seven times per program — compiled the same XLA module again (a module named
``jit_jvp``; the survey's intermittent "Very slow compile" was one). :func:`program_key` is
equal for two traced programs only where they compute the same thing: the same equations
in the same order (variables by their first appearance), the same primitives, parameters,
literals, shapes and types, and constants of the same bytes; :func:`kept_reference` keeps
the compiled program of the last keys used (:data:`REFERENCES`), so that a second
build compiles no reference; the reader's constant folds, compiled per build too, are
kept the same way (:data:`PREFOLDS`, :func:`equations_key`). A reference is kept by the key
of its program with the floating-point literals of its equations read as arguments
(:func:`lifted_literals`): programs that differ only in such numbers (``scale * f(x)`` at
scales 1e-6, 1 and 1e6) share one compiled program, each run given its own numbers.

A parameter of a kind the key cannot compare by value — an unhashable object other than
the arrays, programs and sequences read here — makes the program unkeyed (None): it is
compiled for its build, as before. A hashable parameter is compared as Python compares it,
with its type: a function (a callback, a custom rule) by identity, so a program holding
one made anew per trace is compiled anew.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = [
    "PREFOLDS",
    "REFERENCES",
    "Kept",
    "equations_key",
    "kept_reference",
    "lifted_literals",
    "program_key",
]

KEPT_BYTES = 2**26
"""The most bytes of constants a kept program may hold (64 MiB); a program with more is
compiled for its build and not kept."""


class Kept:
    """Compiled programs by :func:`program_key`, the last ``size`` keys used."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.programs: OrderedDict[tuple, Callable[..., Any]] = OrderedDict()

    def get(self, key: tuple | None, held: int, compile: Callable[[], Callable]) -> Callable:
        """The program kept for ``key``, else ``compile()``'s, kept (the least recently
        used dropped past ``size``) where ``key`` is not None and its constants' bytes
        ``held`` are at most :data:`KEPT_BYTES`."""
        if key is not None and key in self.programs:
            self.programs.move_to_end(key)
            return self.programs[key]
        program = compile()
        if key is not None and held <= KEPT_BYTES:
            self.programs[key] = program
            while len(self.programs) > self.size:
                self.programs.popitem(last=False)
        return program


REFERENCES = Kept(8)
"""The compiled ``J·v`` references (:class:`~.jaxpr_arrays.JaxJvp`): each holds an XLA
executable and its program's constants."""

PREFOLDS = Kept(64)
"""The reader's compiled constant folds (``_Reader.prefold``): a build has a few."""


def kept_reference(key: tuple | None, closed: Any, compile: Callable[[], Callable]) -> Callable:
    """:data:`REFERENCES`' program for ``key`` (``closed``: the program, whose constants
    it holds), else ``compile()``'s."""
    held = sum(int(getattr(c, "nbytes", 0) or 0) for c in closed.consts)
    return REFERENCES.get(key, held, compile)


def lifted_literals(closed: Any) -> tuple[Any, list[np.ndarray]]:
    """``closed`` (a closed jaxpr) with each floating-point literal operand of its own
    equations (not those of the programs inside them) read from a new leading input, and
    the literals' values for those inputs, in order (of their literals' dtypes): the same
    computation, whose :func:`program_key` no longer depends on those numbers. Unchanged,
    with no values, where it has none.

    >>> import jax, jax.numpy as jnp
    >>> from jax.extend.core import jaxpr_as_fun
    >>> a = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.ones(3))
    >>> b = jax.make_jaxpr(lambda x: jnp.sin(x) * 3.0)(jnp.ones(3))
    >>> (la, va), (lb, vb) = lifted_literals(a), lifted_literals(b)
    >>> program_key(la) == program_key(lb), [float(v) for v in va + vb]
    (True, [2.0, 3.0])
    >>> x = jnp.linspace(0.0, 1.0, 3)
    >>> bool((jaxpr_as_fun(lb)(*vb, x)[0] == jaxpr_as_fun(b)(x)[0]).all())
    True
    """
    from jax.extend.core import ClosedJaxpr, Literal, Var

    jaxpr = closed.jaxpr
    added: list[Any] = []
    values: list[np.ndarray] = []
    eqns = []
    try:
        for eqn in jaxpr.eqns:
            ins = list(eqn.invars)
            for k, v in enumerate(ins):
                if isinstance(v, Literal) and np.asarray(v.val).dtype.kind == "f":
                    ins[k] = Var(v.aval)
                    added.append(ins[k])
                    values.append(np.asarray(v.val, dtype=v.aval.dtype))
            changed = any(a is not b for a, b in zip(ins, eqn.invars, strict=True))
            eqns.append(eqn.replace(invars=ins) if changed else eqn)
        if not added:
            return closed, []
        lifted = jaxpr.replace(invars=[*added, *jaxpr.invars], eqns=eqns)
    except (TypeError, AttributeError):  # an older JAX's Var or Jaxpr: kept as it is
        return closed, []
    return ClosedJaxpr(lifted, closed.consts), values


def equations_key(leaves: Sequence[Any], eqns: Sequence[Any]) -> tuple | None:
    """:func:`program_key` of the program of ``eqns`` (in order) on the variables
    ``leaves``, returning every equation's outputs (the reader's constant folds)."""
    outs = [v for e in eqns for v in e.outvars]
    program = SimpleNamespace(constvars=[], invars=list(leaves), eqns=list(eqns), outvars=outs)
    try:
        return _jaxpr(program, ())
    except _Unkeyed:
        return None


class _Unkeyed(Exception):
    """A parameter the key cannot compare by value."""


def program_key(closed: Any, options: Any = None) -> tuple | None:
    """The structural key of a closed jaxpr (``jax.make_jaxpr``'s) compiled with XLA's
    ``options`` (a mapping or None), or None where a parameter cannot be keyed
    (module docstring).

    >>> import jax, jax.numpy as jnp
    >>> a = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.ones(3))
    >>> b = jax.make_jaxpr(lambda y: jnp.sin(y) * 2.0)(jnp.ones(3))
    >>> c = jax.make_jaxpr(lambda y: jnp.sin(y) * 3.0)(jnp.ones(3))
    >>> program_key(a) == program_key(b), program_key(a) == program_key(c)
    (True, False)
    """
    try:
        return (
            _jaxpr(closed.jaxpr, closed.consts),
            tuple(sorted((str(k), repr(v)) for k, v in (options or {}).items())),
        )
    except _Unkeyed:
        return None


def _jaxpr(jaxpr: Any, consts: Any) -> tuple:
    names: dict[Any, int] = {}

    def var(v: Any) -> tuple:
        if hasattr(v, "val"):  # a Literal: its value, type and shape
            return ("literal", _array(v.val), _aval(v.aval))
        if type(v).__name__ == "DropVar":
            return ("drop", _aval(v.aval))
        return (names.setdefault(v, len(names)), _aval(v.aval))

    head = (
        tuple(var(v) for v in jaxpr.constvars),
        tuple(_array(c) for c in consts),
        tuple(var(v) for v in jaxpr.invars),
    )
    eqns = tuple(
        (
            eqn.primitive.name,
            tuple(var(v) for v in eqn.invars),
            tuple(sorted((k, _param(p)) for k, p in eqn.params.items())),
            tuple(var(v) for v in eqn.outvars),
        )
        for eqn in jaxpr.eqns
    )
    effects = tuple(sorted(map(repr, getattr(jaxpr, "effects", ()))))
    return head, eqns, tuple(var(v) for v in jaxpr.outvars), effects


def _aval(aval: Any) -> tuple:
    shape = getattr(aval, "shape", None)
    dtype = getattr(aval, "dtype", None)
    return (
        type(aval).__name__,
        None if shape is None else tuple(shape),
        str(dtype),
        bool(getattr(aval, "weak_type", False)),
    )


def _array(value: Any) -> tuple:
    """An array's (or a scalar's) type, shape and a digest of its bytes."""
    a = np.asarray(value)
    if a.dtype == object:
        raise _Unkeyed
    digest = hashlib.blake2b(np.ascontiguousarray(a).tobytes(), digest_size=16).digest()
    return (type(value).__name__, a.dtype.str, a.shape, digest)


def _param(p: Any) -> Any:
    if hasattr(p, "jaxpr") and hasattr(p, "consts"):  # a ClosedJaxpr
        return ("closed", _jaxpr(p.jaxpr, p.consts))
    if hasattr(p, "eqns") and hasattr(p, "invars"):  # a Jaxpr
        return ("jaxpr", _jaxpr(p, ()))
    if isinstance(p, np.ndarray):
        return ("array", _array(p))
    if isinstance(p, (tuple, list)):  # a NamedTuple's type named too
        kind = type(p)
        return (kind.__module__, kind.__qualname__, tuple(_param(q) for q in p))
    if isinstance(p, dict):
        return ("dict", tuple(sorted((repr(k), _param(v)) for k, v in p.items())))
    try:
        hash(p)
    except TypeError:
        raise _Unkeyed from None
    kind = type(p)
    return (kind.__module__, kind.__qualname__, p)
