"""Per-step values of a scan body that depend on its constants alone, computed before the
program runs: the random numbers of a loop that splits a PRNG key.

A body that draws ``jax.random.normal(sub)`` from a key it carries and splits
(``key, sub = split(key)``), or from a key per step scanned over (``split(key, T)``),
computes the same numbers whatever the inputs: their equations read only the loop's
constants, the keys and the counters. The reader has no array-level form for keys
(``random_bits``, ``threefry2x32``: no derivative, no NumPy dtype), so those equations are
taken out of the body (*hoisted*): :func:`hoist` runs them alone as one ``lax.scan``,
stacks the values the rest of the body reads (the frontier) into new ``xs`` of the loop,
and gives the body without them; a key carried is passed through unchanged there, and
the loop's results that depend on constants alone (the final key, stacked draws) are
the values that scan computed. The derivative of the rest is the body's as before: the
draws are constants of each step, as JAX's own derivative treats them.

Hoisting is used only where the constants' part touches a key; other loops are read as
they were (their counters are the reader's own, :mod:`.jaxpr_steps`), their results on
constants alone computed by the same run (:func:`constant_outputs`: the counter a
gradient stacks as a residual).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .jaxpr_exact import exact_program

__all__ = [
    "HOIST_LIMIT",
    "NUMPY_SCAN_MOST",
    "Hoisted",
    "constant_outputs",
    "hoist",
    "varying_vars",
]

HOIST_LIMIT = 10_000_000  # entries of the stacked values a hoisted part may make

NUMPY_SCAN_MOST = 4_000
"""The most equations times steps of a scan body's part on constants run step by step
by NumPy (:func:`~.jaxpr_exact.exact_program`: a ``fori_loop``'s counter, its
comparisons and selections) rather than as one ``lax.scan``, whose lowering and compile
cost some 0.05–0.1 CPU s each; NumPy takes some 10–20 µs an equation."""


@dataclass(frozen=True)
class Hoisted:
    """The body to read (``closed``: the hoisted equations out, the frontier as new last
    inputs, its keys integers), the frontier's stacked values (new ``xs`` operands, in
    order), the loop's results computed from the constants alone (output index ->
    value) and the operands standing in for its keys."""

    closed: Any
    operands: list[np.ndarray]
    outputs: dict[int, Any]
    stand_ins: dict[int, np.ndarray]  # operand index -> integers in place of a key


def varying_vars(jaxpr, n_consts: int, n_carry: int, fixed: list[bool]) -> set:
    """The body's variables that depend on some input not ``fixed``, over every step (a
    carry varies where its next value does: iterated until nothing changes, at most once
    per carry)."""
    from jax.extend.core import Literal

    varying = [not f for f in fixed]
    while True:
        found = {v for v, d in zip(jaxpr.invars, varying, strict=True) if d}
        for eqn in jaxpr.eqns:
            if any(not isinstance(a, Literal) and a in found for a in eqn.invars):
                found.update(eqn.outvars)
        grown = [
            c
            for c in range(n_carry)
            if not varying[n_consts + c]
            and not isinstance(jaxpr.outvars[c], Literal)
            and jaxpr.outvars[c] in found
        ]
        if not grown:
            return found
        for c in grown:
            varying[n_consts + c] = True


def _numeric(var) -> bool:
    return isinstance(var.aval.dtype, np.dtype)


def _touches_a_key(eqn) -> bool:
    from jax.extend.core import Literal

    atoms = [a for a in eqn.invars if not isinstance(a, Literal)] + list(eqn.outvars)
    return any(not _numeric(a) for a in atoms)


def _value(x: Any) -> Any:
    """A constant operand for JAX: a boxed key (a 0-d object array) unboxed."""
    return x.item() if isinstance(x, np.ndarray) and x.dtype == object else x


def _held(x: Any) -> Any:
    """A result as the reader holds constants: NumPy, a key boxed whole."""
    if isinstance(getattr(x, "dtype", None), np.dtype):
        return np.asarray(x)
    box = np.empty((), dtype=object)
    box[()] = x
    return box


def hoist(closed, n_consts: int, n_carry: int, ins: list, length: int, reverse: bool):
    """The body without its equations on constants alone where they touch a PRNG key
    (:class:`Hoisted`), else None (no key there, a frontier value that is itself a key,
    more than :data:`HOIST_LIMIT` stacked entries, or effects)."""
    from jax.extend.core import ClosedJaxpr, Jaxpr, Literal

    jaxpr = closed.jaxpr
    varying = varying_vars(jaxpr, n_consts, n_carry, [isinstance(x, np.ndarray) for x in ins])
    constant_eqns = _constant_eqns(jaxpr, varying)
    if not any(_touches_a_key(e) for e in constant_eqns) or any(e.effects for e in jaxpr.eqns):
        return None
    hoisted = [e for e in constant_eqns if _touches_a_key(e) or not _scalar_integers(e)]
    made = {v for e in hoisted for v in e.outvars}
    kept = [e for e in jaxpr.eqns if not any(e is h for h in hoisted)]
    read = {a for e in kept for a in e.invars if not isinstance(a, Literal)}
    ys = [v for v in jaxpr.outvars[n_carry:] if not isinstance(v, Literal)]
    frontier = list(dict.fromkeys(v for e in hoisted for v in e.outvars if v in read or v in ys))
    if not all(_numeric(v) for v in frontier):
        return None
    if length * sum(int(np.prod(v.aval.shape)) for v in frontier) > HOIST_LIMIT:
        return None
    outs = [j for j, v in enumerate(jaxpr.outvars) if _free(v, varying)]
    found = _constant_scan(closed, n_consts, n_carry, ins, length, reverse, outs, frontier)
    if found is None:
        return None
    results, operands = found

    # the body to read: the hoisted equations out, the frontier its last inputs; a carry
    # they compute is passed through (its result is the value computed above)
    body_outs = [
        jaxpr.invars[n_consts + c] if c < n_carry and v in made else v
        for c, v in enumerate(jaxpr.outvars)
    ]
    body_ins, stand_ins = _keys_replaced(jaxpr, n_consts, n_carry, kept, body_outs, length)
    if body_ins is None:
        return None
    renamed = dict(zip(jaxpr.invars, body_ins, strict=True))  # a key passed through
    body_outs = [renamed.get(v, v) if c < n_carry else v for c, v in enumerate(body_outs)]
    body = Jaxpr(jaxpr.constvars, [*body_ins, *frontier], body_outs, kept, jaxpr.effects)
    return Hoisted(ClosedJaxpr(body, closed.consts), operands, results, stand_ins)


def constant_outputs(
    closed, n_consts: int, n_carry: int, ins: list, length: int, reverse: bool, skip=()
) -> dict[int, Any]:
    """The scan's results that depend on its constants alone (a ``fori_loop``'s counter
    stacked as a residual, the entries ``y[i]`` of a constant read at it), by output
    index, computed before the program runs by the body's equations on constants alone
    run as one scan; those in ``skip`` (results nothing reads) left out. Empty where
    there are none, or they cannot be evaluated here."""
    fixed = [isinstance(x, np.ndarray) for x in ins]
    if all(fixed):  # the whole loop on constants: the reader folds it
        return {}
    jaxpr = closed.jaxpr
    varying = varying_vars(jaxpr, n_consts, n_carry, fixed)
    outs = [
        j
        for j, v in enumerate(jaxpr.outvars)
        if j not in skip and _free(v, varying) and _numeric(v)
    ]
    if not outs:
        return {}
    found = _constant_scan(closed, n_consts, n_carry, ins, length, reverse, outs, [])
    return {} if found is None else found[0]


def _free(atom, varying: set) -> bool:
    from jax.extend.core import Literal

    return isinstance(atom, Literal) or atom not in varying


def _constant_eqns(jaxpr, varying: set) -> list:
    """The body's equations on constants alone, in order."""
    return [e for e in jaxpr.eqns if e.outvars and all(_free(v, varying) for v in e.outvars)]


