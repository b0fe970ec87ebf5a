"""Generated Hessians in C and CUDA (``make_function(source, "hessian" | "hvp" |
"value_gradient_hessian", lang="c" | "cuda")``; :mod:`dgraph.codegen.hessian` for the
gradient graph and the modes).

The Hessian is the Jacobian of the gradient graph, so each language prints it as it
prints Jacobians, and the one value check (JAX's forward-over-reverse at the user's
point and a random one; the graph's own partials for a graph of scalars) checks the
printed code before it is returned:

- **An array function in C**: the values of the sparse Jacobian of the gradient graph for
  its fixed pattern (:mod:`dgraph.codegen.tensor.c_values`); ``value_gradient_hessian``
  from the same one C function, which also writes ``(f, ∇f)`` into ``value``. The CSR
  matrix is made symmetric by construction (:class:`~dgraph.codegen.hessian.Symmetric`);
  dense, its entries are scattered into an array of shape ``x.shape + x.shape``. ``hvp``:
  the gradient graph's tangent sweep (its ``jvp``, never H) printed by the same C printer
  (:func:`~dgraph.codegen.tensor.sweeps.jvp_program`), ``hvp(x[, v], t)``, checked as the
  Python ``hvp`` is (JAX's ``jvp`` of the gradient at the user's point and a random one).
- **An array function in CUDA**: the same statements as CUDA kernels
  (:attr:`CValues.cuda <dgraph.codegen.tensor.c_values.CValues.cuda>`), checked and
  called through their host build (``DGRAPH_HOST``: each kernel's loop run by one
  thread, in launch order); ``GeneratedFunction.source`` is the ``.cu`` file for nvcc,
  with :data:`CUDA_MIRROR_CSR` (``hessian_mirror_launch``) at its end for the Hessian;
  ``hvp``'s kernels ``jvp_k…`` launched by ``jvp_launch``.
- **A graph of scalars in CUDA**: the programs of Dixon's Hessian graph printed by
  :func:`~dgraph.codegen.cuda.cuda_source`, the Hessian's program made symmetric before
  it is printed (:func:`mirrored_program`: each entry above the diagonal stores the value
  of its mirror image; ``tril``: not stored), so every kernel, layout and precision writes
  the symmetric H; loaded with :func:`~dgraph.codegen.cuda.load_cuda` (CuPy), its
  functions batched with ``layout=`` as every CUDA function is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
import sympy

from ..core.graph import DGraph
from ..core.value_check import check_scalar_code, not_run
from ..errors import DGraphError, VerificationError
from ..frontends.fixed_parameters import made_at
from .check import KernelLayouts
from .cuda import cuda_source, cxx_compiler, load_cuda, load_cuda_host
from .generate import Generated, generate
from .hessian import (
    MIRROR_ROW,
    HessianSource,
    Symmetric,
    checked_source,
    hessian_limits,
    hessian_rows,
    hvp_function,
)
from .ir import Program
from .lowering import lowered
from .program import function_outputs
from .tensor.check import check_tensor
from .tensor.function import c_blocks, c_tangents
from .tensor.sweep_check import check_sweep

__all__ = [
    "CUDA_MIRROR_CSR",
    "NATIVE_LANGS",
    "cuda_scalar_hessian",
    "cuda_tensor_values",
    "make_native_hessian",
    "mirrored_program",
]

NATIVE_LANGS = ("c", "cuda")
_INNER = {"hessian": "jacobian", "hvp": "jvp", "value_gradient_hessian": "value_and_jacobian"}

CUDA_MIRROR_CSR = (
    """
/* hessian_mirror(n, indptr, indices, data) on the GPU: the Hessian made symmetric by
 * construction, one thread per row: each stored entry above the diagonal, (i, j) with
 * j > i, takes the value of its mirror image (j, i) below it (the CSR pattern of the
 * index file, int64, in device memory; indices sorted within each row). Launch it with
 * hessian_mirror_launch after jacobian_values_launch, on the same stream. */
extern "C" __global__ void hessian_mirror_k(long long n, const int64_t *indptr,
                                            const int64_t *indices, double *data)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
"""
    + MIRROR_ROW
    + """    }
}

