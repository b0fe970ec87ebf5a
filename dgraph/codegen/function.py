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

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import DGraphError
from ..frontends import from_function
from .c import load_c
from .cuda import load_cuda
from .generate import LANGS, MODES, Generated, generate
from .python import load_python
from .scope import codegen_call
from .tensor.function import TensorGenerated, make_tensor_function

__all__ = ["GeneratedFunction", "make_function"]


class GeneratedFunction:
    """One generated function, loaded: ``jacobian(x)``, ``jvp(x, v)``, ``vjp(x, w)`` or
    ``value_and_jacobian(x)`` on (n,) or batched (B, n) inputs, and the parameters ``p``
    last when the graph has any; ``generated`` holds the text, programs and check."""

    def __init__(self, generated: Generated, mode: str, function: Callable[..., np.ndarray]):
        self.generated, self.mode, self.lang = generated, mode, generated.lang
        self._function = function
        self.__doc__ = getattr(function, "__doc__", None)

    def __call__(self, *arrays: Any, **options: Any) -> np.ndarray:
        """The function on ``arrays``; ``options`` go to it (CUDA: ``layout=``)."""
        return self._function(*arrays, **options)

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
        main = self.generated.programs[self.mode]
        return (
            f"<GeneratedFunction {self.mode} ({self.lang}, method {main.method}):"
            f" {main.mults} mults, verified {self.generated.verified}>"
        )


def make_function(
    source: DGraph | ExpressionSet | Callable[..., Any],
    mode: str = "jacobian",
    lang: str = "python",
    *,
    method: str | None = None,
    budget: float | None = None,
    sparse: bool = False,
    params: tuple[str, ...] | list[str] = (),
) -> GeneratedFunction:
    """Generate, check and load the ``mode`` function (``jacobian``, ``jvp``, ``vjp`` or
    ``value_and_jacobian``) of a graph, an expression set, or a Python function of scalars
    (traced by :func:`dgraph.frontends.from_function`, ``params`` naming its
    parameters that are not differentiated) in ``lang`` (``python``, ``c``, ``jax`` or
    ``cuda``: CUDA kernels loaded with CuPy, :func:`dgraph.codegen.cuda.load_cuda`, whose
    function takes and returns GPU arrays, ``layout`` a keyword). A graph with parameters
    gives a function that takes their values last: ``J(x, p)``.

    Without ``method`` the expression set is the one whose program costs least
    (:func:`dgraph.codegen.selection.cheapest_jacobian`); the printed code is run against
    the graph before it is returned (:mod:`dgraph.codegen.check`).

    A tensor graph (``graph.is_tensor``) gets code on whole arrays
    (:mod:`dgraph.codegen.tensor`) in ``python`` or ``jax``: mode ``jacobian``, a function
    of the inputs' arrays returning ``{(y, x): block}``, dense or (``sparse``) SciPy CSR /
    JAX BCOO, without ``method`` the cheapest of forward, reverse and Markowitz; mode
    ``jvp``, ``J(*inputs, *tangents)`` returning ``{y: J·v}``, and ``vjp``,
    ``J(*inputs, *cotangents)`` returning ``{x: wᵀ·J}``: tangent and adjoint sweeps over
    the blocks that never form J (:mod:`dgraph.codegen.tensor.sweeps`). ``lang="c"`` with
    ``sparse=True`` and mode ``jacobian``: the values of the sparse Jacobian for its fixed
    pattern in compiled C, returning the same CSR array (:mod:`dgraph.codegen.tensor.c_values`).
    """
    with codegen_call():
        return _make_function(source, mode, lang, method, budget, sparse, params)


def _make_function(
    source: DGraph | ExpressionSet | Callable[..., Any],
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    params: tuple[str, ...] | list[str],
) -> GeneratedFunction:
    if mode not in MODES:
        raise DGraphError(f"unknown mode {mode!r}: use {', '.join(MODES)}")
    if lang not in LANGS:
        raise DGraphError(f"unknown language {lang!r}: use {', '.join(LANGS)}")
    if not isinstance(source, (DGraph, ExpressionSet)):
        if not callable(source):
            raise DGraphError(f"cannot make a function of a {type(source).__name__}")
        source = from_function(source, params=params)
    elif params:
        raise DGraphError("params= names parameters of a Python function; a graph has its own")
    graph = source.graph if isinstance(source, ExpressionSet) else source
    if graph.is_tensor:
        tensor, function = make_tensor_function(source, mode, lang, method, budget, sparse)
        return GeneratedFunction(tensor, mode, function)  # type: ignore[arg-type]
    generated = generate(source, lang, method, modes=(mode,), sparse=sparse, budget=budget)
    if lang == "cuda":  # checked on the host above; here compiled for the GPU
        module: Any = load_cuda(generated.text)
    else:
        module = load_c(generated.text) if lang == "c" else load_python(generated.text)
    return GeneratedFunction(generated, mode, getattr(module, mode))
