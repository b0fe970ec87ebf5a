"""The element level's made function called as the array level's is: with the Python
callable's own arguments.

A graph of scalars (the element level of a function, :func:`~dgraph.frontends.
from_python`) takes its inputs as one vector ``x`` and its parameters as one vector
``p``, and returns J of shape (m, n), J·v of (m,), wᵀJ of (n,). Which level a function
gets depends on its size (``DEFAULT_EDGE_LIMIT``), so ``G(A, b)`` of ``def g(A, b)``
failed at the element level and worked at the array level. :class:`OwnCall` maps a call
with the callable's own arguments onto the flat one and the flat results back onto the
array level's (:class:`~dgraph.codegen.function.GeneratedFunction`, JAX's pytrees:
``jax.jacobian(f, argnums=(0, 1, …))``'s nesting, one block ``y.shape + x.shape``, a
sparse one ``(y.size, x.size)``). The flat call still works where it is not the own call.
A function of one vector is called the same way by both; one returning one vector or a
list of outputs keeps the flat (m, n) results, one returning a scalar or a matrix gets the
array level's (a scalar's J ``(n,)``, as ``jax.grad``'s).
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["OwnCall", "PytreeCall", "nested_blocks", "own_call"]

Shape = tuple[int, ...]

#: each mode's own call: the groups of arguments it takes, in order ("x" the inputs, "t"
#: their tangents, "w" the outputs' cotangents, "p" the parameters)
_GROUPS = {
    "jacobian": ("x", "p"),
    "value_and_jacobian": ("x", "p"),
    "jvp": ("x", "t", "p"),
    "vjp": ("x", "w", "p"),
    "hessian": ("x", "p"),
    "value_gradient_hessian": ("x", "p"),
    "hvp": ("x", "p", "t"),
}


@dataclass(frozen=True)
class OwnCall:
    """A callable's own call of a graph of scalars' made function: its differentiated
    arguments ``inputs`` and its parameters ``params`` (names and shapes, in the order
    the array level takes them: the inputs, then the parameters, each in the callable's
    order; a Lagrangian's weights ``v`` last), its outputs' shapes ``outputs``, and
    whether the flat function takes ``p`` (``flat_params``)."""

    mode: str
    lang: str
    inputs: tuple[tuple[str, Shape], ...]
    params: tuple[tuple[str, Shape], ...]
    outputs: tuple[Shape, ...]
    flat_params: bool

    def _expected(self) -> list[tuple[str, Shape]]:
        """The own call's arguments (names and shapes) in order."""
        groups = {
            "x": list(self.inputs),
            "t": [(f"t_{n}", s) for n, s in self.inputs],
            "w": [
                (f"w_y{k}" if len(self.outputs) > 1 else "w", s) for k, s in enumerate(self.outputs)
            ],
            "p": list(self.params),
        }
        return [a for g in _GROUPS[self.mode] for a in groups[g]]

    def positions(self, names: Sequence[str]) -> dict[int, str]:
        """Where the own call takes the parameters ``names`` (index data)."""
        return {k: n for k, (n, _) in enumerate(self._expected()) if n in names}

    def adapt(self, arrays: Sequence[Any]) -> tuple[Sequence[Any], Callable[[Any], Any]] | None:
        """``(flat arguments, the map of the flat result to the own call's)`` where
        ``arrays`` are the own call's (their count and shapes), None where they are the
        flat call's (one vector ``x``, as before).

        Raises
        ------
        InputError
            One line where they are neither: the own call's arguments and the flat call's
            named.
        """
        expected = self._expected()
        flat = 2 + self.flat_params if self.mode in ("jvp", "vjp", "hvp") else 1 + self.flat_params
        size = sum(math.prod(s) for _, s in self.inputs)
        x = np.shape(arrays[0]) if arrays else ()
        flat_call = len(arrays) == flat and len(x) in (1, 2) and x[-1] == size  # (n,), (B, n)
        if len(arrays) == len(expected):
            wrong = next(
                ((n, np.shape(a), s) for a, (n, s) in zip(arrays, expected, strict=True)
                 if np.shape(a) != s),
                None,
            )  # fmt: skip
            if wrong is None:
                return self._flat(arrays), self._result
            if not flat_call:
                name, given, shape = wrong
                raise InputError(
                    f"{self.mode}: argument {name} has shape {given}, not {shape} (one point"
                    " per call)"
                )
        if flat_call:
            return None
        own = ", ".join(n for n, _ in expected)
        old = {"jvp": "x, v", "vjp": "x, w", "hvp": "x, t"}.get(self.mode, "x")
        old = old.replace(", ", ", p, ") if self.mode == "hvp" and self.flat_params else old
        if self.flat_params and self.mode != "hvp":
            old += ", p"
        raise InputError(
            f"{self.mode} takes the function's own arguments ({own}): {len(arrays)} given"
            f" (or one vector of all the inputs: {old})"
        )

    def _flat(self, arrays: Sequence[Any]) -> list[Any]:
        """The flat call's arguments: each group of the own call concatenated."""
        groups: dict[str, list[Any]] = {g: [] for g in _GROUPS[self.mode]}
        counts = {"x": len(self.inputs), "t": len(self.inputs), "w": len(self.outputs),
                  "p": len(self.params)}  # fmt: skip
        rest = iter(arrays)
        for g in _GROUPS[self.mode]:
            groups[g] = [next(rest) for _ in range(counts[g])]
        return [
            self._concatenated(groups[g])
            for g in _GROUPS[self.mode]
            if g != "p" or self.flat_params
        ]

    def _concatenated(self, parts: Sequence[Any]) -> Any:
        if self.lang == "jax":
            import jax.numpy as jnp

            return jnp.concatenate([jnp.ravel(jnp.asarray(a)) for a in parts])
        return np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in parts])

    def _result(self, result: Any) -> Any:
        """The flat call's result as the array level returns it."""
        xs = [s for _, s in self.inputs]
        if self.mode == "jacobian":
            return nested_blocks(result, self.outputs, xs)
        if self.mode == "value_and_jacobian":
            value, J = result
            return _split(value, self.outputs), nested_blocks(J, self.outputs, xs)
        if self.mode == "jvp":
            return _split(result, self.outputs)
        if self.mode in ("vjp", "hvp"):
            return _split(result, xs)
        if self.mode == "hessian":
            return nested_blocks(result, xs, xs)
        value, gradient, H = result
        return value.reshape(()), _split(gradient, xs), nested_blocks(H, xs, xs)