def _constant_scan(closed, n_consts, n_carry, ins, length, reverse, outs, extra):
    """The body's equations on constants alone run as one ``lax.scan`` (the fixed carries
    its carries): the results ``outs`` (output index -> value; a carry its final value)
    and ``extra`` body values stacked over the steps; None where it cannot run here."""
    import jax
    from jax.extend.core import ClosedJaxpr, Jaxpr, jaxpr_as_fun

    jaxpr = closed.jaxpr
    varying = varying_vars(jaxpr, n_consts, n_carry, [isinstance(x, np.ndarray) for x in ins])
    fixed = [v not in varying for v in jaxpr.invars]  # a carry set from a varying one varies
    carries = [c for c in range(n_carry) if fixed[n_consts + c]]
    given = [v for v, f in zip(jaxpr.invars, fixed, strict=True) if f]
    wanted = [jaxpr.outvars[c] for c in carries] + [jaxpr.outvars[j] for j in outs] + extra
    part = Jaxpr(jaxpr.constvars, given, wanted, _constant_eqns(jaxpr, varying))
    run = jaxpr_as_fun(ClosedJaxpr(part, closed.consts))
    k = [_value(x) for x, f in zip(ins[:n_consts], fixed, strict=False) if f]
    init = tuple(_value(ins[n_consts + c]) for c in carries)
    xs = tuple(_value(ins[i]) for i in range(n_consts + n_carry, len(ins)) if fixed[i])

    def step(carry, x):
        values = run(*k, *carry, *x)
        return tuple(values[: len(carries)]), tuple(values[len(carries) :])

    found = _numpy_scan(part, closed.consts, k, init, xs, length, reverse)
    if found is not None:
        final, stacked = found
    else:
        try:
            final, stacked = jax.lax.scan(step, init, xs, length=length, reverse=reverse)
        except Exception:  # not evaluable here: the loop is read as it was
            return None
    finals = dict(zip(carries, final, strict=True))
    results = {}
    for j, values in zip(outs, stacked[: len(outs)], strict=True):
        if j >= n_carry:
            results[j] = _held(values)
        elif j in finals:
            results[j] = _held(finals[j])
        elif length:  # a carry set from a varying start to constants: its last step's
            results[j] = _held(values[0 if reverse else -1])
    return results, [np.asarray(v) for v in stacked[len(outs) :]]


