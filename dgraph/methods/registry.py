"""The accumulation methods by name, and :func:`accumulate`, which runs one and verifies
its result.

Every method is a function ``(graph, **options) -> ExpressionSet`` registered with what
the papers call it (its family), and its options are its keyword parameters: an option it
does not declare is refused, as networkx's flow functions refuse theirs. ``budget`` is the
one option every method takes: searches spend it, the others finish first.
:func:`accumulate` runs a method by name (or any such callable), times it and verifies
the result against Bauer's formula, so no result leaves this module unchecked.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.collector import collector_paused
from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..dominance.dstar import dstar
from ..dominance.umbrella_method import umbrella
from ..elimination.labeled import replay
from ..elimination.metagraph import edge_optimal
from ..elimination.parts import independent_parts
from ..elimination.vertex import forward, markowitz, reverse, vertex_elimination
from ..elimination.vertex_optimal import uses_exact_model, vertex_optimal
from ..errors import DGraphError, InputError
from ..faces.greedy import greedy_faces
from ..faces.optimal import face_optimal
from ..faces.sequence import replay_faces
from ..frontends import from_python
from ..frontends.integer_arguments import integer_arguments, integer_inputs_hinted
from ..frontends.pytrees import flat_arguments
from ..frontends.var_positional import spread
from ..search.best import best
from ..search.incumbent import good_order
from ..zhou.factorize import zhou
from ..zhou.layers import layers
from ..zhou.listing import list_paths

__all__ = [
    "COMPARED",
    "FAMILIES",
    "METHODS",
    "UNIVERSAL_OPTIONS",
    "MethodSpec",
    "accumulate",
    "jacobian",
    "lookup",
    "methods",
    "register",
    "traced_function",
]

UNIVERSAL_OPTIONS = ("budget",)

FAMILIES = (
    "vertex elimination",  # Naumann: forward, reverse, Markowitz, optimal orders
    "edge elimination",  # Naumann: front and back edges, the metagraph
    "face elimination",  # Naumann: the line graph
    "chains and blocks",  # Zhou
    "bracketing",  # local Jacobians between cuts, the cheapest product order
    "dominators",  # Guenter's D*, Murota-Kubota's umbrellas
    "portfolio",  # best
    "paths",  # Bauer's formula listed
    "custom",  # a user's function given to accumulate
)


@dataclass(frozen=True)
class MethodSpec:
    """A named accumulation method: its function, family, options and roles.

    ``exact`` methods search for an optimum within ``budget``; ``compared`` ones appear,
    in registration order, in :func:`dgraph.compare`'s default table; ``deterministic``
    ones give the same result however long they run (no deadline, no seed); ``needs``
    names options without which the method cannot run (a given order); ``scalar_only``
    ones price their search over scalar labels, which a tensor graph's blocks are not.
    """

    name: str
    run: Callable[..., ExpressionSet]
    family: str
    summary: str
    exact: bool = False
    compared: bool = False
    deterministic: bool = True
    needs: tuple[str, ...] = ()
    scalar_only: bool = False  # its search or its claim is priced over scalar labels
    options: Mapping[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"{self.name}: unknown family {self.family!r}")
        object.__setattr__(self, "options", _options(self.run))

    def check(self, options: Mapping[str, Any]) -> None:
        """Refuse an option the method does not declare (one it ``needs`` and lacks, the
        method itself refuses, saying how to give it)."""
        for key in options:
            if key not in self.options and key not in UNIVERSAL_OPTIONS:
                known = ", ".join(self.options) or "none besides budget"
                raise DGraphError(
                    f"method {self.name!r} takes no option {key!r}; its options: {known}"
                )

    def __call__(self, graph: DGraph, **options: Any) -> ExpressionSet:
        self.check(options)
        if self.scalar_only and graph.is_tensor:
            raise DGraphError(
                f"method {self.name!r} prices its search over scalar labels; on a tensor graph"
                " use forward, reverse, markowitz, vertex-optimal or best (priced over blocks)"
            )
        return self.run(graph, **{k: v for k, v in options.items() if k in self.options})


def _options(run: Callable[..., ExpressionSet]) -> dict[str, Any]:
    """A method's options: its keyword parameters after the graph, with their defaults."""
    params = list(inspect.signature(run).parameters.values())[1:]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise ValueError(f"{run!r}: a method declares its options; no *args or **kwargs")
    return {p.name: (None if p.default is p.empty else p.default) for p in params}