def _split(vector: Any, shapes: Sequence[Shape]) -> Any:
    """``vector`` cut into arrays of ``shapes`` (one array for one shape)."""
    parts, at = [], 0
    for shape in shapes:
        size = math.prod(shape)
        parts.append(vector[at : at + size].reshape(shape))
        at += size
    return parts[0] if len(parts) == 1 else tuple(parts)


def nested_blocks(J: Any, rows: Sequence[Shape], columns: Sequence[Shape]) -> Any:
    """``J`` (dense, SciPy sparse or a JAX BCOO) as ``jax.jacobian``'s nesting of its
    blocks: dense ones of shape ``row + column``, sparse ones ``(row size, column
    size)``; a tuple over the columns for one row, over the rows for one column, else a
    tuple over the rows of tuples over the columns."""
    sparse = not isinstance(J, np.ndarray) and (hasattr(J, "tocsr") or hasattr(J, "todense"))
    if sparse and len(rows) == len(columns) == 1:
        return J
    r = np.cumsum([0, *(math.prod(s) for s in rows)])
    c = np.cumsum([0, *(math.prod(s) for s in columns)])

    def block(i: int, j: int) -> Any:
        if not sparse:
            return J[r[i] : r[i + 1], c[j] : c[j + 1]].reshape(rows[i] + columns[j])
        if hasattr(J, "tocsr"):
            return J[r[i] : r[i + 1], c[j] : c[j + 1]]
        from jax.experimental import sparse as jsparse

        return jsparse.bcoo_slice(J, start_indices=(r[i], c[j]), limit_indices=(r[i + 1], c[j + 1]))

    nested = [[block(i, j) for j in range(len(columns))] for i in range(len(rows))]
    if len(rows) == 1:
        return nested[0][0] if len(columns) == 1 else tuple(nested[0])
    if len(columns) == 1:
        return tuple(row[0] for row in nested)
    return tuple(tuple(row) for row in nested)


def _shape(size: Any) -> Shape:
    """A ``sizes=`` entry as a shape: an int a vector's length, 0 a scalar."""
    if isinstance(size, (int, np.integer)):
        return (int(size),) if size else ()
    return tuple(int(n) for n in size)