extern "C" void hessian_mirror_launch(long long n, const int64_t *indptr,
                                      const int64_t *indices, double *data,
                                      cudaStream_t stream)
{
    long long blocks = (n + DGRAPH_THREADS - 1) / DGRAPH_THREADS;
    DGRAPH_LAUNCH(hessian_mirror_k, blocks < 65535 ? (blocks ? blocks : 1) : 65535)
        (n, indptr, indices, data);
}
"""
)


def make_native_hessian(
    source: Any,
    mode: str,
    lang: str,
    make: Callable[..., Any],
    wrap: Callable[..., Any],
    *,
    method: str | None = None,
    budget: float | None = None,
    sparse: bool = False,
    tril: bool = False,
    weights: Any = None,
    params: Any = (),
    sizes: Any = None,
    point: Any = None,
    fallback: Callable[..., Any],
) -> tuple[Any, Callable[..., Any]]:
    """``(inner, function)`` as :func:`~dgraph.codegen.hessian.make_hessian` returns
    them, for ``lang`` ``"c"`` or ``"cuda"`` (module docstring). ``make`` is
    ``make_function``'s builder, ``wrap`` its ``GeneratedFunction``; ``fallback`` (the
    NumPy/JAX path, :func:`~dgraph.codegen.hessian.make_hessian`) makes a graph of
    scalars' C Hessian.

    Raises
    ------
    DGraphError
        One line: a graph of scalars' sparse ``value_gradient_hessian`` in CUDA, what the
        C printer cannot print, and what :func:`~dgraph.codegen.hessian.hessian_source`
        refuses.
    """
    src = checked_source(
        source, mode, sparse=sparse, tril=tril, weights=weights, params=params, sizes=sizes,
        point=point,
    )  # fmt: skip
    graph = src.graph
    if not graph.is_tensor:
        if lang == "c":
            return fallback(source, mode, lang, make, method=method, budget=budget,
                            sparse=sparse, tril=tril, weights=weights, params=params,
                            sizes=sizes, point=point, prepared=src)  # fmt: skip
        if sparse and mode == "value_gradient_hessian":
            raise DGraphError(
                "value_gradient_hessian in CUDA gives a dense H per point; sparse=True is for"
                " mode hessian (its values in the file's pattern order)"
            )
        generated = cuda_scalar_hessian(graph, mode, method, budget, sparse, tril)
        module = load_cuda(generated.text)
        function = _scalar_cuda_function(module, mode, sparse, src)
        return wrap(generated, _INNER[mode], getattr(module, _INNER[mode])), function
    with hessian_limits():
        inner = make(graph, _INNER[mode], "c", method, budget, mode != "hvp",
                     counted=hessian_rows(graph, mode), mirrored=True)  # fmt: skip
    if lang == "cuda":
        generated, stacked = cuda_tensor_values(inner.generated, _INNER[mode])
        inner = wrap(generated, _INNER[mode], stacked)
    if mode == "hvp":  # the gradient graph's tangent sweep: H·t, H never formed
        return inner, hvp_function(inner, src.inputs, len(graph.inputs) + len(graph.parameters))
    return inner, _tensor_function(inner, mode, sparse, tril, src)


def cuda_tensor_values(c_generated: Any, mode: str) -> tuple[Any, Callable[..., Any]]:
    """The CUDA text of a checked C ``jacobian`` / ``value_and_jacobian`` / ``jvp`` of a
    tensor graph (its :attr:`~dgraph.codegen.tensor.function.TensorGenerated.values`'
    CUDA statements) checked again through its host build, and that build's function in
    the form the C one has."""
    values = c_generated.values
    es = c_generated.expression_set
    if cxx_compiler() is None:
        raise DGraphError("no C++ compiler found (set CXX): the CUDA code cannot be checked")
    stacked = values.load_cuda_host()
    if mode == "jvp":
        function = c_tangents(stacked, es.graph)
        check = check_sweep(function, mode, es, "cuda")
    else:
        function = c_blocks(stacked, es.graph, values.indices, values.indptr, mode)
        check = check_tensor(function, es, "cuda", mode=mode)
    if check.ran and not check.ok:
        raise VerificationError(check.detail)
    text = values.cuda
    if mode == "jacobian":
        text = text.rstrip("\n") + "\n" + CUDA_MIRROR_CSR
    return dataclasses.replace(c_generated, text=text, lang="cuda", check=check), function


def _tensor_function(
    inner: Any, mode: str, sparse: bool, tril: bool, src: HessianSource
) -> Callable[..., Any]:
    """An array function's ``hessian`` / ``value_gradient_hessian`` on the C (or CUDA host)
    values: one argument's H mirrored (:class:`Symmetric`), dense or CSR; several
    arguments' blocks as :func:`jax.hessian` nests them."""
    graph = src.graph
    made: list[Symmetric] = []
    one = src.inputs == 1
    shape = graph.shape(graph.inputs[0]) if one else ()

    def finish(h: Any) -> Any:
        if not one:
            return h if sparse else _dense_blocks(h, graph)
        if not made:
            made.append(Symmetric.of(h, tril))
        h = made[0](h)
        if sparse:
            return h
        square = h.toarray()
        return square if tril else square.reshape(shape + shape)

    if mode == "hessian":

        def hessian(*a: Any) -> Any:
            return finish(inner(*a))

        hessian.__doc__ = _doc(mode, graph, sparse, tril)
        return hessian

    def value_gradient_hessian(*a: Any) -> tuple[Any, Any, Any]:
        values, blocks = inner(*a)
        if one:
            return values[0], values[1], finish(blocks[1])
        return values[0], tuple(values[1:]), finish(tuple(blocks[1:]))

    value_gradient_hessian.__doc__ = _doc(mode, graph, sparse, tril)
    return value_gradient_hessian