METHODS: dict[str, MethodSpec] = {}


def register(
    name: str, run: Callable[..., ExpressionSet], family: str, summary: str, **roles: Any
) -> MethodSpec:
    """Add a method under ``name``, replacing one of that name.

    Parameters
    ----------
    name
        The name :func:`accumulate`, ``compare`` and the CLI know it by.
    run
        ``run(graph, **options) -> ExpressionSet``.
    family, summary
        Its family (``"vertex elimination"``, ...) and a one-line description.
    **roles
        The other fields of :class:`MethodSpec` (``compared``, ``scalar_only``, ...).

    Returns
    -------
    MethodSpec
        The registered method.
    """
    spec = MethodSpec(name, run, family, summary, **roles)
    METHODS[name] = spec
    return spec


def methods(**roles: Any) -> list[str]:
    """The registered names whose roles match, in registration order.

    Parameters
    ----------
    **roles
        Fields of :class:`MethodSpec` and the value each must have (``family=...``,
        ``compared=True``, ...).

    Returns
    -------
    list of str

    >>> methods(family="face elimination")
    ['face-optimal', 'face-greedy', 'faces']
    """
    return [
        m.name
        for m in METHODS.values()
        if all(getattr(m, key) == value for key, value in roles.items())
    ]


def lookup(name_or_callable: str | Callable[..., ExpressionSet]) -> MethodSpec:
    """The registered method of that name, or a callable taken as a method.

    Parameters
    ----------
    name_or_callable
        A registered name, or ``f(graph, **options) -> ExpressionSet`` (its docstring's
        first line becomes the summary).

    Returns
    -------
    MethodSpec

    Raises
    ------
    DGraphError
        For a name that is not registered (the message lists those that are).
    """
    if callable(name_or_callable):
        fn = name_or_callable
        summary = (fn.__doc__ or "").strip().split("\n")[0]
        return MethodSpec(getattr(fn, "__name__", "custom"), fn, "custom", summary)
    spec = METHODS.get(name_or_callable) if isinstance(name_or_callable, str) else None
    if spec is None:
        raise DGraphError(
            f"unknown method {name_or_callable!r:.60}; available: {', '.join(METHODS)}"
            + ("" if isinstance(name_or_callable, str) else " (a name or a function)")
        )
    return spec


# -- the methods -----------------------------------------------------------------------


def _vertex(graph: DGraph, order: Sequence[str] | None = None) -> ExpressionSet:
    if order is None:
        raise DGraphError("method 'vertex' needs an elimination order (--order v1,v2,...)")
    return vertex_elimination(graph, order)


def _edges(graph: DGraph, sequence: Iterable | None = None) -> ExpressionSet:
    if sequence is None:
        raise DGraphError("method 'edges' needs a sequence (--order f:i>j,b:k>l,...)")
    return replay(graph, sequence, "edges")


def _faces(graph: DGraph, faces: Iterable | None = None) -> ExpressionSet:
    if faces is None:
        raise DGraphError("method 'faces' needs a face sequence (--order '[i->j, j->k], ...')")
    return replay_faces(graph, faces, "faces")


def _edge_optimal(
    graph: DGraph,
    metagraph: str = "full",
    budget: float | None = None,
    max_expansions: int | None = None,
) -> ExpressionSet:
    return edge_optimal(graph, metagraph, budget, max_expansions)


def _vertex_optimal(
    graph: DGraph, budget: float | None = None, max_expansions: int | None = None
) -> ExpressionSet:
    """The optimal vertex order; where a part goes to the constraint program, from a
    good order found with a fifth of the budget (:mod:`dgraph.search.incumbent`).
    ``max_expansions`` refuses a subset search that would expand more sets."""
    if budget is None or not any(uses_exact_model(p, budget) for p in independent_parts(graph)):
        return vertex_optimal(graph, budget, max_expansions=max_expansions)
    _, order = good_order(graph, INCUMBENT_SHARE * budget)
    return vertex_optimal(graph, (1 - INCUMBENT_SHARE) * budget, order, max_expansions)


