"""Gathers, scatters and sparse constants of a jaxpr as array operations.

Indices are constants here (an index that depends on the inputs is refused by the reader
before): each operation becomes a map between flat positions
(:mod:`dgraph.blocks.scatter`). Where every window is in bounds (and a ``scatter``
writes each entry once at most) the dimension numbers alone fix it and NumPy computes it
(:mod:`.jaxpr_index_maps`: no XLA compilation); otherwise JAX itself computes it once,
so that every mode, dimension-number layout and tie JAX's own scatter resolves is read as
JAX runs it:

* ``gather``: the flat position each output entry reads, by gathering the operand's
  positions (1, 2, ...) with the same dimension numbers (0 where the gather fills);
* ``scatter`` (``x.at[i].set(u)``): the update each entry ends up holding, by
  scattering the updates' ids (1, 2, ...) as JAX's own derivative rule does;
* ``scatter-add``/``-mul``/``-min``/``-max``: the entry each update lands on, by the
  transpose of ``scatter_add`` (a gather, JAX's transpose rule) applied to the positions,
  checked against the number of updates ``scatter_add`` counts at each entry;
* ``dynamic_update_slice`` at constant starts (clamped as JAX clamps them): a scatter;
* ``bcoo_dot_general`` of a constant BCOO matrix: ``dot_general`` with the dense
  constant, whose zeros the block leaves out (``arrays.narrowed``: the sparse pattern);
* ``cholesky`` and ``triangular_solve`` (:mod:`dgraph.blocks.linalg`); ``qr``, ``svd``
  (:mod:`.jaxpr_linalg`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..blocks import linalg
from ..blocks.arrays import ArrayOp, Const
from ..blocks.scatter import held
from ..errors import InputError
from .jaxpr_eig import EIG_VALUES, SQRTM, read_eig_values, read_sqrtm
from .jaxpr_index_maps import gather_map, scatter_targets
from .jaxpr_linalg import DECOMPOSED, read_decomposition

__all__ = ["INDEX_OPERANDS", "SCATTER_NAMES", "read_indexed"]

# jaxpr names of the scatters and their array operations
SCATTER_NAMES = {
    "scatter": "scatter",
    "scatter-add": "scatter_add",
    "scatter_add": "scatter_add",
    "scatter-mul": "scatter_mul",
    "scatter_mul": "scatter_mul",
    "scatter-min": "scatter_min",
    "scatter_min": "scatter_min",
    "scatter-max": "scatter_max",
    "scatter_max": "scatter_max",
}
# the operand positions that are indices, by primitive (the rest: data)
INDEX_OPERANDS = {
    **{name: slice(1, 2) for name in SCATTER_NAMES},
    "gather": slice(1, 2),
    "dynamic_slice": slice(1, None),
    "dynamic_update_slice": slice(2, None),
    "bcoo_dot_general": slice(0, 2),
}


def _jax():
    import jax

    return jax


def _operand(x: Any) -> Any:
    return Const.of(np.asarray(x, dtype=float)) if isinstance(x, np.ndarray) else x


def _shape(var) -> tuple[int, ...]:
    return tuple(int(n) for n in var.aval.shape)


def read_indexed(eqn, ins: list[Any], where: str) -> ArrayOp | list[ArrayOp] | None:
    """The array operation of a gather, scatter, ``dynamic_update_slice`` or
    ``bcoo_dot_general`` equation at constant indices; None for another primitive.

    Raises
    ------
    InputError
        One line, for what has no array operation here (a gather that fills, a traced
        sparse matrix, ``scatter-mul`` of repeated indices, as JAX has no rule for it).
    """
    name = eqn.primitive.name
    try:
        if name in SCATTER_NAMES:
            return _scatter(eqn, ins, where)
        if name == "gather":
            return _gather(eqn, ins, where)
        if name == "dynamic_update_slice":
            return _update_slice(eqn, ins)
        if name == "bcoo_dot_general":
            return _bcoo_dot(eqn, ins, where)
        if name in ("cholesky", "triangular_solve"):
            return _linalg(eqn, ins)
        if name == "eigh":
            return _eigh(eqn, ins, where)
        if name == EIG_VALUES:
            return read_eig_values(eqn, ins)
        if name == SQRTM:
            return read_sqrtm(eqn, ins)
        if name in DECOMPOSED:  # qr, svd
            return read_decomposition(eqn, ins, where)
    except InputError:
        raise
    except Exception as exc:  # JAX refused the indices: one line
        raise InputError(
            f"{where}: {name}: reading its constant indices failed: {type(exc).__name__}"
        ) from None
    return None


def _gather(eqn, ins: list[Any], where: str) -> ArrayOp:
    """Per output entry, the flat operand position it reads."""
    whole, shape = _shape(eqn.invars[0]), _shape(eqn.outvars[0])
    p, idx = eqn.params, np.asarray(ins[1])
    found = gather_map(
        whole, shape, idx, p["dimension_numbers"], tuple(p["slice_sizes"]), p.get("mode")
    )
    if found is None:  # batching dimensions, promise_in_bounds out of bounds: JAX's gather
        sources = _gathered(eqn.params, idx, whole)
    else:  # windows clamped or filled (-1) as XLA's, by NumPy
        sources = np.where(found[1], found[0], -1)
    if (sources < 0).any():
        raise InputError(f"{where}: gather with an out-of-bounds index that fills is not supported")
    return ArrayOp("gather_flat", (_operand(ins[0]),), (("sources", held(sources)),), shape)


def _gathered(params: dict, idx: np.ndarray, whole: tuple[int, ...]) -> np.ndarray:
    """Per output entry, the flat operand position a gather with ``params`` reads (-1:
    filled), by JAX's own gather of the positions (1, 2, ...; 0 where it fills)."""
    positions = np.arange(1, math.prod(whole) + 1, dtype=np.float64).reshape(whole)
    params = {**params, "fill_value": 0.0}
    found = np.asarray(_jax().lax.gather_p.bind(positions, idx, **params))
    return found.reshape(-1).astype(np.int64) - 1