def own_call(
    f: Callable[..., Any],
    mode: str,
    lang: str,
    graph: Any,
    *,
    params: Sequence[str],
    sizes: Sequence[Any] | None,
    point: Sequence[Any] | None,
) -> OwnCall | None:
    """The own call of ``f``'s made function whose flat function is of ``graph`` (a graph
    of scalars: the element level, or a Hessian's graph of it), or None where the flat
    call is the own one (one vector argument to one vector or to a list of outputs,
    where the (m, n) matrix is kept; to one scalar or matrix the array level's shapes: a
    scalar's J is ``(n,)`` as ``jax.jacobian``'s, not ``(1, n)``) or the graph's entries
    are not ``f``'s arguments' (then the flat call alone, as before)."""
    if mode not in _GROUPS or lang == "cuda" or graph.is_tensor:
        return None
    try:
        signature = inspect.signature(f).parameters
    except (TypeError, ValueError):
        return None
    given = sizes if sizes is not None else point
    if given is None:
        return None
    names = list(signature)[: len(given)]
    if len(names) != len(given):
        return None
    shapes = [_shape(s) for s in sizes] if sizes is not None else [np.shape(v) for v in point]
    inputs = [(n, s) for n, s in zip(names, shapes, strict=True) if n not in params]
    kept = [(n, s) for n, s in zip(names, shapes, strict=True) if n in params]
    # the flat call is the own call: one vector in, and the parameters, if any, one vector p
    flat_p = len(kept) < 2 and all(len(s) == 1 for _, s in kept)
    one_vector = len(inputs) == 1 and len(inputs[0][1]) == 1 and flat_p
    if one_vector and mode not in ("jacobian", "value_and_jacobian", "jvp", "vjp"):
        return None
    if sum(math.prod(s) for _, s in inputs) != len(graph.inputs):
        return None
    extra = len(graph.parameters) - sum(math.prod(s) for _, s in kept)
    if extra < 0 or (extra and mode not in ("hessian", "hvp", "value_gradient_hessian")):
        return None
    if extra:  # a Lagrangian's weights, taken last
        kept.append(("v", (extra,)))
    outputs: list[Shape] = [(len(graph.outputs),)]
    if mode in ("jacobian", "value_and_jacobian", "jvp", "vjp"):
        outputs = _output_shapes(f, names, shapes, params, sizes, point) or outputs
        if sum(math.prod(s) for s in outputs) != len(graph.outputs):
            outputs = [(len(graph.outputs),)]
    if one_vector and (len(outputs) != 1 or len(outputs[0]) == 1):
        return None  # one vector to one vector, or to a list of outputs: (m, n) as before
    return OwnCall(mode, lang, tuple(inputs), tuple(kept), tuple(outputs), bool(graph.parameters))


def _output_shapes(
    f: Callable[..., Any],
    names: Sequence[str],
    shapes: Sequence[Shape],
    params: Sequence[str],
    sizes: Sequence[Any] | None,
    point: Sequence[Any] | None,
) -> list[Shape] | None:
    """The shapes of ``f``'s outputs (one array, or a tuple or list of them), ``f`` run
    at the point (ones where it gives no value); None where it fails there."""
    if point is not None and len(point) == len(names):
        args = [np.asarray(v) for v in point]
    else:
        free = iter(point or ())
        args = [
            np.asarray(next(free)) if point is not None and n not in params else np.ones(s)
            for n, s in zip(names, shapes, strict=True)
        ]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # the readers ran f and said what it warned
            out = f(*args)
    except Exception:  # the readers ran f; here only its outputs' shapes are wanted
        return None
    leaves = out if isinstance(out, (tuple, list)) else (out,)
    try:
        return [tuple(np.shape(y)) for y in leaves]
    except (TypeError, ValueError):
        return None


