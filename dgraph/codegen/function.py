"""A generated Jacobian as a callable in one step (FastDifferentiation.jl's
``make_function``; JAX's ``jacfwd``/``jvp``/``vjp`` give functions the same way).

>>> import dgraph
>>> J = make_function(dgraph.bundled("naumann_sin.trace"), method="reverse")
>>> J([1.0, 0.5]).round(4).tolist()
[[0.2298, 0.8415]]
>>> J.generated.verified, J.mode, J.lang
(True, 'jacobian', 'python')
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.parse import vertex_names
from ..errors import DGraphError, InputError, UnionTooLarge
from ..frontends.fixed_parameters import Fixed, read_fixing
from ..frontends.integer_arguments import (
    ClosedOver,
    IntegerArguments,
    integer_arguments,
    integer_inputs_hinted,
)
from ..frontends.integer_casts import index_data
from ..frontends.pytrees import Leaves, Pytrees, output_is_pytree, pytrees_of
from ..frontends.var_positional import spread
from ..methods.registry import traced_function
from .c import load_c
from .check import checked
from .cuda import load_cuda
from .generate import LANGS, MODES, Generated, generate
from .hessian import HESSIAN_MODES, make_hessian, scalar_pattern, sparse_of
from .hessian_native import NATIVE_LANGS, make_native_hessian
from .own_arguments import OwnCall, PytreeCall, own_call
from .points import one_point_calls
from .python import load_python
from .scope import codegen_call
from .structural import Structural, structural
from .tensor.function import TensorGenerated, make_tensor_function, sweep_arguments

__all__ = ["GeneratedFunction", "hessian", "make_function"]


class GeneratedFunction:
    """One generated function, loaded, with JAX's conventions at every level.

    The function takes the primals, then (``jvp``, ``vjp``) the tangents or cotangents,
    one per primal or output, then the parameters ``p`` when the graph has any:

    - ``jacobian(*primals)``: one input and one output give the array (dense, or SciPy
      CSR / JAX BCOO with ``sparse``); several give the pytree ``jax.jacobian(f,
      argnums=(0, 1, ...))`` gives: a tuple over the inputs for one output, over the
      outputs for one input, else a tuple over the outputs of tuples over the inputs.
    - ``value_and_jacobian(*primals)``: ``(value, jacobian)``, the value one array or a
      tuple over the outputs.
    - ``jvp(*primals, *tangents)``: J·v, one array or a tuple over the outputs (the
      second half of ``jax.jvp``'s answer).
    - ``vjp(*primals, *cotangents)``: wᵀ·J, one array or a tuple over the inputs (what
      ``jax.vjp``'s pullback returns, a lone input's array not wrapped in a tuple).

    A graph of scalars (the element level) is a function of one vector ``x`` (its inputs
    in order; (n,) or batched (B, n)) with one vector of outputs, so its ``jacobian`` is
    the (m, n) (or (B, m, n)) array. Made of a Python function whose arguments are not
    one vector, it also takes that function's own arguments (one point) and returns what
    the array level returns (:attr:`own`, :mod:`~dgraph.codegen.own_arguments`): the
    call does not depend on the level. A tensor graph's inputs are its arrays, in order; a
    dense block has shape ``y.shape + x.shape`` (as ``jax.jacobian``'s), a sparse one
    ``(y.size, x.size)``, each flattened in C order. ``stacked`` gives a sparse tensor
    Jacobian as the one matrix over all outputs and inputs (what a Newton step solves
    with). ``generated`` holds the text, programs and check.

    >>> from dgraph.frontends import from_function
    >>> g = from_function(lambda x, w: np.tanh(x * w), sizes=[(3,), (3,)], level="array")
    >>> dx, dw = make_function(g)(np.ones(3), np.full(3, 0.5))  # one output, two inputs
    >>> dx.shape, dw.shape, np.diag(dx).round(4).tolist()
    ((3, 3), (3, 3), [0.3932, 0.3932, 0.3932])
    >>> make_function(g, "vjp")(np.ones(3), np.full(3, 0.5), np.ones(3))[1].round(4).tolist()
    [0.7864, 0.7864, 0.7864]
    """

    integers: dict[int, str] = {}  # noqa: RUF012  (replaced, never changed in place)
    """The arguments traced as integer arrays (index data), by position: a call refuses
    any other type there."""

    masks: frozenset[str] = frozenset()
    """Those of :attr:`integers` given as boolean arrays (masks): a call gives booleans
    there, read as ``m != 0`` (JAX's convention: not differentiated)."""

    fixed: dict[int, tuple[str, np.ndarray]] = {}  # noqa: RUF012  (replaced, never changed)
    """Index data closed over (a sparse function's, :func:`_fixed_index_data`), by
    position: each call gives them again, the point's values, and the code runs without."""

    own: OwnCall | None = None
    """A graph of scalars made of a Python callable of other than one vector (or of one
    vector to a scalar or a matrix): its own call (:mod:`~dgraph.codegen.own_arguments`),
    which it takes beside the flat one."""

    pytree: PytreeCall | None = None
    """A function of pytrees (:mod:`~dgraph.frontends.pytrees`): its call, which flattens
    the pytrees, calls the function of their leaves and nests the results as JAX does."""

    structural: Structural | None = None
    """Parameters given as integers that fix the program's structure (a trip count),
    closed over at the point's values (:mod:`~dgraph.codegen.structural`): each call
    gives those values at their places, checked and dropped before the code runs."""

    own_integers: dict[int, str] = {}  # noqa: RUF012  (replaced, never changed in place)
    """:attr:`integers` where the own call takes them."""

    gradient: GeneratedFunction | None = None
    """A Hessian mode's: the gradient graph's generated function it is made from (its
    ``jacobian``: H as generated; one array's sparse H mirrored there already)."""

    def __init__(self, generated: Generated, mode: str, function: Callable[..., np.ndarray]):
        self.generated, self.mode, self.lang = generated, mode, generated.lang
        self._function = function
        self.__doc__ = getattr(function, "__doc__", None)

    def __call__(self, *arrays: Any, **options: Any) -> Any:
        """The function on ``arrays``; ``options`` go to it (CUDA: ``layout=``).

        Raises
        ------
        DGraphError
            For an argument of a complex type: the code is of real arguments (NumPy and
            C dropped the imaginary part with a warning, JAX mixed it into the values).
        """
        if self.structural is not None:
            arrays = tuple(self.structural.strip(arrays))
        if self.pytree is not None:
            return self.pytree(functools.partial(self._leaves_call, **options), arrays)
        return self._leaves_call(*arrays, **options)

    def _leaves_call(self, *arrays: Any, **options: Any) -> Any:
        """:meth:`__call__` of arrays (a function of pytrees: their leaves)."""
        for a in arrays:
            if getattr(getattr(a, "dtype", None), "kind", "") == "c" or isinstance(a, complex):
                raise DGraphError(
                    f"{self.mode}: an argument of complex numbers; the generated code is of"
                    " real arguments (give real and imaginary parts as arguments of their own)"
                )
        adapted = self.own.adapt(arrays) if self.own is not None else None
        self._check_integers(arrays, self.integers if adapted is None else self.own_integers)
        if adapted is not None:
            flat, result = adapted
            return result(self._function(*flat, **options))
        return self._function(*self._without_fixed(arrays), **options)

    def _check_integers(self, arrays: Sequence[Any], integers: dict[int, str]) -> None:
        """Refuse, in one line, a call giving other than integers (booleans for a mask)
        where index data were traced."""
        for k, name in integers.items():
            if name in self.masks:
                dtype = _dtype(arrays[k]) if k < len(arrays) else np.dtype(bool)
                if dtype.kind != "b":
                    raise InputError(
                        f"{self.mode}: argument {name} was traced as a boolean array (a mask,"
                        f" not differentiated): give booleans there, not {dtype} ({name} != 0)"
                    )
                continue
            dtype = _dtype(arrays[k]) if k < len(arrays) else np.dtype(int)
            if dtype.kind not in "iu":
                raise InputError(
                    f"{self.mode}: argument {name} was traced as an integer array (index"
                    f" data): give integers there, not {dtype} ({name}.astype(int))"
                )

    def _without_fixed(self, arrays: Sequence[Any]) -> Sequence[Any]:
        """``arrays`` less the index data closed over, refused in one line where a call
        gives others (the sparse pattern is theirs)."""
        if not self.fixed:
            return arrays
        for k, (name, value) in self.fixed.items():
            given = np.asarray(arrays[k]) if k < len(arrays) else None
            if given is None or given.shape != value.shape or not np.array_equal(given, value):
                raise InputError(
                    f"{self.mode}: {name} is not the index data at the point, whose positions"
                    " make the sparse pattern: make the function again at a point with these"
                    " (sparse=False reads them at each call)"
                )
        return [a for k, a in enumerate(arrays) if k not in self.fixed]

    def stacked(self, *arrays: Any) -> Any:
        """A sparse tensor graph's ``jacobian`` (or ``value_and_jacobian``) as one matrix
        of shape (Σ size(y), Σ size(x)), outputs and inputs in the graph's order (and the
        value the outputs flattened and concatenated): the system a Newton step solves."""
        g = self.generated
        if not (isinstance(g, TensorGenerated) and g.sparse and g.stacked is not None):
            raise DGraphError("stacked is the one sparse matrix of a tensor graph's jacobian")
        if self.pytree is not None:  # the leaves, in flatten order
            arrays = tuple(self.pytree.leaves(arrays))
        if self.structural is not None:
            arrays = tuple(self.structural.strip(arrays))
        return g.stacked(*self._without_fixed(arrays))

    @property
    def source(self) -> str:
        """The generated text (a NumPy module or a C file)."""
        return self.generated.text

    def __repr__(self) -> str:
        if isinstance(self.generated, TensorGenerated):
            g = self.generated
            return (
                f"<GeneratedFunction {self.mode} ({self.lang}, tensor graph, method {g.method}):"
                f" {g.mults} mults, verified {g.verified}>"
            )
        programs = self.generated.programs
        main = programs.get(self.mode) or next(iter(programs.values()))
        return (
            f"<GeneratedFunction {self.mode} ({self.lang}, method {main.method}):"
            f" {main.mults} mults, verified {self.generated.verified}>"
        )


def _dtype(value: Any) -> np.dtype:
    """``value``'s dtype (a JAX array's, a tracer's too; a list's as NumPy reads it)."""
    dtype = getattr(value, "dtype", None)
    try:
        return np.dtype(dtype) if dtype is not None else np.asarray(value).dtype
    except (TypeError, ValueError):
        return np.dtype(object)


def make_function(
    source: DGraph | ExpressionSet | Callable[..., Any],
    mode: str = "jacobian",
    lang: str = "python",
    *,
    method: str | None = None,
    budget: float | None = None,
    sparse: bool = False,
    params: tuple[str, ...] | list[str] = (),
    sizes: Sequence[int | tuple[int, ...]] | None = None,
    point: Sequence[Any] | None = None,
    tril: bool = False,
    weights: Any = None,
    tape: int | None = None,
) -> GeneratedFunction:
    """Generate, check and load the ``mode`` function of a graph, an expression set or a
    Python function.

    Parameters
    ----------
    source
        A graph, an expression set, or a Python function (traced by
        :func:`dgraph.frontends.from_function`).
    mode
        ``"jacobian"``, ``"jvp"``, ``"vjp"`` or ``"value_and_jacobian"``; or ``"hessian"``,
        ``"hvp"``, ``"value_gradient_hessian"`` (:mod:`dgraph.codegen.hessian`: the
        Jacobian of the gradient graph read with JAX, for a function written with JAX or
        NumPy; Dixon's Hessian graph for a graph of scalars).
    lang
        ``"python"`` (NumPy), ``"c"``, ``"jax"`` or ``"cuda"`` (kernels loaded with CuPy,
        :func:`dgraph.codegen.cuda.load_cuda`, whose function takes and returns GPU
        arrays, ``layout`` a keyword).
    method
        The accumulation to print; without it the one whose program costs least
        (:func:`dgraph.codegen.selection.cheapest_jacobian`).
    budget
        Seconds of counted work for that choice (adds ``best``).
    sparse
        Modes ``jacobian`` and ``value_and_jacobian`` (and the Hessian modes) with J as a
        SciPy CSR array (``python``, ``c``) or a JAX BCOO (``jax``) of its structural
        pattern, at the element level as at the array level; one point per call.
    params
        A function's parameters that are not differentiated. An argument whose ``point``
        value is an integer array (a mesh's triangles) is one too, read as if the
        function cast it, ``T.astype(int)`` (index data; JAX's ``jacfwd`` refuses integer
        inputs); the made function takes an integer array there at each call. One given
        as an integer (a Python int, a 0-d integer array) that fixes the program's
        structure (``range(n)``, a ``fori_loop`` bound, a shape, a static index), where
        reading it as a number fails, is closed over at that value: the made function
        takes it at its place and refuses any other value
        (:mod:`~dgraph.codegen.structural`).
    sizes
        Each argument's length or shape, 0 a scalar.
    point
        Example arguments whose shapes give the sizes.
    tril
        A Hessian mode's H as its lower triangle only.
    weights
        A Hessian mode of a vector ``f``: the weights ``v`` of the Lagrangian ``vᵀf`` at
        the point; the function then takes them last (``H(x, v)``). A graph of scalars
        with several outputs takes them per call in any case (numbers here: one finite
        number per output); a mapping ``{output: weight}`` fixes them instead.
    tape
        ``vjp`` of a tensor graph with loops: at most this many states of a ``scan`` kept
        for its reverse sweep besides the current one, the rest recomputed (binomial
        checkpointing, the fewest recomputations for the bound,
        :mod:`dgraph.codegen.tensor.revolve`); None keeps every state.

    Returns
    -------
    GeneratedFunction
        Callable with JAX's conventions whatever the level: one input and one output give
        an array, several the tuples :func:`jax.jacobian` gives; its docstring says exactly.
        A graph with parameters gives a function that takes their values last:
        ``J(x, p)``. The printed code is run against the graph before it is returned
        (:mod:`dgraph.codegen.check`).

    Raises
    ------
    DGraphError
        For an unknown mode or language, or a function that indexes or iterates an
        argument that ``sizes`` (or ``point``) did not make a vector.

    Notes
    -----
    A tensor graph (``graph.is_tensor``) gets code on whole arrays
    (:mod:`dgraph.codegen.tensor`) in ``python`` or ``jax``: mode ``jacobian`` dense or
    sparse, without ``method`` the cheapest of forward, reverse and Markowitz; ``jvp`` and
    ``vjp`` as tangent and adjoint sweeps over the blocks that never form J
    (:mod:`dgraph.codegen.tensor.sweeps`). ``lang="c"`` and mode ``jacobian`` (or
    ``value_and_jacobian``): the values of the sparse Jacobian for its fixed pattern in
    compiled C, returning the same CSR array with ``sparse=True``, else its blocks as
    dense arrays in ``jax.jacobian``'s layout (:mod:`dgraph.codegen.tensor.c_values`). The Hessian
    modes in C and CUDA: :mod:`dgraph.codegen.hessian_native`.

    Examples
    --------
    >>> import numpy as np
    >>> J = make_function(lambda x: [x[0] * x[1], np.sin(x[1])], sizes=[2])
    >>> J([0.5, 1.0]).round(4).tolist()
    [[1.0, 0.5], [0.0, 0.5403]]
    """
    if not isinstance(mode, str) or mode not in (*MODES, *HESSIAN_MODES):
        raise DGraphError(f"unknown mode {mode!r:.60}: use {', '.join((*MODES, *HESSIAN_MODES))}")
    if not isinstance(lang, str) or lang not in LANGS:
        raise DGraphError(f"unknown language {lang!r:.60}: use {', '.join(LANGS)}")
    function = callable(source) and not isinstance(source, (DGraph, ExpressionSet))
    if function:  # f(*xs) given several arguments: one parameter each
        source = spread(
            source, len(sizes) if sizes is not None else None if point is None else len(point)
        )
    values = _parameter_values(source, point, params) if function and sizes is None else {}

    def read(fixed: Fixed | None) -> GeneratedFunction:
        if fixed is None:  # read as numbers first: the code then takes any value at each call
            return _of_given(source, mode, lang, method, budget, sparse, params, sizes, point,
                             tril, weights, tape)  # fmt: skip
        return _closed_scalars(source, fixed, mode, lang, method, budget, sparse, params,
                               point, tril, weights, tape)  # fmt: skip

    try:  # one that fixes the structure (range(n)): closed over, as JAX's static_argnums
        return read_fixing(read, source, values)[0]
    except InputError as error:  # the made function refuses another value
        if function and sizes is None:
            raise integer_inputs_hinted(error, source, point, params) from None
        raise


def _parameter_values(f: Any, point: Sequence[Any] | None, params: Sequence[str]) -> dict:
    """The ``params``' values in ``point`` (one entry per argument of ``f``), by name; {}
    where ``point`` is not one per argument."""
    try:
        names = list(inspect.signature(f).parameters)[: len(point or ())]
    except (TypeError, ValueError):
        return {}
    if point is None or len(names) != len(point):
        return {}
    return {n: v for n, v in zip(names, point, strict=True) if n in params}


def _of_given(
    source: Any,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    params: Sequence[str],
    sizes: Any,
    point: Sequence[Any] | None,
    tril: bool,
    weights: Any,
    tape: int | None,
) -> GeneratedFunction:
    """:func:`make_function` of a source whose parameters are read as given (index data
    given as integer arrays among them)."""
    if callable(source) and not isinstance(source, (DGraph, ExpressionSet)):
        trees = pytrees_of(source, point, params)
        if trees is not None:  # made of the function of the leaves, called with pytrees
            return _of_pytrees(trees, mode, lang, method, budget, sparse, sizes, tril, weights,
                               tape)  # fmt: skip
    if callable(source) and not isinstance(source, (DGraph, ExpressionSet)) and sizes is None:
        source, params = integer_arguments(source, point, params)  # index data: parameters
    made = functools.partial(_made, source, mode, lang, method, budget, sparse, tril, weights,
                             params, sizes, point, tape)  # fmt: skip
    if not isinstance(source, IntegerArguments) or point is None:
        return made()
    fixed = functools.partial(_fixed_index_data, source, mode, lang, method, budget, tril,
                              weights, params, point, tape, sparse)  # fmt: skip
    if sparse and set(source.names) - set(source.mask_names):  # the pattern of the point's
        return fixed() or made()  # index data, not of every position (a mask's is none)
    try:
        return made()
    except UnionTooLarge as error:
        closed = fixed()
        if closed is None:
            raise
        warnings.warn(
            f"dgraph: {error}; the index data {', '.join(source.names)} are closed over"
            " instead (their pattern: a call giving others is refused)",
            stacklevel=3,
        )
        return closed


def _closed_scalars(
    f: Callable[..., Any],
    fixed: Fixed,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    params: Sequence[str],
    point: Sequence[Any],
    tril: bool,
    weights: Any,
    tape: int | None,
) -> GeneratedFunction:
    """:func:`make_function` of ``f`` closed over at its integer parameters ``fixed``
    (:func:`~dgraph.frontends.fixed_parameters.fixing`): a reading of them as numbers
    failed, so they may fix the structure (:mod:`~dgraph.codegen.structural`). The made
    function takes them at their places and refuses other values."""
    made = make_function(fixed.f, mode, lang, method=method, budget=budget, sparse=sparse,
                         params=fixed.kept(params), point=fixed.drop(point), tril=tril,
                         weights=weights, tape=tape)  # fmt: skip
    order = [n for n in inspect.signature(f).parameters if n in params]
    made.structural = structural(mode, fixed.values, order, *_call_groups(made))
    made.__doc__ = (made.__doc__ or "") + made.structural.note()
    return made


def _call_groups(made: GeneratedFunction) -> tuple[dict[str, int], int]:
    """The made function's call: the count of its inputs and outputs (``x``, ``w``)
    and of its parameters, as its own call takes them (a graph of scalars' flat call
    takes one vector of each)."""
    g = made.generated
    if made.pytree is not None:  # a Lagrangian's weights v among the parameters
        tree = made.pytree
        return {"x": len(tree.x_args), "w": 1}, len(tree.p_args) + bool(tree.extra)
    if made.own is not None:
        own = made.own
        return {"x": len(own.inputs), "w": len(own.outputs)}, len(own.params)
    if isinstance(g, TensorGenerated):
        graph = g.graph
        return {"x": len(graph.inputs), "w": len(graph.outputs)}, len(graph.parameters)
    return {"x": 1, "w": 1}, int(bool(g.expression_set.graph.parameters))


def _of_pytrees(
    trees: Pytrees,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    sizes: Any,
    tril: bool,
    weights: Any,
    tape: int | None,
) -> GeneratedFunction:
    """:func:`make_function` of a function of pytrees: made of the function of their
    leaves (:class:`~dgraph.frontends.pytrees.Pytrees`), called with the pytrees
    (:class:`~dgraph.codegen.own_arguments.PytreeCall`)."""
    if sizes is not None:
        raise InputError("pytree arguments: give point= alone (sizes= cannot say a pytree)")
    if lang == "cuda":
        raise InputError("pytree arguments: lang='cuda' takes GPU arrays; flatten the pytrees")
    made = _of_given(trees.flat, mode, lang, method, budget, sparse, trees.params, None,
                     trees.leaves, tril, weights, tape)  # fmt: skip
    g = made.generated
    graph = g.graph if isinstance(g, TensorGenerated) else g.expression_set.graph
    made.pytree = PytreeCall(trees, mode, lang, graph, sparse)
    trees.add_note(graph)
    made.__doc__ = (made.__doc__ or "") + (
        f"\n\nCalled with the pytrees of ({', '.join(trees.arguments)}) as the point gave"
        " them; its results nested as JAX nests them for those pytrees (the code above"
        " is of their leaves, in jax.tree_util's order)."
    )
    return made


def _output_pytrees(
    f: Callable[..., Any],
    graph: DGraph,
    point: Sequence[Any] | None,
    sizes: Any,
    params: Sequence[str],
    lang: str,
) -> Pytrees | None:
    """``f``'s :class:`~dgraph.frontends.pytrees.Pytrees` where its arguments are arrays
    and its result at ``point`` a pytree (a dict, a NamedTuple, nested): its made function
    nests its results as JAX does. Looked for only where ``graph`` has several outputs
    (``f`` is run once more there, or traced by ``jax.eval_shape``); None elsewhere."""
    flat = isinstance(f, Leaves) or isinstance(getattr(f, "f", None), Leaves)  # made already
    if flat or point is None or sizes is not None or lang == "cuda" or len(graph.outputs) < 2:
        return None
    if not output_is_pytree(f, point, getattr(graph, "traced_with", "") == "jax"):
        return None
    return pytrees_of(f, point, params, output=True)


def _made(
    source: Any,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    tril: bool,
    weights: Any,
    params: Sequence[str],
    sizes: Any,
    point: Sequence[Any] | None,
    tape: bool,
) -> GeneratedFunction:
    """:func:`make_function` of its arguments checked (``source``'s integer arguments
    read as parameters)."""
    integer_source = source  # the made function checks its integer arguments
    with codegen_call():
        if mode in HESSIAN_MODES and lang in NATIVE_LANGS:  # hessian_native.py
            inner, function = make_native_hessian(
                source, mode, lang, _make_function, GeneratedFunction, method=method,
                budget=budget, sparse=sparse, tril=tril, weights=weights, params=params,
                sizes=sizes, point=point, fallback=make_hessian,
            )  # fmt: skip
            made = GeneratedFunction(
                inner.generated, mode, _one_point(function, inner, mode, sparse)
            )
            made.__doc__, made.gradient = function.__doc__, inner
            return _with_integers(
                _with_own(made, integer_source, params, sizes, point), integer_source
            )
        if mode in HESSIAN_MODES:
            inner, function = make_hessian(
                source, mode, lang, _make_function, method=method, budget=budget,
                sparse=sparse, tril=tril, weights=weights, params=params, sizes=sizes,
                point=point,
            )  # fmt: skip
            made = GeneratedFunction(
                inner.generated, mode, _one_point(function, inner, mode, sparse)
            )
            made.__doc__, made.gradient = function.__doc__, inner
            return _with_integers(
                _with_own(made, integer_source, params, sizes, point), integer_source
            )
        if tril or weights is not None:
            raise DGraphError("tril= and weights= are for the Hessian modes")
        if not isinstance(source, (DGraph, ExpressionSet)):
            if not callable(source):
                raise DGraphError(f"cannot make a function of a {type(source).__name__}")
            f, source = source, traced_function(source, sizes=sizes, point=point, params=params,
                                                fix=False)  # fmt: skip
            trees = _output_pytrees(f, source, point, sizes, params, lang)
            if trees is not None:  # a dict output: nested as JAX nests it
                return _of_pytrees(trees, mode, lang, method, budget, sparse, sizes, tril,
                                   weights, tape)  # fmt: skip
        elif params or sizes is not None or point is not None:
            raise DGraphError(
                "params=, sizes= and point= are for a Python function; a graph has its own"
            )
        made = _make_function(source, mode, lang, method, budget, sparse, tape)
        return _with_integers(_with_own(made, integer_source, params, sizes, point), integer_source)


def _with_own(
    made: GeneratedFunction, source: Any, params: Sequence[str], sizes: Any, point: Any
) -> GeneratedFunction:
    """``made``, which takes the Python callable ``source``'s own arguments where its
    code is a graph of scalars' (:func:`~dgraph.codegen.own_arguments.own_call`), as
    the array level's does; as it is for any other source."""
    g = made.generated
    if isinstance(source, (DGraph, ExpressionSet)) or isinstance(g, TensorGenerated):
        return made
    graph = g.expression_set.graph
    made.own = own_call(source, made.mode, made.lang, graph, params=params, sizes=sizes,
                        point=point)  # fmt: skip
    return made


def _with_integers(made: GeneratedFunction, source: Any) -> GeneratedFunction:
    """``made``, which takes the integer arguments of ``source`` (an
    :class:`~dgraph.frontends.integer_arguments.IntegerArguments`) at the positions it
    checks (:func:`_integer_positions`); as it is for any other source."""
    if isinstance(source, IntegerArguments):
        made.integers = _integer_positions(made, source.names, source.mask_names)
        if made.own is not None:
            made.own_integers = made.own.positions(source.names)
        masks = set(source.mask_names)
        if masks and "p" in made.integers.values():  # one vector p, all masks (one kind)
            masks.add("p")
        made.masks = frozenset(masks)
    return made


def _fixed_index_data(
    source: IntegerArguments,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    tril: bool,
    weights: Any,
    params: Sequence[str],
    point: Sequence[Any],
    tape: bool,
    sparse: bool = True,
) -> GeneratedFunction | None:
    """A sparse function of index data given as integer arrays (a mesh's triangles) —
    or a dense one whose index data's union over positions is too large
    (:class:`~dgraph.errors.UnionTooLarge`: an hvp on an 80 × 80 mesh, 239,654,400):
    made from ``f`` with the point's index data closed over
    (:class:`~dgraph.frontends.integer_arguments.ClosedOver`), so that its pattern is
    theirs — a P1 energy's Hessian on a 20 × 20 mesh has 2,642 entries, every position a
    call could give 160,000 — and taking them at each call as before, refused in one line
    where they are not the point's. None where its made function is not a tensor
    graph's or does not take its parameters in ``f``'s order (made as before)."""
    f = source.f
    names = list(inspect.signature(f).parameters)
    if len(names) != len(point):
        return None
    values = {k: np.asarray(point[k]) for k in source.positions}
    closed = ClosedOver(f, values)
    rest = [value for k, value in enumerate(point) if k not in values]
    kept = [p for p in params if p not in source.names]
    if mode in HESSIAN_MODES:
        made = make_function(closed, mode, lang, method=method, budget=budget, sparse=sparse,
                             tril=tril, weights=weights, params=kept, point=rest)  # fmt: skip
    else:
        graph = traced_function(closed, point=rest, params=kept, level="array", fix=False)
        made = make_function(
            graph, mode, lang, method=method, budget=budget, sparse=sparse, tape=tape
        )
    g = made.generated
    order = [n for n in names if n in params]  # the parameters f's made function takes
    unfixed = [n for n in order if n not in source.names]
    if not isinstance(g, TensorGenerated) or list(g.graph.parameters[: len(unfixed)]) != unfixed:
        return None
    n = len(g.graph.inputs)
    first = {"jvp": 2 * n, "vjp": n + len(g.graph.outputs)}.get(mode, n)
    at = {k: first + order.index(name) for k, name in zip(source.positions, source.names)}  # noqa: B905
    made.fixed = {at[k]: (names[k], values[k]) for k in values}
    made.integers = {at[k]: names[k] for k in values}
    made.masks = frozenset(source.mask_names)
    return made


def _make_function(
    source: DGraph | ExpressionSet,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    tape: int | None = None,
    symmetric: bool = False,
    counted: Sequence[str] | None = None,
    mirrored: bool = False,
) -> GeneratedFunction:
    """``counted``: the outputs whose rows the size limits count (a Hessian's: not the
    value's row of ``value_gradient_hessian``); None, every output. ``mirrored``: a
    Hessian's sparse pattern, kept symmetric (:func:`~.tensor.module.tensor_program`)."""
    if tape is not None and (mode != "vjp" or not isinstance(tape, int) or tape < 1):
        raise DGraphError(f"tape= bounds the states a vjp keeps: a positive integer, not {tape!r}")
    if mode not in MODES:
        raise DGraphError(f"unknown mode {mode!r}: use {', '.join((*MODES, *HESSIAN_MODES))}")
    if lang not in LANGS:
        raise DGraphError(f"unknown language {lang!r}: use {', '.join(LANGS)}")
    graph = source.graph if isinstance(source, ExpressionSet) else source
    if tape is not None and not graph.is_tensor:
        raise DGraphError("tape= is for a tensor graph's vjp (the states its loops keep)")
    if graph.is_tensor:
        tensor, function = make_tensor_function(
            source, mode, lang, method, budget, sparse, tape=tape, symmetric=symmetric,
            counted=counted, mirrored=mirrored,
        )  # fmt: skip
        data = index_data(graph) if sparse else []
        if data:  # a P1 energy's Hessian on a 40 × 40 mesh: 2,560,000 entries, not 11,000
            warnings.warn(
                f"dgraph: the sparse pattern holds every entry the index data"
                f" {', '.join(data)} could reach at a call (positions read at run time): for"
                " the pattern of their values alone, close over them (constants in the"
                " function)",
                stacklevel=3,
            )
        return GeneratedFunction(tensor, mode, function)  # type: ignore[arg-type]
    printed = sparse and lang != "jax"  # JAX's module is dense: its BCOO is gathered here
    generated = generate(source, lang, method, modes=(mode,), sparse=printed, budget=budget)
    if generated.check is not None:
        checked(generated.check)  # warns where the code is not verified, as arrays' does
    if lang == "cuda":  # checked on the host above; here compiled for the GPU
        module: Any = load_cuda(generated.text)
    else:
        module = load_c(generated.text) if lang == "c" else load_python(generated.text)
    made = GeneratedFunction(generated, mode, getattr(module, mode))
    if sparse and lang != "cuda" and mode in ("jacobian", "value_and_jacobian"):
        made._function = _element_sparse(made, getattr(module, mode), lang)
        made.__doc__ = made._function.__doc__
    return made


def _integer_positions(
    made: GeneratedFunction, names: Sequence[str], masks: Sequence[str] = ()
) -> dict[int, str]:
    """Where the made function takes the integer arguments ``names`` (index data, traced
    as integers; ``masks`` among them as booleans): its parameters follow the inputs
    (``jvp``: and their tangents; ``vjp``: and the outputs' cotangents), in the graph's
    order. A graph of scalars takes its parameters as one vector ``p``, checked where
    they all are index data of one kind (all masks, or no mask)."""
    g = made.generated
    graph = g.graph if isinstance(g, TensorGenerated) else g.expression_set.graph
    params = list(graph.parameters)
    if not graph.is_tensor:
        at = {"jacobian": 1, "value_and_jacobian": 1, "jvp": 2, "vjp": 2}.get(made.mode)
        read = {p.rstrip("0123456789") for p in params}
        one_kind = not masks or set(masks) == set(names)
        found = read <= set(vertex_names(names).values())
        return {at: "p"} if at and params and one_kind and found else {}
    renamed = vertex_names(list(names))
    n = len(graph.inputs)
    first = {"jvp": 2 * n, "vjp": n + len(graph.outputs)}.get(made.mode, n)
    return {first + params.index(v): v for v in renamed.values() if v in params}


def _one_point(
    function: Callable[..., Any], inner: GeneratedFunction, mode: str, sparse: bool
) -> Callable[..., Any]:
    """An array-level Hessian (its gradient graph a tensor graph) that refuses a batch of
    points or a wrong-shaped array in one line, naming the Hessian (the gradient's
    Jacobian inside would name itself): :func:`~dgraph.codegen.points.one_point_calls`;
    its parameters (a Lagrangian's weights among them) too, and an ``hvp(*x, *p, *t)``'s
    tangents (``t_x``: the tangent of input ``x``)."""
    g = inner.generated
    if not isinstance(g, TensorGenerated):
        return _scalar_arguments(function, g.expression_set.graph, mode)
    graph = g.graph
    given = [*graph.inputs, *graph.parameters]  # H(x…, p…): the weights among p
    roles = ["input"] * len(graph.inputs) + ["parameter"] * len(graph.parameters)
    shapes = [graph.shape(x) for x in given]
    if mode != "hvp":
        return one_point_calls(function, given, shapes, "Hessian", sparse, roles)
    names, sweep_roles, sweep_shapes = sweep_arguments(graph, "jvp", "t")
    n = len(graph.inputs)
    names, roles = [*given, *names[n:]], [*roles, *sweep_roles[n:]]
    return one_point_calls(function, names, [*shapes, *sweep_shapes[n:]], "hvp", False, roles)


def _scalar_arguments(function: Callable[..., Any], graph: DGraph, mode: str) -> Callable[..., Any]:
    """A graph of scalars' ``hessian`` / ``value_gradient_hessian``, which takes its inputs
    as one vector ``x`` and its parameters (a Lagrangian's weights among them) as another
    ``p``, refusing another number of arguments in one line (a TypeError naming ``p``
    before)."""
    if mode == "hvp":
        return function
    params = list(graph.parameters)
    wanted = 2 if params else 1
    what = f"x and p = ({', '.join(params)})" if params else "x alone"

    def counted(*a: Any, **k: Any) -> Any:
        if len(a) != wanted:
            raise InputError(f"the {mode} takes {what}: {len(a)} argument(s) given")
        return function(*a, **k)

    counted.__name__ = getattr(function, "__name__", mode)
    counted.__doc__ = getattr(function, "__doc__", None)
    return counted


def _element_sparse(
    made: GeneratedFunction, function: Callable[..., Any], lang: str
) -> Callable[..., Any]:
    """A graph of scalars' ``jacobian`` (or ``value_and_jacobian``) with J as the sparse
    matrix of its structural pattern, as the array level returns it: SciPy CSR, or a JAX
    BCOO for ``lang="jax"`` (:func:`~dgraph.codegen.hessian.sparse_of`, the Hessian's
    conversion). One point per call, as there."""
    rows, cols = scalar_pattern(made, made.mode, first=0, symmetric=False)

    def jacobian(*a: Any) -> Any:
        return sparse_of(function(*a), rows, cols, lang, "Jacobian")

    def value_and_jacobian(*a: Any) -> Any:
        value, J = function(*a)
        return value, sparse_of(J, rows, cols, lang, "Jacobian")

    wrapped = jacobian if made.mode == "jacobian" else value_and_jacobian
    wrapped.__doc__ = (function.__doc__ or "") + (
        "\n\nsparse: J a SciPy CSR array (JAX: a BCOO) of the structural pattern, one point."
    )
    return wrapped


def hessian(
    f: Callable[..., Any],
    *args_or_sizes: Any,
    weights: Any = None,
    params: tuple[str, ...] | list[str] = (),
    sparse: bool = False,
    tril: bool = False,
    lang: str = "python",
    method: str | None = None,
    point: Sequence[Any] | None = None,
    sizes: Sequence[Any] | None = None,
) -> GeneratedFunction:
    """The generated Hessian of a function written with JAX or NumPy, as
    :func:`jax.hessian` returns one: ``make_function(f, "hessian", ...)``
    (:mod:`dgraph.codegen.hessian`).

    ``args_or_sizes`` are example arguments (arrays: the point the code is checked at
    first), or their shapes (ints or tuples); ``point=`` and ``sizes=`` name them as
    :func:`make_function` and :func:`~dgraph.jacobian` do. For ``f`` returning an array, ``weights``
    (one per output entry) make it the Hessian of the Lagrangian ``vᵀf``, a function
    ``H(x, v)``.

    >>> import jax.numpy as jnp
    >>> H = hessian(lambda x: x[0] * x[1] + jnp.sin(x[0]), np.array([0.5, 1.0]))
    >>> H(np.array([0.5, 1.0])).round(4).tolist()
    [[-0.4794, 1.0], [1.0, 0.0]]
    """
    named = [given for given in (point, sizes) if given is not None]
    if named and (args_or_sizes or len(named) > 1):
        raise InputError("hessian: give the example arguments once: positionally, point= or sizes=")
    if named:
        args_or_sizes = tuple(named[0])
    if not args_or_sizes and not isinstance(f, DGraph | ExpressionSet):
        name = getattr(f, "__name__", "f")
        raise InputError(
            f"hessian({name}): give example arguments, hessian({name}, x, ...), or their"
            f" shapes, hessian({name}, (n,), ...): the code is generated and checked for them"
        )
    shapes = all(_is_shape(a) for a in args_or_sizes) and args_or_sizes
    return make_function(
        f,
        "hessian",
        lang,
        method=method,
        sparse=sparse,
        tril=tril,
        weights=weights,
        params=params,
        sizes=list(args_or_sizes) if shapes else None,
        point=None if shapes or not args_or_sizes else list(args_or_sizes),
    )


def _is_shape(value: Any) -> bool:
    """Whether a :func:`hessian` argument is a shape (an int, a tuple of ints), not an
    example argument (a tuple of arrays is a pytree)."""
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return all(isinstance(n, int) for n in value)
    return isinstance(value, int)