def _scatter(eqn, ins: list[Any], where: str) -> ArrayOp:
    jax = _jax()
    x, idx, u = ins[0], np.asarray(ins[1]), ins[2]
    p = eqn.params
    primitive = SCATTER_NAMES[eqn.primitive.name]
    whole, part = _shape(eqn.invars[0]), _shape(eqn.invars[2])
    n, m = math.prod(whole), math.prod(part)
    if primitive == "scatter" and p.get("update_jaxpr") is not None:
        raise InputError(f"{where}: scatter_apply is not supported (JAX has no rule for it)")
    options = {
        "dimension_numbers": p["dimension_numbers"],
        "indices_are_sorted": p["indices_are_sorted"],
        "unique_indices": p["unique_indices"],
        "mode": p["mode"],
    }
    shape = _shape(eqn.outvars[0])
    operands = (_operand(x), _operand(u))
    found = scatter_targets(whole, part, idx, p["dimension_numbers"], p["mode"])
    if primitive == "scatter":  # the update each entry ends up holding
        if found is not None and np.bincount(found, minlength=1).max(initial=0) <= 1:
            sources = np.full(n, -1, dtype=np.int64)  # no ties: each entry written once at most
            sources[found] = np.arange(m)
        else:  # JAX's own scatter of the updates' ids resolves ties and drops
            sources = _won(jax, idx, whole, part, options)
        return ArrayOp("scatter", operands, (("sources", held(sources)),), shape)
    if found is not None:
        targets = found
    else:
        targets = _landed(jax, idx, whole, part, n, options, where, eqn.primitive.name)
    hit = targets[targets >= 0]
    if primitive == "scatter_mul" and np.unique(hit).size < hit.size and isinstance(u, str):
        raise InputError(
            f"{where}: scatter-mul of traced updates at repeated indices has no derivative"
            " in JAX (unique_indices=True only)"
        )
    return ArrayOp(primitive, operands, (("targets", held(targets)),), shape)


def _won(jax, idx, whole, part, options: dict) -> np.ndarray:
    """Per operand entry, the update a ``scatter`` with ``options`` leaves there (-1:
    none), by JAX's own scatter of the updates' ids (1, 2, ...), as its derivative rule
    does: ties resolved and windows dropped as JAX resolves and drops them."""
    lax, jnp = jax.lax, jax.numpy
    ids = jnp.arange(1, math.prod(part) + 1, dtype=jnp.int64).reshape(part)
    won = lax.scatter(jnp.zeros(whole, jnp.int64), idx, ids, **options)
    return np.asarray(won).reshape(-1).astype(np.int64) - 1