def _numpy_scan(part, consts, k, init, xs, length: int, reverse: bool):
    """:func:`_constant_scan`'s loop run step by step by NumPy, each equation as JAX
    binds it alone (:func:`~.jaxpr_exact.exact_program`): ``(final carries, stacked
    results)``; None where an equation is not taken there, the loop has no step, or its
    equations times steps pass :data:`NUMPY_SCAN_MOST` (then ``lax.scan`` runs it)."""
    if length <= 0 or _equations(part) * length > NUMPY_SCAN_MOST:
        return None
    if not all(isinstance(getattr(x, "dtype", None), np.dtype) for x in (*k, *init, *xs)):
        return None  # a PRNG key
    carry, rows = list(init), [None] * length
    for i in reversed(range(length)) if reverse else range(length):
        values = exact_program(part, consts, [*k, *carry, *(np.asarray(x)[i] for x in xs)])
        if values is None:
            return None
        carry, rows[i] = values[: len(carry)], values[len(carry) :]
    stacked = tuple(np.stack([np.asarray(r[j]) for r in rows]) for j in range(len(rows[0])))
    return tuple(np.asarray(c) for c in carry), stacked


def _equations(jaxpr) -> int:
    """Equations of ``jaxpr`` and of the programs its equations call."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for value in eqn.params.values():
            inner = getattr(value, "jaxpr", value)
            total += _equations(inner) if hasattr(inner, "eqns") else 0
    return total


def _keys_replaced(jaxpr, n_consts: int, n_carry: int, kept, outs, length: int):
    """The body's inputs with each key (which only the hoisted equations read, a carried
    one passed through) replaced by integers of its shape, and the operands that stand
    in for them (index -> zeros: a key has no NumPy form); (None, None) where the rest
    of the body still reads a key."""
    import jax
    from jax.extend.core import Literal, Var

    read = {a for e in kept for a in e.invars if not isinstance(a, Literal)}
    invars, stand_ins = list(jaxpr.invars), {}
    for i, v in enumerate(jaxpr.invars):
        if _numeric(v):
            continue
        c = i - n_consts
        through = 0 <= c < n_carry and outs[c] is v
        if v in read or (0 <= c < n_carry and not through) or v in outs[n_carry:]:
            return None, None
        shape = tuple(v.aval.shape)
        invars[i] = Var(jax.core.ShapedArray(shape, np.uint32))
        stacked = (length, *shape) if i >= n_consts + n_carry else shape
        stand_ins[i] = np.zeros(stacked, dtype=np.uint32)
    return invars, stand_ins


def _scalar_integers(eqn) -> bool:
    """An equation of integer or boolean scalars (a counter's arithmetic, an index): left
    in the body, where the reader reads counters."""
    return all(
        _numeric(v) and v.aval.shape == () and not np.issubdtype(v.aval.dtype, np.floating)
        for v in eqn.outvars
    )
