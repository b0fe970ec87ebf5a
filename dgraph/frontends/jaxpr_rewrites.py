"""jaxpr equations the array level reads as the JAX function JAX differentiates them by:
the equation is re-traced as that function (``jax.make_jaxpr`` at the equation's operand
shapes) and its jaxpr read in its place, so that the values are the primitive's and the
derivative is the one JAX's own rule gives, ties included.

* ``cummax``, ``cummin``, and ``cumprod``, ``cumlogsumexp`` of complex numbers (of real
  floats each is one operation, :mod:`dgraph.blocks.cumulative`): JAX's jvp rule is the jvp of
  ``lax.associative_scan`` with the combining function (``mul``, ``max``, ``min``,
  ``logaddexp``), whatever the backend computes the values by; so is the reading;
* ``clamp`` (of floats; an integer clamp is ``lax.switch``'s index, read elsewhere): its
  value with no derivative, plus the operand whose rule JAX's jvp applies (``lo`` where
  ``lo > x`` and ``lo < hi``, ``x`` where ``lo < x < hi``, ``hi`` where ``hi < x``; none at
  a tie);
* ``reduce_window_sum`` / ``_max`` / ``_min`` (pooling): the operand padded with zeros
  (``base_dilation`` as interior padding), then one strided slice per window offset
  (``window_dilation`` spaces them), summed; for max and min chosen in row-major order
  with a strict comparison among the operand's entries alone (a constant mask per offset:
  the padding, XLA's -inf, is never a value, so the program stays finite and its values
  can be checked; a window of padding alone is -inf as in JAX), so that the first
  extreme entry of a window takes the derivative, as JAX's ``select_and_gather_add``
  gives it; ``select_and_scatter_add``
  (their transpose, in a gradient) as the vjp of that reading;
* ``reduce_or`` / ``reduce_and`` (booleans, no derivative): the max / min of the operand
  as numbers, compared with 0;
* ``reduce`` with a body of its own (``lax.reduce`` of a pair of operands, an argmax
  written by hand): the tree reduction JAX's jvp rule differentiates (:func:`_reduce`);
* ``custom_linear_solve`` whose matvec is a product with a matrix (``jnp.linalg.solve``,
  ``inv``): a ``linear_solve`` of that matrix (:mod:`dgraph.blocks.linalg`), the solve
  function it carries (an LU factorization) not read; of a matrix-free matvec on one
  vector of at most 256 entries (a stencil, ``jax.scipy.sparse.linalg.cg``), the matvec
  applied to the identity's columns and that matrix solved, the user's solver not read;
* ``lu`` (``lu_factor``, and JAX's gradient of ``det`` of n ≥ 4, which reads the factors,
  pivots and permutation as data): of one square matrix, one ``lu`` operation (its dense
  block JAX's ``lu_jvp`` rule, :mod:`dgraph.blocks.decompositions`) and its pivots and
  permutation as integers of the same matrix; of a batch or a non-square matrix,
  JAX's own unblocked elimination (``_lu_unblocked``),
  its loop unrolled (:func:`unrolled_lu`): the pivot of each step an ``argmax`` (no
  derivative, the first of equal magnitudes as LAPACK's), the row swap a take at those
  positions, the rest arithmetic. The factors' derivative is then the steps', which
  with the rows held is JAX's ``lu_jvp`` (``P·A = L·U``, ``X = L⁻¹·P·dA·U⁻¹``,
  ``dL = L·tril(X, -1)``, ``dU = triu(X)·U``); a batch of matrices is read as one
  elimination of each;
* ``tridiagonal_solve`` (``lax.linalg.tridiagonal_solve``) of order at most 1024: the
  solve of its dense matrix (:func:`_tridiagonal_solve`);
* ``psum`` over positional axes (``lax.psum``, ``lax.pmean`` in a ``jax.vmap`` with an
  ``axis_name``): a ``reduce_sum`` of each operand over them;
* ``top_k``: the values a stable descending sort of the last axis, sliced (JAX gathers the
  tangent at the indices ``top_k`` returns: the first of equal values first); the indices
  the first k of a stable ``argsort`` of the negated operand, the same order (so a
  gradient's scatter-add at them, and a Hessian through ``top_k``, are read);
* ``lt_to`` / ``le_to`` (IEEE totalOrder comparisons, which ``searchsorted``
  and ``jnp.interp`` make): ``lt`` where neither operand is NaN, NaN after every number.
  Two things of totalOrder are not read: the sign of a zero (-0 and +0 compare equal) and
  of a NaN (read as positive). ``searchsorted`` makes its zeros +0 and its NaNs JAX's
  positive NaN before it compares, and it is where JAX writes these comparisons;
* ``searchsorted``'s binary search (``method="scan"``, the default, and ``jnp.interp``'s):
  a ``scan`` of integer carries reading the table at computed positions. It is read as
  one ``searchsorted`` operation (:mod:`~dgraph.blocks.sorted_search`: a binary search
  per query in the generated code), no loop whose code would carry the table, no
  derivative either way; of an operand the reader holds otherwise, as
  ``jnp.searchsorted(..., method="sort")``, the same positions by one stable sort of the
  table and the queries. Which side it finds is read from the called jaxpr's value at a
  probe.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp
from ..blocks.sorted_search import searchsorted_op
from ..errors import InputError
from .jaxpr_values import Opaque, jax_module, resolved

__all__ = ["CALLED", "TRACED", "read_as", "read_linear_solve"]


def read_as(
    reader, eqn, ins: list[Any], fn: Callable[..., Any], outs: int | None = None, specs=None
) -> list[Any]:
    """The values of ``fn``'s jaxpr at the equation's operand shapes, read in its place."""
    jax = jax_module()
    avals = [v.aval for v in (eqn.invars if specs is None else specs)]
    closed = jax.make_jaxpr(fn)(*(jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals))
    found = reader.run(closed.jaxpr, closed.consts, ins)
    if len(found) != (
        len(eqn.outvars) if outs is None else outs
    ):  # the rewrite's own defect, never the user's
        raise InputError(f"{reader.where}: {eqn.primitive.name}: rewritten with other results")
    return found


def _is_real(dtype) -> bool:
    import jax.numpy as jnp

    return bool(jnp.issubdtype(dtype, jnp.floating))


def _cumulative(reader, eqn, ins: list[Any]) -> list[Any] | None:
    from jax import lax

    name = eqn.primitive.name
    if name in ("cumprod", "cumlogsumexp") and _is_real(eqn.outvars[0].aval.dtype):
        return None  # one operation, its block exact (dgraph.blocks.cumulative)
    if name == "cumlogsumexp":
        # the combining function JAX's rule names (jax._src.lax.other.logaddexp), through
        # its public wrapper: for the floating and complex operands cumlogsumexp takes the
        # wrapper's promotion adds no equation, so the same jaxpr (checked with JAX 0.10.2)
        from jax.numpy import logaddexp as combine
    else:
        combine = {"cumprod": lax.mul, "cummax": lax.max, "cummin": lax.min}[name]
    axis, reverse = int(eqn.params["axis"]), bool(eqn.params["reverse"])
    return read_as(
        reader,
        eqn,
        ins,
        lambda x: [lax.associative_scan(combine, x, axis=axis, reverse=reverse)],
    )


def _clamp(reader, eqn, ins: list[Any]) -> list[Any] | None:
    import jax.numpy as jnp
    from jax import lax

    if not jnp.issubdtype(eqn.outvars[0].aval.dtype, jnp.floating):
        return None  # lax.switch's index: read where the branches are

    def clamp(lo, x, hi):
        lo, hi = jnp.broadcast_to(lo, x.shape), jnp.broadcast_to(hi, x.shape)
        frozen = lax.stop_gradient(lax.min(lax.max(x, lo), hi))
        out = jnp.where(hi < x, hi, frozen)
        out = jnp.where((x > lo) & (x < hi), x, out)
        return [jnp.where((lo > x) & (lo < hi), lo, out)]

    return read_as(reader, eqn, ins, clamp)


def _pool(name: str, p: dict, out_shape: tuple[int, ...]) -> Callable[[Any], Any]:
    """``reduce_window_<name>`` as a function of its operand: padded with zeros, one
    strided slice per window offset, summed, or chosen among the operand's entries
    (:func:`_entries`; module docstring)."""
    import jax.numpy as jnp
    from jax import lax

    dims, strides = tuple(p["window_dimensions"]), tuple(p["window_strides"])
    base = tuple(p.get("base_dilation") or (1,) * len(dims))
    spread = tuple(p.get("window_dilation") or (1,) * len(dims))
    padding = tuple(tuple(int(v) for v in pair) for pair in p["padding"])

    def pooled(x):
        config = [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base, strict=True)]
        padded = lax.pad(x, jnp.asarray(0.0, x.dtype), config)  # sum's initial value
        out, have = None, None
        for offset in itertools.product(*(range(d) for d in dims)):
            start = [k * s for k, s in zip(offset, spread, strict=True)]
            limit = [b + (n - 1) * t + 1 for b, n, t in zip(start, out_shape, strides, strict=True)]
            part = lax.slice(padded, start, limit, strides)
            if name == "sum":
                out = part if out is None else out + part
                continue
            valid = _entries(x.shape, padding, base, start, strides, out_shape)
            if out is None:
                out, have = part, valid
                continue
            # the first extreme entry keeps the derivative; padding is never chosen
            better = part > out if name == "max" else part < out
            take = better if have.all() else better | ~have
            if not valid.all():
                take = take & valid
            out, have = jnp.where(take, part, out), have | valid
        if have is not None and not have.all():  # windows of padding alone: -inf (+inf)
            out = jnp.where(have, out, -jnp.inf if name == "max" else jnp.inf)
        return out

    return pooled


def _entries(shape, padding, base, start, strides, out_shape) -> np.ndarray:
    """Where a window offset's strided slice of the padded operand reads an operand entry,
    not padding (edge or interior, ``base_dilation``): a constant mask of the output's
    shape. Max and min pooling choose among these, so their padding is never a value
    (XLA's -inf made the program not finite: its values could not be checked)."""
    mask = np.ones((), dtype=bool)
    for n, (lo, _), b, first, step, m in zip(
        shape, padding, base, start, strides, out_shape, strict=True
    ):
        at = first + step * np.arange(m) - lo
        axis = (at >= 0) & (at % b == 0) & (at // b < n)
        mask = mask[..., None] & axis
    return mask


def _negative_padding(reader, eqn) -> None:
    if any(int(lo) < 0 or int(hi) < 0 for lo, hi in eqn.params["padding"]):
        raise InputError(
            f"{reader.where}: {eqn.primitive.name} with negative padding is not supported"
        )


def _window(reader, eqn, ins: list[Any]) -> list[Any]:
    _negative_padding(reader, eqn)
    name = eqn.primitive.name.removeprefix("reduce_window_")
    pooled = _pool(name, eqn.params, tuple(eqn.outvars[0].aval.shape))
    return read_as(reader, eqn, ins, lambda x: [pooled(x)])


def _select_and_scatter_add(reader, eqn, ins: list[Any]) -> list[Any]:
    """The transpose of max (``select_prim=ge``) or min (``le``) pooling, as a gradient
    writes it: the vjp of :func:`_pool`'s reading at the operand, applied to the source.
    The entry it scatters each window's source to is the first extreme one, as XLA's
    select keeps its first pick while ``ge`` (``le``) holds."""
    jax = jax_module()
    _negative_padding(reader, eqn)
    chosen = {"ge": "max", "le": "min"}.get(str(eqn.params["select_prim"]))
    if chosen is None:
        raise InputError(
            f"{reader.where}: select_and_scatter_add with select_prim"
            f" {eqn.params['select_prim']} is not supported"
        )
    pooled = _pool(chosen, eqn.params, tuple(eqn.invars[0].aval.shape))
    return read_as(reader, eqn, ins, lambda src, x: [jax.vjp(pooled, x)[1](src)[0]])


def _any_all(reader, eqn, ins: list[Any]) -> list[Any]:
    import jax.numpy as jnp
    from jax import lax

    axes = tuple(int(a) for a in eqn.params["axes"])
    reduce = lax.reduce_max if eqn.primitive.name == "reduce_or" else lax.reduce_min

    def reduced(x):
        return [reduce(lax.convert_element_type(x, jnp.float32), axes) > 0]

    return read_as(reader, eqn, ins, reduced)


def _top_k(reader, eqn, ins: list[Any]) -> list[Any]:
    import jax.numpy as jnp
    from jax import lax

    k = int(eqn.params["k"])
    dtype = eqn.outvars[1].aval.dtype

    def top(x):
        last = x.ndim - 1
        order = jnp.argsort(-x, axis=last, stable=True)  # the first of equal values first
        values = -lax.slice_in_dim(lax.sort(-x, dimension=last), 0, k, axis=last)
        return [values, lax.slice_in_dim(order, 0, k, axis=last).astype(dtype)]

    return read_as(reader, eqn, ins, top, specs=eqn.invars[:1])


def _lu(reader, eqn, ins: list[Any]) -> list[Any]:
    """``lu``'s results, read as :func:`unrolled_lu` once something reads them as data
    (:class:`~.jaxpr_values.Opaque`'s ``deferred``): a ``custom_linear_solve`` that
    carries them for its solve function (``jnp.linalg.solve``, ``inv``) does not."""
    found: list[Any] = []

    def read() -> list[Any]:
        if not found:
            found.extend(_lu_ops(reader, eqn, ins) or read_as(reader, eqn, ins, unrolled_lu))
        return found

    shapes = [tuple(v.aval.shape) for v in eqn.outvars]
    return [Opaque("lu", shape, read, j) for j, shape in enumerate(shapes)]


def _lu_ops(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """One square matrix's ``lu``: its packed factors one operation (a dense block), its
    pivots and permutation integers of the same matrix (:mod:`dgraph.blocks.decompositions`);
    None for a batch or a non-square matrix (then :func:`unrolled_lu`)."""
    from ..blocks.arrays import ArrayOp

    shape = tuple(int(k) for k in eqn.invars[0].aval.shape)
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] == 0:
        return None
    x, n = reader.operand(ins[0]), shape[0]
    packed = reader.result(ArrayOp("lu", (x,), (), shape), eqn.outvars[0].aval)
    return [packed, *(ArrayOp(name, (x,), (), (n,)) for name in ("lu_pivots", "lu_permutation"))]


def unrolled_lu(a):
    """``lax.linalg.lu(a)`` of m×n matrices (leading axes a batch) as JAX's own
    ``_lu_unblocked`` computes it (jax._src.lax.linalg), its loop over the k = min(m, n)
    columns unrolled: at step k the row of the largest magnitude at or below k (the first
    of equal ones, as LAPACK's ``getrf`` picks) is swapped with row k, the column below
    the pivot divided by it (where it is not 0) and the outer product subtracted from the
    rest. The pivots and the permutation are integers (no derivative); the factors'
    derivative is the steps', which with the rows fixed is JAX's ``lu_jvp`` rule."""
    import jax.numpy as jnp
    from jax import lax

    *batch, m, n = a.shape
    rows, cols = lax.iota("int32", m), lax.iota("int32", n)
    permutation, pivots = jnp.broadcast_to(rows, (*batch, m)), []
    for k in range(min(m, n)):
        magnitude = jnp.abs(lax.stop_gradient(a[..., k]))
        i = jnp.argmax(jnp.where(rows >= k, magnitude, -jnp.inf), axis=-1).astype(jnp.int32)
        pivots.append(i)
        i = i[..., None]
        swap = jnp.where(rows == k, i, jnp.where(rows == i, k, rows))  # rows k and i
        a = jnp.take_along_axis(a, jnp.broadcast_to(swap[..., None], a.shape), axis=-2)
        permutation = jnp.take_along_axis(permutation, swap, axis=-1)
        x = a[..., k, k, None]
        below = (rows > k) & (lax.stop_gradient(x) != 0)
        column = jnp.where(below, a[..., k] / x, a[..., k])
        a = jnp.where(cols == k, column[..., None], a)
        outer = a[..., k, None] * a[..., k, None, :]
        a = a - jnp.where((rows[:, None] > k) & (cols > k), outer, 0.0)
    return [a, jnp.stack(pivots, axis=-1), permutation]


def read_linear_solve(reader, eqn, ins: list[Any]) -> list[Any]:
    """``custom_linear_solve`` as ``linear_solve(A, b)``, ``A`` the matvec's one matrix:
    which product it is (``A·x``, ``x·Aᵀ`` for rows, as ``vmap`` writes it, or ``Aᵀ·x``,
    the transposed solve of a gradient: then ``linear_solve(Aᵀ, b)``) is found by
    evaluating the matvec once on random numbers."""
    from ..blocks.arrays import ArrayOp

    where = f"{reader.where}: custom_linear_solve"
    lengths = eqn.params["const_lengths"]
    closed = eqn.params["jaxprs"].matvec
    b_vars = eqn.invars[sum(lengths) :]
    if lengths.matvec != 1 or len(b_vars) != 1:
        return _dense_solve(reader, eqn, ins, where)
    a_shape, b_shape = tuple(eqn.invars[0].aval.shape), tuple(b_vars[0].aval.shape)
    rng = np.random.default_rng(0)
    m, x = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    try:  # by NumPy where it takes the matvec: nothing compiled
        (got,) = reader.eagerly(closed.jaxpr, closed.consts, [m, x])
    except Exception:
        raise InputError(f"{where}: its matvec could not be evaluated") from None
    got = np.asarray(got)
    if len(a_shape) == 3 and len(b_shape) >= 2 and b_shape[0] == a_shape[0]:
        return [_batched_solve(reader, eqn, ins, m, x, got)]
    lead = a_shape[:-2]
    if len(lead) > 1 and b_shape[: len(lead)] == lead and len(b_shape) > len(lead):
        return [_stacked_solve(reader, eqn, ins, m, x, got)]
    rows, matrix, transposed = None, reader.operand(ins[0]), False
    if len(a_shape) == 2 and a_shape[0] == a_shape[1] and got.shape == b_shape:
        if b_shape[0] == a_shape[0] and np.allclose(got, m @ x):
            rows = len(b_shape) == 1
        elif len(b_shape) == 2 and b_shape[1] == a_shape[0] and np.allclose(got, x @ m.T):
            rows = True
        elif b_shape[0] == a_shape[0] and np.allclose(got, m.T @ x):  # a gradient's solve
            rows, transposed = len(b_shape) == 1, True
        elif len(b_shape) == 2 and b_shape[1] == a_shape[0] and np.allclose(got, x @ m):
            rows, transposed = True, True
    if transposed and isinstance(ins[0], np.ndarray):
        matrix = reader.operand(ins[0].T)
    elif transposed:
        op = ArrayOp("transpose", (matrix,), (("permutation", (1, 0)),), a_shape)
        matrix = reader.operand(reader.result(op, eqn.invars[0].aval))
    if rows is None:
        return _dense_solve(reader, eqn, ins, where)
    operands = (matrix, reader.operand(ins[sum(lengths)]))
    op = ArrayOp("linear_solve", operands, (("rows", rows),), tuple(eqn.outvars[0].aval.shape))
    return [reader.result(op, eqn.outvars[0].aval)]


_DENSE_SOLVE = 256  # the most unknowns a matrix-free matvec is made a matrix for


def _dense_solve(reader, eqn, ins: list[Any], where: str) -> list[Any]:
    """``custom_linear_solve`` of a matrix-free matvec (``lax.custom_linear_solve`` of a
    stencil, ``jax.scipy.sparse.linalg.cg``) on one vector ``b`` of ``n ≤ 256`` entries: its
    matrix ``A`` the matvec applied to the identity's columns (``jax.vmap``), then
    ``jnp.linalg.solve(A, b)``, the exact solution whose derivative is the implicit
    function theorem's, as JAX's rule for the solve; the user's solver itself (iterative,
    a tolerance) is not read. Refused in one line for several right-hand sides or more
    unknowns."""
    import jax.numpy as jnp

    jax = jax_module()
    lengths = eqn.params["const_lengths"]
    closed = eqn.params["jaxprs"].matvec
    start = sum(lengths)
    b_vars = eqn.invars[start:]
    n = int(b_vars[0].aval.size) if len(b_vars) == 1 else 0
    if len(b_vars) != 1 or b_vars[0].aval.ndim != 1 or not 0 < n <= _DENSE_SOLVE:
        raise InputError(
            f"{where} with a matvec other than a product with one matrix, on more than one"
            f" vector of at most {_DENSE_SOLVE} entries"
        )
    k = lengths.matvec

    def solved(*args):
        def matvec(v):
            return jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *args[:k], v)[0]

        A = jax.vmap(matvec, in_axes=1, out_axes=1)(jnp.eye(n, dtype=args[-1].dtype))
        return [jnp.linalg.solve(A, args[-1])]

    specs = [*eqn.invars[:k], *b_vars]
    operands = [resolved(x) for x in (*ins[:k], *ins[start:])]
    return read_as(reader, eqn, operands, solved, specs=specs)


def _stacked_solve(reader, eqn, ins: list[Any], m, x, got) -> Any:
    """A solve ``vmap``'d over several batch axes (``jnp.linalg.solve`` of matrices of
    shape ``(2, 3, n, n)``): the batch axes made one (a reshape), solved as
    :func:`_batched_solve` solves one batch axis, the result's axes restored."""
    from ..blocks.arrays import ArrayOp

    a_var, b_var, out = eqn.invars[0], eqn.invars[-1], eqn.outvars[0]
    a_shape, b_shape = tuple(a_var.aval.shape), tuple(b_var.aval.shape)
    count = math.prod(a_shape[:-2])
    flat_a, flat_b = (count, *a_shape[-2:]), (count, *b_shape[len(a_shape) - 2 :])

    def merged(value: Any, shape: tuple, aval) -> Any:
        if isinstance(value, np.ndarray):
            return value.reshape(shape)
        return reader.result(ArrayOp("reshape", (reader.operand(value),), (), shape), aval)

    parts = [merged(ins[0], flat_a, a_var.aval), merged(ins[-1], flat_b, b_var.aval)]
    solved = _batched_solve(
        reader, eqn, parts, m.reshape(flat_a), x.reshape(flat_b), got.reshape(flat_b),
        shapes=(flat_a, flat_b),
    )  # fmt: skip
    shape = tuple(out.aval.shape)
    return reader.result(ArrayOp("reshape", (reader.operand(solved),), (), shape), out.aval)


_DENSE_TRIDIAGONAL = 1024  # the largest order a tridiagonal solve is read as a dense one


def _tridiagonal_solve(reader, eqn, ins: list[Any]) -> list[Any]:
    """``tridiagonal_solve(dl, d, du, b)`` (``lax.linalg.tridiagonal_solve``, a batch too)
    as ``jnp.linalg.solve`` of its dense matrix (``dl[i]`` at ``(i, i-1)``, ``du[i]`` at
    ``(i, i+1)``): the same solution, whose derivative is JAX's rule's (the implicit
    function theorem's). Refused in one line above order 1024, where dense is too dear."""
    import jax.numpy as jnp

    n = int(eqn.invars[1].aval.shape[-1])
    if n > _DENSE_TRIDIAGONAL:
        raise InputError(
            f"{reader.where}: tridiagonal_solve of order {n:,} (read as a dense solve, of order"
            f" at most {_DENSE_TRIDIAGONAL:,}) is not supported"
        )

    def solved(dl, d, du, b):
        eye = [jnp.eye(n, k=k, dtype=d.dtype) for k in (-1, 0, 1)]
        a = sum(c[..., :, None] * e for c, e in zip((dl, d, du), eye, strict=True))
        return [jnp.linalg.solve(a, b)]

    return read_as(reader, eqn, [resolved(x) for x in ins], solved)


def _batched_solve(reader, eqn, ins: list[Any], m, x, got, shapes=None) -> Any:
    """A ``vmap``'d solve (``jnp.linalg.inv``/``solve`` of a stack of matrices, a batch
    axis first): one solve per matrix, as the unbatched reader reads it, stacked along
    the batch axis; refused in one line where the matvec is not ``x[k] · m[k]ᵀ`` (rows) or
    ``m[k] · x[k]``, each matrix its own."""
    from ..blocks.arrays import ArrayOp

    a_var, b_var, out = eqn.invars[0], eqn.invars[-1], eqn.outvars[0]
    a_shape, b_shape = shapes or (tuple(a_var.aval.shape), tuple(b_var.aval.shape))
    transposed = False  # a gradient's solve: by each matrix's transpose
    if np.allclose(got, np.einsum("kij,k...j->k...i", m, x)) and len(b_shape) == 3:
        rows = True  # x[k] @ m[k].T, the form vmap writes
    elif np.allclose(got, np.einsum("kij,kj...->ki...", m, x)):
        rows = len(b_shape) == 2
    elif np.allclose(got, np.einsum("kji,k...j->k...i", m, x)) and len(b_shape) == 3:
        rows, transposed = True, True  # x[k] @ m[k]
    elif np.allclose(got, np.einsum("kji,kj...->ki...", m, x)):
        rows, transposed = len(b_shape) == 2, True  # m[k].T @ x[k]
    else:
        raise InputError(f"{reader.where}: custom_linear_solve with a batched matvec other"
                         " than a product with one matrix each")  # fmt: skip
    parts = []
    for k in range(a_shape[0]):
        a_k = _batch_entry(reader, ins[0], k, a_shape, a_var.aval)
        if transposed:
            flip = ArrayOp("transpose", (a_k,), (("permutation", (1, 0)),), a_shape[1:])
            a_k = reader.operand(reader.result(flip, a_var.aval))
        b_k = _batch_entry(reader, ins[-1], k, b_shape, b_var.aval)
        op = ArrayOp("linear_solve", (a_k, b_k), (("rows", rows),), b_shape[1:])
        solved = reader.operand(reader.result(op, out.aval))
        parts.append(reader.operand(reader.result(
            ArrayOp("reshape", (solved,), (), (1, *b_shape[1:])), out.aval)))  # fmt: skip
    return reader.result(ArrayOp("concatenate", tuple(parts), (("dimension", 0),), b_shape),
                         out.aval)  # fmt: skip


def _batch_entry(reader, value: Any, k: int, shape: tuple, aval) -> Any:
    """The ``k``-th entry of ``value`` along its first axis, without it."""
    from ..blocks.arrays import ArrayOp

    if isinstance(value, np.ndarray):
        return reader.operand(value[k])
    params = (("start_indices", (k,) + (0,) * (len(shape) - 1)),
              ("limit_indices", (k + 1, *shape[1:])), ("strides", None))  # fmt: skip
    sliced = reader.result(ArrayOp("slice", (reader.operand(value),), params, (1, *shape[1:])),
                           aval)  # fmt: skip
    op = ArrayOp("reshape", (reader.operand(sliced),), (), shape[1:])
    return reader.operand(reader.result(op, aval))


def _total_order(reader, eqn, ins: list[Any]) -> list[Any]:
    import jax.numpy as jnp

    def before(a, b):  # a precedes b in totalOrder, zeros and NaNs as the docstring says
        return jnp.where(a != a, False, jnp.where(b != b, True, a < b))

    if eqn.primitive.name == "lt_to":
        return read_as(reader, eqn, ins, lambda a, b: [before(a, b)])
    return read_as(reader, eqn, ins, lambda a, b: [~before(b, a)])  # le_to


def _searchsorted(reader, eqn, ins: list[Any]) -> list[Any] | None:
    import jax.numpy as jnp

    table, query = (v.aval for v in eqn.invars[:2])
    if len(eqn.invars) != 2 or table.ndim != 1 or table.shape[0] < 1:
        return None
    inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")  # a closed jaxpr
    probe = np.arange(table.shape[0], dtype=table.dtype)  # queries equal to its first entry
    found = reader.eagerly(  # by NumPy where it takes the search: nothing compiled
        getattr(inner, "jaxpr", inner),
        getattr(inner, "consts", ()),
        [probe, np.zeros(query.shape, query.dtype)],
    )
    side = "right" if int(np.ravel(np.asarray(found[0]))[0]) == 1 else "left"
    if all(isinstance(x, str | ArrayOp | np.ndarray) for x in ins):  # one binary search each
        a, v = (reader.operand(x) for x in ins)
        op = searchsorted_op(a, v, table.shape[0], tuple(query.shape), side == "right")
        return [reader.result(op, eqn.outvars[0].aval)]
    dtype = eqn.outvars[0].aval.dtype

    def sort_method(a, v):
        return [jnp.searchsorted(a, v, side=side, method="sort").astype(dtype)]

    return read_as(reader, eqn, ins, sort_method)


def _signbit(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``jnp.signbit`` of a traced float (its sign bit by ``bitcast_convert_type``, which
    the array level has no operation for; ``jnp.copysign``'s, ``jsp.special.gamma``'s):
    below zero, or a zero whose reciprocal is negative (``arctan2(-0.0, -1) = -π``); a
    NaN's sign bit is read as clear. A comparison: no derivative."""
    import jax.numpy as jnp

    if len(eqn.invars) != 1 or not _is_real(eqn.invars[0].aval.dtype):
        return None
    return read_as(reader, eqn, ins, lambda x: [(x < 0) | ((x == 0) & (jnp.arctan2(x, -1.0) < 0))])


def _psum(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``psum`` over positional axes (``lax.psum`` / ``lax.pmean`` under ``jax.vmap(...,
    axis_name=...)``, which batching turns into the vmapped axis's number): a ``reduce_sum``
    of each operand over those axes, as linear as the sum itself; None for a named axis or
    ``axis_index_groups`` (a collective across devices)."""
    import jax.numpy as jnp

    axes = eqn.params.get("axes", ())
    if eqn.params.get("axis_index_groups") is not None or not all(
        isinstance(a, int | np.integer) for a in axes
    ):
        return None
    axes = tuple(int(a) for a in axes)
    return read_as(reader, eqn, ins, lambda *xs: [jnp.sum(x, axis=axes) for x in xs])


def _reduce(reader, eqn, ins: list[Any]) -> list[Any] | None:
    """``lax.reduce`` of a body JAX has no reduction primitive for (a pair of operands, an
    argmax written by hand): JAX's jvp rule (``_reduce_jvp``) is the jvp of a tree
    reduction, the reduced axes moved first and flattened, then halved until one entry is
    left, the body applied entrywise to the halves (an odd half padded with the init
    values); the reading is that tree, the body's jaxpr inlined at each level. An empty
    reduced axis gives the init values, as the primitive does."""
    import jax.numpy as jnp
    from jax import lax
    from jax.extend.core import jaxpr_as_fun

    body, k = eqn.params["jaxpr"], len(eqn.outvars)
    axes = tuple(int(a) for a in eqn.params["dimensions"])
    shape = tuple(int(n) for n in eqn.invars[0].aval.shape)
    kept = tuple(d for d in range(len(shape)) if d not in axes)
    combine = jaxpr_as_fun(body)
    for _ in range(len(kept) + 1):  # entrywise over the kept axes and the halves
        combine = jax_module().vmap(combine)

    def tree(*args):
        inits = args[k:]
        n = math.prod(shape[d] for d in axes)
        xs = [jnp.reshape(jnp.transpose(x, axes + kept), (n, *(shape[d] for d in kept)))
              for x in args[:k]]  # fmt: skip
        if n == 0:
            return [jnp.full(tuple(shape[d] for d in kept), i) for i in inits]
        while xs[0].shape[0] > 1:
            half = (xs[0].shape[0] + 1) // 2
            first = [x[:half] for x in xs]
            second = [x[half:] for x in xs]
            if 2 * half != xs[0].shape[0]:
                pads = [(0, 1, 0)] + [(0, 0, 0)] * len(kept)
                second = [lax.pad(x, i, pads) for x, i in zip(second, inits, strict=True)]
            xs = list(combine(*first, *second))
        return [x[0] for x in xs]

    return read_as(reader, eqn, ins, tree)


CALLED: dict[str, Callable[..., list[Any] | None]] = {
    "_searchsorted_scan_impl": _searchsorted,
    "signbit": _signbit,
}


TRACED: dict[str, Callable[..., list[Any] | None]] = {
    "lt_to": _total_order,
    "le_to": _total_order,
    "cumprod": _cumulative,
    "cummax": _cumulative,
    "cummin": _cumulative,
    "cumlogsumexp": _cumulative,
    "clamp": _clamp,
    "reduce_window_sum": _window,
    "reduce_window_max": _window,
    "reduce_window_min": _window,
    "select_and_scatter_add": _select_and_scatter_add,
    "reduce_or": _any_all,
    "reduce_and": _any_all,
    "top_k": _top_k,
    "lu": _lu,
    "psum": _psum,
    "tridiagonal_solve": _tridiagonal_solve,
    "reduce": _reduce,
}