def _dense_blocks(blocks: Any, graph: DGraph) -> Any:
    """Nested CSR blocks of several arguments' Hessian densified to ``x_i.shape +
    x_j.shape`` (the gradient graph's outputs are the arguments' adjoints, in order)."""
    shapes = [graph.shape(x) for x in graph.inputs]
    return tuple(
        tuple(
            np.zeros(si + sj) if b is None else scipy.sparse.csr_array(b).toarray().reshape(si + sj)
            for b, sj in zip(row, shapes, strict=True)
        )
        for row, si in zip(blocks, shapes, strict=True)
    )


def _doc(mode: str, graph: DGraph, sparse: bool, tril: bool) -> str:
    args = ", ".join([*graph.inputs, *graph.parameters])
    kind = "SciPy CSR" if sparse else "dense"
    part = ", lower triangle" if tril else ""
    if mode == "hessian":
        return f"H({args}): the Hessian ({kind}{part}) of compiled values, symmetric."
    return f"value_gradient_hessian({args}): (f, ∇f, H), H {kind}{part}, from one compiled call."


# -- a graph of scalars in CUDA ------------------------------------------------------------


def mirrored_program(program: Program, n: int, tril: bool, offset: int = 0) -> Program:
    """``program`` (a Hessian graph's ``jacobian``, results keyed ``(i, j)``; or its
    ``value_and_jacobian``, flat, the Hessian's entry ``(i, j)`` at ``offset + i*n + j``)
    with each entry above the diagonal storing its mirror image's value (computed once:
    a value not already one variable is assigned to one), or (``tril``) not stored."""
    flat = len(program.shape) == 1

    def key(index: tuple[int, ...]) -> tuple[int, int] | None:
        if not flat:
            return index[0], index[1]
        k = index[0] - offset
        return None if k < 0 else (k // n, k % n)

    def index_of(i: int, j: int) -> tuple[int, ...]:
        return (offset + i * n + j,) if flat else (i, j)

    taken = {str(s) for s, _ in program.assignments}
    taken |= {str(s) for _, symbols in program.arguments for s in symbols}
    names = (f"h{k}" for k in range(1, 10**9) if f"h{k}" not in taken)
    assignments = list(program.assignments)
    kept, lower = [], {}
    for index, value in program.results:
        at = key(index)
        if at is None:
            kept.append((index, value))
            continue
        i, j = at
        if i < j:
            continue  # made again from its mirror image below
        if i > j and not tril and not isinstance(value, sympy.Symbol):
            symbol = sympy.Symbol(next(names))
            assignments.append((symbol, value))
            value = symbol
        lower[(i, j)] = value
    results = list(kept)
    for (i, j), value in lower.items():
        results.append((index_of(i, j), value))
        if i > j and not tril:
            results.append((index_of(j, i), value))
    results.sort(key=lambda r: r[0])
    made = dataclasses.replace(
        program, assignments=tuple(assignments), results=tuple(results), arrays=None
    )
    return lowered(made)


def cuda_scalar_hessian(
    H: DGraph,
    mode: str,
    method: str | None = None,
    budget: float | None = None,
    sparse: bool = False,
    tril: bool = False,
) -> Generated:
    """The checked CUDA file of a graph of scalars' Hessian mode: the programs of its
    Hessian graph ``H`` (with the value first for ``value_gradient_hessian``,
    :func:`~dgraph.codegen.hessian.with_value`), the Hessian's made symmetric
    (:func:`mirrored_program`), printed by :func:`~dgraph.codegen.cuda.cuda_source` and
    run through its host build against the graph's partials (the lower triangle
    mirrored where ``tril`` left the upper one out)."""
    inner = _INNER[mode]
    found = generate(H, "cuda", method, (inner,), sparse=sparse, budget=budget, check=False)
    programs = dict(found.programs)
    n = len(H.inputs)
    if inner == "jacobian":
        programs[inner] = mirrored_program(programs[inner], n, tril)
    elif inner == "value_and_jacobian":  # the outputs (1 + n), then J's rows: ∇f's, then H's
        programs[inner] = mirrored_program(programs[inner], n, tril, offset=(1 + n) + n)
    title = f"{H.name or 'graph'}: {', '.join(programs)} (dgraph codegen, the Hessian graph's"
    title += f" {inner}{', lower triangle' if tril else ''}, method {found.method})"
    title += made_at(H)
    text = cuda_source(
        programs,
        title=title,
        inputs=H.inputs,
        outputs=function_outputs(H),
        sparse=sparse,
        parameters=list(H.parameters),
    )
    generated = Generated(text, "cuda", (inner,), programs, found.expression_set, sparse)
    generated.check = _check_cuda(generated, H, tril, n)
    if generated.check.ran and not generated.check.ok:
        raise VerificationError(generated.check.detail)
    return generated


def _check_cuda(generated: Generated, H: DGraph, tril: bool, n: int) -> Any:
    """The value check of a scalar Hessian's CUDA file through its host build (both
    kernels' layouts bit for bit, :func:`~dgraph.codegen.check.check_generated`'s way),
    the lower triangle mirrored first where ``tril`` stores only it."""
    if cxx_compiler() is None:
        return not_run("no C++ compiler found (set CXX): the CUDA code was not compiled or run")
    module = KernelLayouts(load_cuda_host(generated.text))

    def full(h: np.ndarray) -> np.ndarray:
        return np.tril(h) + np.swapaxes(np.tril(h, -1), -1, -2) if tril else h

    def call(name: str, *arrays: np.ndarray, params: np.ndarray | None = None) -> Any:
        got = getattr(module, name)(*arrays, *(() if params is None else (params,)))
        if name == "jacobian":
            return full(got)
        if name == "value_and_jacobian":
            values, J = got
            return values, np.concatenate([J[..., :1, :], full(J[..., 1:, :])], axis=-2)
        return got

    return check_scalar_code(H, call, tuple(generated.programs))


def _scalar_cuda_function(
    module: Any, mode: str, sparse: bool, src: HessianSource
) -> Callable[..., Any]:
    """A graph of scalars' Hessian mode on the GPU module: batched points ``x`` (B, n)
    (``layout="batch_last"``: (n, B)), then the weights ``v`` where it has any, then
    (``hvp``) the tangents ``t``."""
    weighted = bool(src.graph.parameters)

    def split(a: tuple) -> tuple[tuple, Any]:
        need = 1 + weighted + (mode == "hvp")
        if len(a) != need:
            raise DGraphError(f"{mode} takes {need} arrays, not {len(a)}")
        return a, (a[1] if weighted else None)

    if mode == "hessian":
        name = "jacobian_values" if sparse else "jacobian"

        def hessian(*a: Any, layout: str = "batch_first") -> Any:
            a, p = split(a)
            return getattr(module, name)(a[0], p, layout=layout)

        hessian.__doc__ = (
            "H(x[, v], layout=...): the symmetric Hessian per point, (B, n, n) (batch_last:"
            " (n, n, B))"
            + (", sparse: its values (B, nnz) in the file's pattern order" if sparse else "")
        )
        return hessian
    if mode == "hvp":

        def hvp(*a: Any, layout: str = "batch_first") -> Any:
            a, p = split(a)
            return module.jvp(a[0], a[-1], p, layout=layout)

        hvp.__doc__ = "hvp(x[, v], t, layout=...): H·t per point, H never formed."
        return hvp

    def value_gradient_hessian(*a: Any, layout: str = "batch_first") -> tuple[Any, Any, Any]:
        a, p = split(a)
        values, J = module.value_and_jacobian(a[0], p, layout=layout)
        if layout == "batch_last":
            return values[0], values[1:], J[1:]
        return values[..., 0], values[..., 1:], J[..., 1:, :]

    value_gradient_hessian.__doc__ = (
        "value_gradient_hessian(x[, v], layout=...): (f, ∇f, H) per point from one kernel."
    )
    return value_gradient_hessian