def _landed(jax, idx, whole, part, n: int, options: dict, where: str, name: str) -> np.ndarray:
    """Per update entry, the flat position a ``scatter_add`` with ``options`` adds it to
    (-1: dropped), by the transpose of ``scatter_add`` (a gather, JAX's transpose rule)
    applied to the positions, checked against the number of updates it counts at each."""
    lax, jnp = jax.lax, jax.numpy

    def spread(w):
        return lax.scatter_add(jnp.zeros(whole, jnp.float64), idx, w, **options)

    positions = jnp.arange(1, n + 1, dtype=jnp.float64).reshape(whole)
    (landed,) = jax.linear_transpose(spread, jax.ShapeDtypeStruct(part, jnp.float64))(positions)
    targets = np.asarray(landed).reshape(-1).astype(np.int64) - 1
    counts = np.asarray(spread(jnp.ones(part, jnp.float64))).reshape(-1)
    if not np.array_equal(np.bincount(targets[targets >= 0], minlength=n), counts):
        raise InputError(f"{where}: {name}: its index map could not be read")
    return targets


def _update_slice(eqn, ins: list[Any]) -> ArrayOp:
    """``dynamic_update_slice`` at constant starts, clamped into range as JAX does."""
    whole, part = _shape(eqn.invars[0]), _shape(eqn.invars[1])
    starts = [int(np.asarray(s)) for s in ins[2:]]
    begin = [min(max(s, 0), n - k) for s, n, k in zip(starts, whole, part, strict=True)]
    sources = np.full(whole, -1, dtype=np.int64)
    window = tuple(slice(b, b + k) for b, k in zip(begin, part, strict=True))
    sources[window] = np.arange(math.prod(part)).reshape(part)
    params = (("sources", held(sources)),)
    return ArrayOp("scatter", (_operand(ins[0]), _operand(ins[1])), params, whole)


def _linalg(eqn, ins: list[Any]) -> ArrayOp:
    """``cholesky`` and ``triangular_solve`` (real: ``conjugate_a`` changes nothing)."""
    kept = ("left_side", "lower", "transpose_a", "unit_diagonal")
    name = eqn.primitive.name
    params = tuple((k, bool(eqn.params[k])) for k in kept) if name == "triangular_solve" else ()
    operands = tuple(_operand(x) for x in ins)
    op = ArrayOp(name, operands, params, _shape(eqn.outvars[0]))
    linalg.check(op, [_shape(v) for v in eqn.invars])
    return op


def _eigh(eqn, ins: list[Any], where: str) -> list[ArrayOp]:
    """``eigh``: its eigenvectors and its eigenvalues, one operation each."""
    p = eqn.params
    if not p.get("sort_eigenvalues", True) or p.get("subset_by_index"):
        raise InputError(f"{where}: eigh is supported as jnp.linalg.eigh calls it only")
    (a,) = (_operand(x) for x in ins)
    vectors, values = (_shape(v) for v in eqn.outvars)
    upper = () if p.get("lower", True) else (("lower", False),)  # UPLO="U": LAPACK's signs
    ops = [ArrayOp("eigh_vectors", (a,), upper, vectors), ArrayOp("eigh_values", (a,), (), values)]
    linalg.check(ops[0], [_shape(eqn.invars[0])])
    return ops


def _bcoo_dot(eqn, ins: list[Any], where: str) -> ArrayOp:
    """A constant BCOO matrix times an array: ``dot_general`` with its dense value."""
    if not all(isinstance(x, np.ndarray) for x in ins[:2]):
        raise InputError(
            f"{where}: bcoo_dot_general of a sparse matrix that depends on the inputs is not"
            " supported (only a constant BCOO matrix)"
        )
    from jax.experimental import sparse

    spinfo = eqn.params["lhs_spinfo"]
    matrix = sparse.BCOO((ins[0], ins[1]), shape=tuple(spinfo.shape))
    dense = np.asarray(matrix.todense(), dtype=float)
    numbers = eqn.params["dimension_numbers"]
    plain = tuple(tuple(tuple(int(a) for a in axes) for axes in pair) for pair in numbers)
    params = (("dimension_numbers", plain),)
    operands = (Const.of(dense), _operand(ins[2]))
    return ArrayOp("dot_general", operands, params, _shape(eqn.outvars[0]))