INCUMBENT_SHARE = 0.2
_VERTEX, _EDGE, _FACE = "vertex elimination", "edge elimination", "face elimination"
register("forward", forward, _VERTEX, "vertex elimination in evaluation order", compared=True)
register("reverse", reverse, _VERTEX, "vertex elimination in reverse order", compared=True)
register("markowitz", markowitz, _VERTEX, "greedy smallest Markowitz degree", compared=True)
register(
    "zhou",
    zhou,
    "chains and blocks",
    "simple chains and blocks, then forward/backward factorization, pages",
    compared=True,
)
register(
    "layers",
    layers,
    "bracketing",
    "local Jacobians between depth levels (or cuts), cheapest bracketing",
    compared=True,
)
register(
    "dstar",
    dstar,
    "dominators",
    "D*: factor subgraphs by dominators, innermost then most shared first (Guenter)",
    compared=True,
)
register(
    "umbrella",
    umbrella,
    "dominators",
    "umbrellas contracted inside out (dominator trees), then the rest",
    compared=True,
)
register(
    "vertex-optimal",
    _vertex_optimal,
    _VERTEX,
    "optimal vertex elimination order (A* over eliminated sets; CP-SAT on large parts)",
    exact=True,
    compared=True,
)
register(
    "edge-optimal",
    _edge_optimal,
    _EDGE,
    "shortest path in the edge-elimination metagraph",
    exact=True,
    compared=True,
    scalar_only=True,
)
register(
    "best",
    best,
    "portfolio",
    "the cheapest verified result of a portfolio of exact and heuristic searches",
    compared=True,
    deterministic=False,
)
register(
    "face-optimal",
    face_optimal,
    _FACE,
    "the cheapest face elimination (A* over line-graph states)",
    exact=True,
    scalar_only=True,
)
register(
    "face-greedy",
    greedy_faces,
    _FACE,
    "greedy face elimination: free products first, then absorbing ones",
)
register("paths", list_paths, "paths", "every path listed: Bauer's formula")
register("vertex", _vertex, _VERTEX, "vertex elimination in a given order", needs=("order",))
register(
    "edges",
    _edges,
    _EDGE,
    "forward/backward edge elimination in a given sequence",
    needs=("sequence",),
)
register(
    "faces",
    _faces,
    _FACE,
    "face elimination in a given sequence",
    needs=("faces",),
    scalar_only=True,
)

COMPARED = methods(compared=True)


def accumulate(
    graph: DGraph,
    method: str | Callable[..., ExpressionSet] = "markowitz",
    *,
    verify: bool = True,
    **options: Any,
) -> ExpressionSet:
    """Accumulate the Jacobian of ``graph`` by ``method`` and verify the result.

    Parameters
    ----------
    graph
        The differentiation graph.
    method
        A registered method's name (:data:`METHODS`), or a function
        ``(graph, **options) -> ExpressionSet``.
    verify
        Check the result (:func:`dgraph.core.verify.verify`) unless it already is.
    **options
        The method's own options (``budget``, ``seed``, ``order``, ...).

    Returns
    -------
    ExpressionSet
        The result, its ``info["seconds"]`` the method's time.

    Raises
    ------
    DGraphError
        For an unknown method, an option the method does not take, or a method that
        returns no expression set.
    SearchTooLarge
        From an exact method asked for more than it can do.

    >>> from dgraph.frontends import bundled
    >>> g = bundled("naumann_sin.trace")
    >>> es = accumulate(g, "reverse")
    >>> es.mults, es.verified
    (3, True)
    >>> accumulate(g, "forward", budgt=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dgraph.errors.DGraphError: method 'forward' takes no option 'budgt'; its options: ...
    """
    spec = lookup(method)
    t0 = time.perf_counter()
    with collector_paused():
        es = spec(graph, **options)
    if not isinstance(es, ExpressionSet):
        raise DGraphError(
            f"method {spec.name!r} returned {type(es).__name__}, not an ExpressionSet"
        )
    seconds = round(time.perf_counter() - t0, 4)
    # the same expressions with their time; best's winner keeps the verification it got
    # within its budget
    es = es._relabeled(es.method or spec.name, {**es.info, "seconds": seconds})
    if verify and not es.verified:
        es.verify()
    return es