class PytreeCall:
    """The made function of a function of pytrees (:class:`~dgraph.frontends.pytrees.
    Pytrees`), which is made of the function of their leaves: a call's pytrees
    flattened (each checked against the point's structure and shapes), the leaves' call
    (the array level's, or the element level's flat call through :class:`OwnCall`) and
    its results nested as ``jax.jacobian(f, argnums=(0, 1, …))``, ``jax.jvp``,
    ``jax.vjp``'s pullback and ``jax.hessian`` nest theirs: a dict argument gives a dict
    of blocks, a dict output a dict over its leaves. ``sparse``: J (H) kept as the one
    (Σ size(y), Σ size(x)) matrix, leaves in flatten order, as solvers take it."""

    def __init__(self, trees: Any, mode: str, lang: str, graph: Any, sparse: bool):
        from jax import tree_util

        from ..frontends.integer_arguments import integer_kind

        self.trees, self.mode, self.sparse, self._tree_util = trees, mode, sparse, tree_util
        leaf = tree_util.tree_structure(0)
        self.defs = [leaf if d is None else d for d in trees.treedefs]
        ranges, at = [], 0
        for d in self.defs:
            ranges.append(range(at, at + d.num_leaves))
            at += d.num_leaves
        kept = set(trees.params)
        fixed = [
            all(trees.names[k] in kept or integer_kind(trees.leaves[k]) for k in r) for r in ranges
        ]
        self.x_args = [a for a, p in enumerate(fixed) if not p]  # differentiated, in order
        self.p_args = [a for a, p in enumerate(fixed) if p]
        self.ranges = ranges
        self.out = trees.out_treedef if trees.out_treedef is not None else leaf
        self.outputs = [tuple(s) for s in trees.output_shapes] or [()]
        xs = [(trees.names[k], trees.shapes[k]) for a in self.x_args for k in ranges[a]]
        ps = [(trees.names[k], trees.shapes[k]) for a in self.p_args for k in ranges[a]]
        self.tensor = graph.is_tensor
        self.extra = len(graph.parameters) - (
            len(ps) if graph.is_tensor else sum(math.prod(s) for _, s in ps)
        )  # a Lagrangian's weights, taken last
        if self.extra and not graph.is_tensor:
            ps.append(("v", (self.extra,)))
        self.flat = OwnCall(mode, lang, tuple(xs), tuple(ps), tuple(self.outputs),
                            bool(graph.parameters))  # fmt: skip

    def _order(self) -> list[tuple[str, int]]:
        """The call's arguments: each group's (``x``, ``t``, ``w``, ``p``) and which:
        ``f``'s argument at that position, the output's cotangent (-1), a Lagrangian's
        weights ``v`` (-2, last of the parameters)."""
        groups = {"x": self.x_args, "t": self.x_args, "w": [-1],
                  "p": self.p_args + ([-2] if self.extra else [])}  # fmt: skip
        return [(g, a) for g in _GROUPS[self.mode] for a in groups[g]]

    def leaves(self, arrays: Sequence[Any]) -> list[Any]:
        """The leaves' call of ``arrays`` (the pytrees' call): each group's leaves in
        order.

        Raises
        ------
        InputError
            One line for another count of arguments, a pytree of another structure (a
            key missing), or a leaf of another shape.
        """
        order = self._order()
        if len(arrays) != len(order):
            names = self.trees.arguments
            shown = [
                "w" if a == -1 else "v" if a == -2 else f"t_{names[a]}" if g == "t" else names[a]
                for g, a in order
            ]
            raise InputError(
                f"{self.mode} takes the function's own arguments ({', '.join(shown)}):"
                f" {len(arrays)} given"
            )
        leaves: list[Any] = []
        for (group, a), value in zip(order, arrays, strict=True):
            leaves += [value] if a == -2 else self._flattened(value, a, group)
        return leaves

    def _flattened(self, value: Any, a: int, group: str) -> list[Any]:
        """``value`` (argument ``a``'s, or the output's cotangent for ``a`` = -1) as its
        leaves, checked against the point's structure and shapes."""
        if a < 0:
            treedef, shapes = self.out, self.outputs
            labels = [f"w{k}" for k in range(len(shapes))]
            name = "w"
        else:
            treedef = self.defs[a]
            shapes = [self.trees.shapes[k] for k in self.ranges[a]]
            labels = [self.trees.labels[k] for k in self.ranges[a]]
            name = self.trees.arguments[a]
        name = f"t_{name}" if group == "t" else name
        if treedef.num_leaves == 1 and not treedef.children():
            leaves = [value]  # an array (a list of numbers is one too)
        else:
            leaves, given = self._tree_util.tree_flatten(value)
            if given != treedef:
                raise InputError(
                    f"{self.mode}: argument {name} is {_shown(given)}, not the point's"
                    f" {_shown(treedef)}"
                )
        for leaf, shape, label in zip(leaves, shapes, labels, strict=True):
            if np.iscomplexobj(leaf):
                raise InputError(
                    f"{self.mode}: {label} is complex; the generated code is of real arguments"
                    " (give real and imaginary parts as leaves of their own)"
                )
            if np.shape(leaf) != shape:
                label = f"t_{label}" if group == "t" else label
                raise InputError(
                    f"{self.mode}: {label} has shape {np.shape(leaf)}, not {shape} (one"
                    " point per call)"
                )
        return leaves

    def __call__(self, call: Callable[..., Any], arrays: Sequence[Any]) -> Any:
        """The made function (``call``: the leaves' call) on the pytrees ``arrays``."""
        leaves = self.leaves(arrays)
        if self.tensor:
            return self._nested(call(*leaves), flat=False)
        return self._nested(call(*self.flat._flat(leaves)), flat=True)

    def _nested(self, result: Any, flat: bool) -> Any:
        """``result`` of the leaves' call nested as JAX nests it for the pytrees."""
        rows, cols = len(self.outputs), len(self.flat.inputs)
        mode = self.mode
        if mode == "jacobian":
            return self._jacobian(result, rows, cols, flat)
        if mode == "value_and_jacobian":
            value, J = result
            return self._outputs(value, flat), self._jacobian(J, rows, cols, flat)
        if mode == "jvp":
            return self._outputs(result, flat)
        xs = [s for _, s in self.flat.inputs]
        if mode in ("vjp", "hvp"):
            return self._inputs(_listed(_split(result, xs) if flat else result, cols))
        if mode == "hessian":
            return self._hessian(result, flat)
        value, gradient, H = result
        gradient = _listed(_split(gradient, xs) if flat else gradient, cols)
        return value.reshape(()), self._inputs(gradient), self._hessian(H, flat)

    def _jacobian(self, J: Any, rows: int, cols: int, flat: bool) -> Any:
        if self.sparse:
            return J if flat else _stacked(_grid(J, rows, cols))
        if flat:
            J = nested_blocks(J, self.outputs, [s for _, s in self.flat.inputs])
        grid = _grid(J, rows, cols)
        return self._tree_util.tree_unflatten(self.out, [self._inputs(row) for row in grid])

    def _hessian(self, H: Any, flat: bool) -> Any:
        xs = [s for _, s in self.flat.inputs]
        if self.sparse:
            return H if flat else _stacked(_grid(H, len(xs), len(xs)))
        grid = _grid(nested_blocks(H, xs, xs) if flat else H, len(xs), len(xs))
        return self._inputs([self._inputs(row) for row in grid])

    def _outputs(self, parts: Any, flat: bool) -> Any:
        """Values over the output's leaves (one array for one) as the output's pytree."""
        parts = _split(parts, self.outputs) if flat else parts
        return self._tree_util.tree_unflatten(self.out, _listed(parts, len(self.outputs)))

    def _inputs(self, listed: Sequence[Any]) -> Any:
        """Values over the differentiated leaves (a list, one each) as ``f``'s
        differentiated arguments' pytrees: one pytree for one argument, else a tuple."""
        rest = iter(listed)
        trees = [
            self._tree_util.tree_unflatten(self.defs[a], [next(rest) for _ in self.ranges[a]])
            for a in self.x_args
        ]
        return trees[0] if len(trees) == 1 else tuple(trees)


