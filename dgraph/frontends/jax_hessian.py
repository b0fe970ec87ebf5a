"""The Hessian graph of a JAX function: the graph of its gradient, read by the one jaxpr
reader.

The Hessian is the Jacobian of the adjoint computation (Dixon's Hessian graph: the
forward sweep, its mirror image for the adjoints, and the nonlinear edges between them).
For a JAX function that computation is JAX's own gradient: ``jax.grad(f)`` for a scalar
``f``, and for a vector ``f`` with weights ``v`` the gradient of the Lagrangian
``vᵀf(x)`` (``x ↦ vjp(f, x)(v)``, ``v`` a parameter), so that ``H(x, v)`` is
``scipy.optimize``'s ``hess(x, v)``. Its jaxpr read at the array level is a handful of
tensor vertices whatever the size: the second-order blocks are the first-order blocks of
the backward operations (an elementwise operation's are diagonal; a contraction's the
bilinear cross term), and every Jacobian method, the value check and the sparse code
generators apply to it unchanged. A function that computes complex values is re-traced as
pairs of real arrays (:func:`~.jaxpr_complex.complex_pairs`) before JAX takes its
gradient: JAX's ``abs`` rule is 0 at ``z = 0``, so its gradient of a power spectrum
``|z|²`` has lost the second derivative at a zero bin, where ``re² + im²`` keeps it.

>>> import jax.numpy as jnp
>>> g = gradient_graph(lambda x: jnp.sum(x[1:] * x[:-1]), np.ones(4))
>>> g.is_tensor, g.inputs, g.outputs
(True, ['x'], ['y'])
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..blocks.arrays import ArrayOp, Const
from ..core.graph import DGraph
from ..errors import InputError
from .integer_casts import float_index_hint
from .jaxpr import from_jax
from .jaxpr_arrays import (
    JaxJvp,
    NotJax,
    conversion_errors,
    jax_module,
    parameter_names,
    x64,
)
from .jaxpr_complex import complex_pairs, has_complex, zero_modulus
from .jaxpr_det_stack import stacked_determinants
from .jaxpr_eig import reads_eig
from .jaxpr_prefix_sums import prefix_differences
from .jaxpr_reductions import reduction_loops
from .jaxpr_reverse_while import SLOTS, has_while, reverse_loops
from .jaxpr_static_while import static_trip_loops
from .jaxpr_unrolled_sums import unrolled_sums

__all__ = [
    "WEIGHTS",
    "ZERO_MODULUS",
    "ModulusJvp",
    "gradient_graph",
    "has_select",
    "jax_source",
    "real_array",
]

WEIGHTS = "v"  # the Lagrangian's weights' parameter name (another if f has a parameter v)
REVERSE_REFUSED = "Reverse-mode differentiation does not work for lax.while_loop"  # JAX's


def real_array(value: Any, what: str) -> np.ndarray:
    """``value`` (an example argument, the weights) as an array of doubles; integers and
    booleans are converted, complex numbers and what is not numbers refused in one line
    (a complex point's imaginary part was dropped with a warning, text was a ValueError).

    >>> real_array([1, 2], "x")
    array([1., 2.])
    """
    pytree = (
        f"{what}: a {type(value).__name__}, not an array of numbers (a dict or list of arrays:"
        " pass each array, or flatten them, jax.flatten_util.ravel_pytree)"
    )
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):  # a ragged list
        raise InputError(pytree) from None
    if array.dtype.kind == "O":
        raise InputError(pytree)
    if array.dtype.kind == "c":
        raise InputError(
            f"{what}: complex numbers; the Hessian is of a real function of real arguments"
            " (give the real and imaginary parts as arguments of their own)"
        )
    if array.dtype.kind not in "biuf":
        raise InputError(f"{what}: not numbers (an array of {array.dtype})")
    return array.astype(np.float64)


def has_select(jaxpr: Any) -> bool:
    """Whether ``jaxpr``, or one inside it (a call, a loop's body, a branch), selects
    (``select_n``: ``jnp.where``, ``jnp.maximum``'s rule aside): where it does not, no
    case of it is guarded (:mod:`~dgraph.core.untaken`) and its array level need not be
    read for the Hessian."""
    pending = [jaxpr]
    while pending:
        j = pending.pop()
        j = getattr(j, "jaxpr", j)
        for e in j.eqns:
            if e.primitive.name == "select_n":
                return True
            for p in e.params.values():
                inner = p if isinstance(p, (tuple, list)) else (p,)
                pending += [x for x in inner if hasattr(x, "eqns") or hasattr(x, "jaxpr")]
    return False


def gradient_graph(
    f: Callable[..., Any],
    *example_args: Any,
    weights: Any = None,
    params: Sequence[str] = (),
    level: str = "array",
    name: str = "",
    value: bool = False,
    traced: Any = None,
) -> DGraph:
    """The graph of ``x ↦ ∇f(x)`` (``weights`` given: of ``x ↦ ∇(vᵀf(x))``): its
    Jacobian is the Hessian of ``f`` (of the Lagrangian).

    Parameters
    ----------
    f
        A JAX function of arrays; its parameters name the inputs.
    example_args
        Arrays whose shapes make the inputs, and the graph's point.
    weights
        For ``f`` returning an array: the weights ``v`` of ``vᵀf`` at the point (an array
        of ``f``'s output shape); the graph takes them as its last parameter (named
        :data:`WEIGHTS`, or ``weights`` where ``f`` has a parameter ``v``), so generated
        code is ``H(x, v)``. None for a scalar ``f`` (or one weight: its Lagrangian ``v·f``).
    params
        Parameters of ``f`` that are not differentiated.
    level
        ``"array"`` (one tensor vertex per equation) or ``"element"`` (expanded).
    name
        The graph's name (default: ``f``'s).
    value
        Also output the value (``f``, or ``vᵀf``) first: the graph of JAX's
        ``value_and_grad``.
    traced
        ``jax.make_jaxpr(f, return_shape=True)(*example_args)`` in float64, where the
        caller traced ``f`` there already (its primal's check, a select's search): not
        traced again.

    Returns
    -------
    DGraph
        Its inputs ``f``'s differentiated arguments, its outputs their gradients (after
        the value with ``value``).

    Raises
    ------
    InputError
        ``f`` returns an array and no weights are given, more than one weight for a scalar ``f``,
        weights of the wrong shape, an output that is not one array, or what
        :func:`~dgraph.frontends.from_jax` refuses.
    """
    jax = jax_module()
    args = [real_array(a, f"the Hessian: argument {k + 1}") for k, a in enumerate(example_args)]
    if not args:
        raise InputError("the Hessian: give example arguments (their shapes make the inputs)")
    names = parameter_names(f, len(args))
    params = list(params)
    fixed = [k for k, p in enumerate(names) if p in params]
    free = tuple(k for k in range(len(args)) if k not in fixed)
    if not free:
        raise InputError("the Hessian: every argument is in params: nothing to differentiate")
    empty = next((k for k in free if args[k].size == 0), None)
    if empty is not None:
        raise InputError(
            f"the Hessian: {names[empty]!r} has no entries (shape {args[empty].shape}):"
            " nothing to differentiate"
        )
    closed, shape = _output_shape(jax, f, args, traced)  # f's jaxpr at args: one trace
    if weights is None and shape != ():
        raise InputError(
            f"the Hessian of a function returning shape {shape}: give weights= (one per"
            " output entry, --weights on the command line: the Hessian of the Lagrangian vᵀf)"
        )
    if weights is not None and shape == ():
        f, closed, shape = _one_weight(jax, f, args, weights)
    label = name or getattr(f, "__name__", "") or "f"
    label = "f" if label == "<lambda>" else label
    with x64(jax):  # a while_loop JAX's reverse mode refuses, where its trip count is fixed
        scans = reversed_ = None
        given = f
        program = closed.jaxpr
        if reads_eig(program) or reads_eig(program, "schur"):
            raise InputError(f"{label}: {HESSIAN_REFUSED}")
        loops = has_while(program)  # else neither traces f again
        if loops:
            scans = static_trip_loops(jax, f, args)
        f = written = f if scans is None else _named(scans, names)
        if loops:
            entries = sum(args[k].size for k in free)  # the tangents forward mode carries
            reversed_ = reverse_loops(jax, f, args, entries)  # the others: a reverse sweep
        f = f if reversed_ is None else _named(reversed_, names)
        maps = reduction_loops(jax, f, args, closed if f is given else None)  # JAX's gradient
    mapped = f if maps is None else _named(maps, names)  # of a map, before it differentiates
    with x64(jax):  # a Python loop's sum of alike terms as a map (its values checked)
        rolled = unrolled_sums(jax, mapped, args, closed if mapped is given else None)
    if rolled is not None:  # JAX's derivative of the map the reference: f's unrolled costs
        mapped = _named(rolled, names)  # a JAX trace per element
    with x64(jax):  # a stacked det per matrix: its gradient's solves one matrix each
        stacked = stacked_determinants(jax, mapped, args, closed if mapped is given else None)
    if stacked is not None:  # f's own gradient the reference, as for maps
        maps = mapped = _named(stacked, names)
    with x64(jax):  # cumsum differences as window sums: exact patterns, as for maps
        windowed = prefix_differences(jax, mapped, args, closed if mapped is given else None)
    if windowed is not None:
        maps = mapped = _named(windowed, names)
    # complex: pairs before JAX's gradient
    paired = _paired(jax, mapped, args, names, label, closed if mapped is given else None)
    if paired is not None:  # read instead of f; f's own gradient the reference, as for maps
        maps, mapped = paired, paired
    if weights is None:

        def gradients(f: Callable[..., Any], forward: bool = False) -> tuple[Callable, Callable]:
            grad = jax.value_and_grad(f, argnums=free) if value else jax.grad(f, argnums=free)
            tangents = _forward_gradient(jax, f, free, value)
            backward = tangents if forward else grad
            return (
                lambda *a: _unwrapped(backward(*a), value),
                lambda *a: _unwrapped(tangents(*a), value),
            )

        return _read_gradient(
            _reading(gradients, mapped, written, reversed_),
            _reference(gradients, f, written, maps, reversed_),
            names,
            args,
            None if paired is None else (f, len(args)),
            _reversed_note(reversed_),
            level=level,
            params=params,
            name=f"grad_{label}",
        )
    v = real_array(weights, "weights")
    if v.shape != shape:
        raise InputError(
            f"weights of shape {v.shape}: f returns shape {shape}, one weight per output entry"
        )
    w = WEIGHTS if WEIGHTS not in names else "weights"
    if w in names:
        raise InputError("f has parameters named both 'v' and 'weights': rename one")

    def lagrangian_gradients(
        f: Callable[..., Any], forward: bool = False
    ) -> tuple[Callable, Callable]:
        def lagrangian_gradient(*a: Any) -> Any:  # JAX's pullback of v: the adjoint sweep
            *xs, multipliers = a
            out, pullback = jax.vjp(lambda *d: f(*_merged(xs, d, free)), *(xs[k] for k in free))
            grads = pullback(multipliers)
            if value:
                return (jax.numpy.sum(multipliers * out), *grads)
            return grads[0] if len(grads) == 1 else grads

        def forward_lagrangian(*a: Any) -> Any:
            *xs, multipliers = a
            weighted = lambda *d: jax.numpy.sum(multipliers * f(*d))  # noqa: E731
            return _unwrapped(_forward_gradient(jax, weighted, free, value)(*xs), value)

        return forward_lagrangian if forward else lagrangian_gradient, forward_lagrangian

    return _read_gradient(
        _reading(lagrangian_gradients, mapped, written, reversed_),
        _reference(lagrangian_gradients, f, written, maps, reversed_),
        [*names, w],
        [*args, v],
        None if paired is None else (f, len(args)),
        _reversed_note(reversed_),
        level=level,
        params=[*params, w],
        name=f"grad_{label}_lagrangian",
    )


REVERSED = (
    "a while_loop whose trip count the inputs reach is differentiated by a reverse sweep of"
    " its own: the forward loop counts its trips wherever the function is called, the"
    " reverse sweep runs that many steps (each step's state recomputed from the nearest of up to"
    f" {SLOTS} checkpoints), so the derivative is that of the trip count at the point it is"
    " called at"
)


def _reversed_note(reversed_: Callable[..., Any] | None) -> str:
    return "" if reversed_ is None else REVERSED


def _reading(
    gradients: Callable[..., tuple[Callable, Callable]],
    mapped: Callable[..., Any],
    written: Callable[..., Any],
    reversed_: Callable[..., Any] | None,
) -> tuple[Callable, Callable]:
    """What :func:`_read_gradient` reads: ``mapped``'s gradients, the forward mode of the
    loops as ``written`` where a ``while_loop`` was given a reverse sweep (JAX has no
    forward mode of the ``custom_vjp`` that holds it; read where JAX refuses reverse mode
    through another loop, one nested in a ``cond``)."""
    read = gradients(mapped)
    return read if reversed_ is None else (read[0], gradients(written, forward=True)[1])


def _reference(
    gradients: Callable[..., tuple[Callable, Callable]],
    f: Callable[..., Any],
    written: Callable[..., Any],
    maps: Callable[..., Any] | None,
    reversed_: Callable[..., Any] | None,
) -> tuple[Callable, Callable] | None:
    """The gradients :func:`_read_gradient` takes as ``looped`` (its reference, and what
    it reads where the first read is refused): where a ``while_loop`` was given a reverse
    sweep (:func:`~.jaxpr_reverse_while.reverse_loops`), JAX's forward mode through the
    loop as written (``written``), so that the check compares that sweep with JAX's own
    derivative; else ``f``'s loops as written where ``f``'s reductions were read as maps
    (``maps``), else None."""
    if reversed_ is not None:
        return gradients(written, forward=True)
    return gradients(f) if maps is not None else None


def _read_gradient(
    read: tuple[Callable[..., Any], Callable[..., Any]],
    looped: tuple[Callable[..., Any], Callable[..., Any]] | None,
    names: list[str],
    args: list[Any],
    paired: tuple[Callable[..., Any], int] | None,
    note: str = "",
    **options: Any,
) -> DGraph:
    """The graph of ``read[0]`` (JAX's reverse-mode gradient), or of ``read[1]`` (its
    forward mode, :func:`_forward_gradient`) where JAX refuses reverse mode
    (:data:`REVERSE_REFUSED`); each takes the arguments ``names``. ``looped``: the same
    gradients of ``f`` with its loops as written (``read``'s run reductions as maps,
    :mod:`.jaxpr_reductions`), the graph's reference instead of what was read, so that
    the check compares the map with the loops JAX runs. ``paired``: ``f`` as written (and
    its number of arguments) where
    ``read`` differentiates its complex values as pairs (:func:`_paired`); the reference
    then declines a point where ``f`` takes ``|z|`` at ``z = 0`` (:class:`ModulusJvp`).
    ``note``: added to the graph's notes where ``read[0]`` is read."""
    try:
        graph, k = from_jax(_named(read[0], names), *args, **options), 0
    except InputError as error:
        if REVERSE_REFUSED not in str(error):
            if looped is None:
                raise
            return _read_gradient(looped, None, names, args, None, **options)  # refused
        graph, k = from_jax(_named(read[1], names), *args, **options), 1
    if k == 0 and note:
        graph.notes.append(f"{graph.name}: {note}")
    reference = graph.jvp_reference
    if looped is not None and isinstance(reference, JaxJvp):
        original = _named(looped[k], names)
        if paired is None:
            graph.set_jvp_reference(
                JaxJvp(original, reference.inputs, reference.outputs, fixed=reference.fixed)
            )
        else:
            jvp = ModulusJvp(original, reference.inputs, reference.outputs, *paired)
            graph.set_jvp_reference(jvp)
    graph = _abs_one_sided(graph)
    if isinstance(graph.jvp_reference, JaxJvp):
        graph.jvp_reference.gradient = True
    return graph


def _abs_one_sided(graph: DGraph) -> DGraph:
    """``graph`` (JAX's gradient program) with each ``|x|`` of a vertex read as ``x ·
    select(x >= 0, 1, -1)``: its derivative at 0 is JAX's +1, not ``sign(0) = 0``. The
    gradient program's adjoint of ``|x|`` is JAX's ``select(x >= 0, 1, -1)``, so the
    Hessian of a smooth even composition takes the product of the two, 1 from either
    side: ``cos|x|``'s gradient is ``-sin|x|·select(x >= 0, 1, -1)`` (``-sin x``), whose
    derivative at 0 is -1, where ``sign(0)`` gave 0. Where the gradient has no
    derivative at such a point (``(|a| + |b|)²`` at ``b = 0``) the value check finds
    the comparison at its tie and does not verify it
    (:func:`~dgraph.core.value_check.check_values`). The first derivatives keep
    ``sign(0)``: this is the Hessian's graph only. The graph unchanged where no ``|x|``
    reads a vertex."""
    if not graph.is_tensor:
        return graph
    found = False
    vertices = []
    for v in graph.order():
        op = graph.op(v)
        if op is not None and op.primitive == "abs" and isinstance(op.operands[0], str):
            x, shape = op.operands[0], op.shape
            cases = (Const.of(np.full(shape, -1.0)), Const.of(np.full(shape, 1.0)))
            side = ArrayOp(
                "select_n", (ArrayOp("ge", (x, Const.of(0.0)), (), shape), *cases), (), shape
            )
            op, found = ArrayOp("mul", (x, side), (), shape), True
        vertices.append((v, graph.role(v), graph.shape(v), op))
    return graph.with_array_vertices(vertices) if found else graph


HESSIAN_REFUSED = (
    "the Hessian of a function of a nonsymmetric matrix's eigenvalues (eig, eigvals, sqrtm,"
    " logm) is not supported: their gradient reads the eigenvectors, which are not"
    " differentiated (their Jacobian, jvp and vjp are)"
)

ZERO_MODULUS = (
    "f takes |z| of a complex z that is 0 there (a power spectrum's zero bin): JAX's abs"
    " rule gives its derivative as 0, so JAX's Hessian there is not a reference (the graph"
    " differentiates |z|**2 as re² + im²)"
)


class ModulusJvp(JaxJvp):
    """JAX's ``jvp`` of the gradient of ``f`` as written (``f`` of ``arity`` arguments,
    the first of the inputs), declining a point where ``f`` takes ``|z|`` of a complex
    ``z`` with an entry exactly 0 (:func:`~.jaxpr_complex.zero_modulus`): it returns
    :data:`ZERO_MODULUS` there, and the value check passes that point over
    (:class:`~dgraph.core.value_check.Declined`), never counting it as checked."""

    def __init__(
        self,
        f: Callable[..., Any],
        inputs: list[str],
        outputs: list[str],
        function: Callable[..., Any],
        arity: int,
    ) -> None:
        super().__init__(f, inputs, outputs)
        self.function, self.arity = function, arity

    def __call__(self, inputs: dict, tangents: dict) -> Any:
        if os.getpid() != self.pid:
            return None
        jax = jax_module()
        with x64(jax):
            args = [np.asarray(inputs[x], dtype=float) for x in self.inputs[: self.arity]]
            if zero_modulus(jax, self.function, args):
                return ZERO_MODULUS
        return super().__call__(inputs, tangents)


def _paired(
    jax,
    f: Callable[..., Any],
    args: list[np.ndarray],
    names: list[str],
    where: str,
    closed: Any = None,
) -> Callable[..., Any] | None:
    """``f`` with its complex values as pairs of real arrays (:func:`complex_pairs`:
    ``|z|**2`` read as ``re² + im²``), for JAX to differentiate instead of ``f``: JAX's
    gradient of ``|z|`` is 0 at ``z = 0``, so the gradient of a power spectrum has lost its
    second derivative at a zero bin before the graph is read (Dixon's Hessian graph is of
    the gradient). None where ``f`` computes no complex value (its path unchanged) or the
    pairs refuse it (the gradient is then read, and refused, as before). ``closed``:
    ``f``'s jaxpr at ``args``, where the caller traced it already."""
    with x64(jax):
        try:
            closed = jax.make_jaxpr(f)(*args) if closed is None else closed
            if not has_complex(closed.jaxpr):
                return None
            program = complex_pairs(jax, closed, where)
        except Exception:  # InputError, or a trace that fails: the gradient read as before
            return None

    def paired(*values: Any) -> Any:
        return jax.core.eval_jaxpr(program.jaxpr, program.consts, *values)[0]

    return _named(paired, names)


def _forward_gradient(jax, f: Callable[..., Any], free: tuple[int, ...], value: bool):
    """``∇f`` by JAX's forward mode (``jacfwd``: one tangent per entry of the
    differentiated arguments, batched), as ``value_and_grad`` (with ``value``) or
    ``grad`` return it: for a function whose reverse mode JAX refuses, a ``while_loop``
    or a ``fori_loop`` with bounds known only at run time (:data:`REVERSE_REFUSED`),
    through which forward mode runs. The graph carries n tangents through the loop
    where the reverse sweep carries one adjoint: n times its size, the Hessian its
    Jacobian as before."""
    grad = jax.jacfwd(f, argnums=free)
    if not value:
        return grad
    return lambda *a: (f(*a), grad(*a))


def jax_source(graph: DGraph) -> tuple[Callable[..., Any], list[np.ndarray], list[str]] | None:
    """``(f, example_args, params)`` of a graph read from JAX at the array level (its
    :class:`~dgraph.frontends.jaxpr_arrays.JaxJvp` reference keeps ``f``), the
    arguments its point (where it has none, entries drawn from [0.5, 1.5), seed 0); None
    for any other graph."""
    reference = graph.jvp_reference
    if not isinstance(reference, JaxJvp) or not graph.is_tensor:
        return None
    rng = np.random.default_rng(0)
    shapes = {**{x: graph.shape(x) for x in graph.inputs}, **graph.parameter_shapes}
    given = {**(graph.point or {}), **graph.parameter_point}
    if any(x not in shapes for x in reference.inputs):
        return None
    args = [given[x] if x in given else rng.uniform(0.5, 1.5, shapes[x]) for x in reference.inputs]
    return reference.f, args, list(graph.parameters)


def _one_weight(
    jax, f: Callable[..., Any], args: list[np.ndarray], weights: Any
) -> tuple[Callable[..., Any], Any, tuple]:
    """A scalar ``f`` given one weight ``v`` (shape ``(1,)`` as SciPy's
    ``NonlinearConstraint`` passes a scalar constraint's ``hess(x, v)``, or ``()``): ``f``
    read as returning an array of ``v``'s shape, its Lagrangian ``v·f``; with its jaxpr
    and that shape."""
    v = real_array(weights, "weights")
    if v.size != 1 or v.ndim > 1:
        raise InputError(
            f"weights of shape {v.shape}: f returns a scalar, which takes one weight (shape"
            " (1,), a scalar constraint's multiplier) or none"
        )

    @functools.wraps(f)
    def reshaped(*a: Any) -> Any:
        return jax.numpy.reshape(f(*a), v.shape)

    closed, shape = _output_shape(jax, reshaped, args)
    return reshaped, closed, shape


def _output_shape(
    jax, f: Callable[..., Any], args: list[np.ndarray], traced: Any = None
) -> tuple[Any, tuple]:
    """``f``'s jaxpr at ``args`` (in float64) and the shape of its one output array (one
    line for a tuple, a dict, ...): one trace, which the gradient's rewrites read again
    (``traced``: the caller's, ``make_jaxpr(f, return_shape=True)``'s pair)."""
    with x64(jax):
        try:
            closed, out = jax.make_jaxpr(f, return_shape=True)(*args) if traced is None else traced
        except Exception as exc:
            line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            kind = NotJax if isinstance(exc, conversion_errors(jax)) else InputError
            raise kind(
                f"the Hessian: tracing f with JAX failed: {type(exc).__name__}: {line[:200]}"
                + float_index_hint(line)
            ) from None
    leaves = jax.tree_util.tree_leaves(out)
    if len(leaves) != 1 or not hasattr(out, "shape"):
        raise InputError(
            f"the Hessian is of a function returning one array; f returns {len(leaves)} leaves"
        )
    return closed, tuple(out.shape)


def _merged(xs: Sequence[Any], free_values: Sequence[Any], free: tuple[int, ...]) -> list[Any]:
    """``f``'s arguments: ``xs`` with the differentiated ones (at ``free``) replaced."""
    merged = list(xs)
    for k, x in zip(free, free_values, strict=True):
        merged[k] = x
    return merged


def _unwrapped(result: Any, value: bool) -> Any:
    """JAX's gradient over a tuple of argnums as one array for one argument, else the
    tuple (after the value with ``value``)."""
    if value:
        f, grads = result
        return (f, *grads)
    return result[0] if len(result) == 1 else result


def _named(function: Callable[..., Any], names: list[str]) -> Callable[..., Any]:
    """``function`` with a signature whose parameters are ``names`` (which name the
    graph's inputs and parameters)."""
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]
    )
    return function