def jacobian(
    f: DGraph | Callable[..., Any],
    method: str | Callable[..., ExpressionSet] = "markowitz",
    *,
    n_inputs: int | None = None,
    sizes: Sequence[int | tuple[int, ...]] | None = None,
    point: Sequence[Any] | None = None,
    params: Sequence[str] = (),
    verify: bool = True,
    **options: Any,
) -> ExpressionSet:
    """The Jacobian of ``f`` — a graph, or a Python function traced by
    :func:`traced_function` — accumulated by ``method`` and verified;
    ``es.as_matrix()`` gives it as a matrix.

    Parameters
    ----------
    f
        A graph, or a Python function of scalars and vectors.
    method
        A registered method's name, or a function ``(graph, **options) -> ExpressionSet``.
    n_inputs
        ``f`` takes one sequence argument of this length.
    sizes
        Each argument's length (0 a scalar); without it and ``point`` every argument is
        a scalar, and a function that indexes or iterates one is refused.
    point
        Example arguments: their shapes give ``sizes``, and the values are where the
        result is checked first.
    params
        ``f``'s parameters that are not differentiated (a data matrix, labels), as for
        :func:`~dgraph.codegen.function.make_function`; one given in ``point`` as one
        integer that fixes the structure (a trip count ``range(n)``) is closed over at
        that value where reading it as a number fails (``es.graph.fixed_parameters``).
    verify, **options
        As for :func:`accumulate`.

    Returns
    -------
    ExpressionSet
        The verified Jacobian on ``f``'s graph (``es.graph``).

    Raises
    ------
    DGraphError
        For ``f`` neither a graph nor a function, ``n_inputs``/``sizes``/``point`` with a
        graph, or what :func:`accumulate` refuses.
    InputError
        For a function the tracer cannot read.

    >>> from sympy import cos, sin
    >>> es = jacobian(lambda r, theta: (r * cos(theta), r * sin(theta)))
    >>> es.graph.inputs, es.as_matrix(values=True)
    (['r', 'theta'], Matrix([
    [cos(theta), -r*sin(theta)],
    [sin(theta),  r*cos(theta)]]))
    >>> jacobian(lambda x: x[0] * x[1], sizes=[2]).graph.inputs
    ['x0', 'x1']
    """
    if not isinstance(f, DGraph):
        if not callable(f):
            raise DGraphError(f"jacobian of a {type(f).__name__}: give a DGraph or a function")
        if not isinstance(method, str) and not callable(method):  # jacobian(f, x), as JAX's
            raise DGraphError(
                f"jacobian(f, method): the second argument names a method, not a point; give"
                f" the point as point=[x] (a {type(method).__name__} was given)"
            )
        f = traced_function(f, n_inputs=n_inputs, sizes=sizes, point=point, params=params)
    elif n_inputs is not None or sizes is not None or point is not None or params:
        raise DGraphError(
            "n_inputs=, sizes=, point= and params= are for a Python function, not a graph"
        )
    return accumulate(f, method, verify=verify, **options)