def _listed(parts: Any, count: int) -> list[Any]:
    """``count`` values in :func:`_split`'s form (one array for one, else a tuple) as a
    list."""
    return [parts] if count == 1 else list(parts)


def _shown(treedef: Any) -> str:
    """A pytree's structure as one short line (``{'W1': *, 'b1': *}``)."""
    text = str(treedef).removeprefix("PyTreeDef(").removesuffix(")")
    return text if len(text) <= 80 else text[:79] + "…"


def _grid(nested: Any, rows: int, cols: int) -> list[list[Any]]:
    """:func:`nested_blocks`' nesting of ``rows`` × ``cols`` blocks as a list of rows."""
    if rows == cols == 1:
        return [[nested]]
    if rows == 1:
        return [list(nested)]
    if cols == 1:
        return [[block] for block in nested]
    return [list(row) for row in nested]


def _stacked(grid: list[list[Any]]) -> Any:
    """Sparse blocks (SciPy's or JAX's BCOO, each (size(y), size(x))) as one matrix."""
    if len(grid) == len(grid[0]) == 1:
        return grid[0][0]
    if hasattr(grid[0][0], "tocsr"):
        import scipy.sparse as sp

        return sp.csr_array(sp.block_array(grid))
    from jax.experimental import sparse as jsparse

    return jsparse.bcoo_concatenate(
        [jsparse.bcoo_concatenate(row, dimension=1) for row in grid], dimension=0
    )