def traced_function(
    f: Callable[..., Any],
    *,
    n_inputs: int | None = None,
    sizes: Sequence[int | tuple[int, ...]] | None = None,
    point: Sequence[Any] | None = None,
    params: Sequence[str] = (),
    level: str | None = None,
    fix: bool = True,
) -> DGraph:
    """The graph of a Python function (:func:`~dgraph.frontends.from_python`: read from its
    jaxpr where it uses JAX, else traced),
    ``sizes`` read from the example arguments when not given.

    Parameters
    ----------
    f
        A Python function of scalars and vectors.
    n_inputs
        ``f`` takes one sequence argument of this length.
    sizes
        Each argument's length (0 a scalar) or shape.
    point
        Example arguments: where ``sizes`` is not given, their shapes give it (a scalar 0,
        a vector its length, an array its shape).
    params
        Names of arguments that are parameters, not differentiated; then ``sizes`` covers
        every argument and ``point`` the differentiated ones, or ``point`` alone every
        argument (the parameters' values are then read with it, and the value check
        evaluates at the user's point with them). An argument whose ``point`` value is
        an integer array is one (index data, read cast to integers:
        :func:`~dgraph.frontends.integer_arguments.integer_arguments`). One given as
        one integer that fixes the structure (``range(n)``, a ``fori_loop`` bound, a
        shape), where reading it as a number fails, is closed over at that value
        (:mod:`~dgraph.frontends.fixed_parameters`; the graph's ``fixed_parameters`` say
        so) unless ``fix`` is false.
    level
        None: the element level where it is small enough, else the array level
        (:func:`~dgraph.frontends.from_python`); ``"array"``: the array level.

    Returns
    -------
    DGraph

    Raises
    ------
    DGraphError
        For ``params`` with ``point`` but no ``sizes``, ``point`` not one per argument.
    InputError
        For a function the tracer cannot read.
    """
    try:
        return _traced(f, n_inputs, sizes, point, params, level, fix)
    except InputError as error:  # range(n) of an n given as an integer: a parameter
        if n_inputs is not None or sizes is not None:
            raise
        raise integer_inputs_hinted(error, f, point, params) from None


def _traced(
    f: Callable[..., Any],
    n_inputs: int | None,
    sizes: Sequence[int | tuple[int, ...]] | None,
    point: Sequence[Any] | None,
    params: Sequence[str],
    level: str | None,
    fix: bool,
) -> DGraph:
    """:func:`traced_function`'s reading."""
    trees = None
    if n_inputs is None:  # f(*xs) given several arguments: one parameter each
        f = spread(f, len(sizes) if sizes is not None else None if point is None else len(point))
    if n_inputs is None:  # pytree arguments: the function of their leaves
        f, point, params, trees = flat_arguments(f, point, params, sizes)
    if n_inputs is None and sizes is None:  # integer arrays: index data, parameters
        f, params = integer_arguments(f, point, params)
    values = None
    if point is not None and sizes is None and params:
        names = _parameter_names(f, len(point), params)
        if len(point) != len(names):
            raise DGraphError(
                "with params=, give sizes= for every argument beside point= (the"
                " differentiated ones), or point= for every argument"
            )
        sizes = [_size(value) for value in point]  # every argument's; the point: the others'
        values = {n: v for n, v in zip(names, point, strict=True) if n in params}
        point = [value for name, value in zip(names, point, strict=True) if name not in params]
    graph = from_python(
        f,
        n_inputs=n_inputs,
        sizes=None if sizes is None else list(sizes),
        params=params,
        point=point,
        level=level,
        parameter_values=values,
        fix=fix,
    )
    if trees is not None:
        trees.add_note(graph)
    return graph


def _parameter_names(f: Callable[..., Any], given: int, params: Sequence[str]) -> list[str]:
    """``f``'s positional parameters that ``given`` arguments cover: the last ones left
    out keep their defaults where every one has a default and none is in ``params``
    (``def f(w, X, l2=0.01)`` called with ``w, X``), as the readers take them;
    keyword-only ones always do."""
    try:
        signature = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        raise DGraphError("cannot read the function's parameters") from None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p for p in signature if p.kind in kinds]
    rest = positional[given:]
    if rest and all(p.default is not inspect.Parameter.empty and p.name not in params
                    for p in rest):  # fmt: skip
        positional = positional[:given]
    return [p.name for p in positional]


def _size(value: Any) -> int | tuple[int, ...]:
    """An example argument's ``sizes=`` entry: 0 a scalar, a vector its length, else its
    shape."""
    shape = np.shape(value)
    return shape[0] if len(shape) == 1 else (shape or 0)
