"""Generated code run by the one value check (:mod:`dgraph.core.value_check`): here only
how to run it. The text is loaded as it will be used (Python; C compiled with the system
compiler; CUDA compiled as C++ with ``DGRAPH_HOST``, its kernels' batch-first and
batch-last index arithmetic run on the host and required to give the point-by-point
results bit for bit; JAX in doubles); its functions are called with the graph's free
parameters as their last argument (:func:`~dgraph.core.value_check.check_scalar_code`
says what is compared). :class:`CodeCheck` is what every code check reports.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from ..core.graph import DGraph
from ..core.value_check import CodeCheck, check_scalar_code, code_check, not_run
from ..errors import DGraphError, VerificationError
from .c import compiler, load_c
from .cuda import CudaHostModule, cxx_compiler, load_cuda_host
from .python import load_python

__all__ = ["CodeCheck", "KernelLayouts", "check_generated", "checked", "code_check"]


class Code(Protocol):
    """What :func:`check_generated` runs: the text, its language and its programs' names
    (``primal`` where the graph's values are known)."""

    text: str
    lang: str
    programs: Mapping[str, Any]


def check_generated(generated: Code, graph: DGraph, points: int = 4, seed: int = 0) -> CodeCheck:
    """Run ``generated`` at ``points`` points of the value check (seeded), compared by
    :func:`~dgraph.core.value_check.check_scalar_code`; not run (``ran`` False) where its
    language's compiler or JAX is missing.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.codegen.generate import generate
    >>> g = bundled("naumann_sin.trace")
    >>> result = check_generated(generate(g, "python", "reverse", check=False), g)
    >>> result.ok, sorted(result.errors), result.difference_error < 1e-6
    (True, ['jacobian', 'primal'], True)
    """
    names = tuple(generated.programs)
    if generated.lang == "c":
        if compiler() is None:
            return not_run("no C compiler found (set CC): the C code was not compiled or run")
        module: Any = load_c(generated.text)
    elif generated.lang == "cuda":
        if cxx_compiler() is None:
            return not_run(
                "no C++ compiler found (set CXX): the CUDA code was not compiled or run on the host"
            )
        module = KernelLayouts(load_cuda_host(generated.text))
    elif generated.lang == "jax":
        try:
            import jax
        except ImportError:
            return not_run("JAX is not installed: the JAX code was not run")
        with jax.enable_x64(True):  # compared in doubles, as the other languages are
            call = _padded(_caller(load_python(generated.text), jax.device_get))
            return check_scalar_code(graph, call, names, points, seed)
    else:
        module = load_python(generated.text)
    return check_scalar_code(graph, _caller(module), names, points, seed)


def _caller(module: Any, fetched: Any = None):
    """``call(name, *arrays, params=rows)``: the module's function, the parameters' rows
    (where the graph has free parameters) its last argument; its results ``fetched``
    where given (JAX's arrays as NumPy's: the check's indexing of a JAX array would
    compile a program per slice)."""

    def call(name: str, *arrays: np.ndarray, params: np.ndarray | None = None):
        function = getattr(module, name)
        out = function(*arrays) if params is None else function(*arrays, params)
        return out if fetched is None else fetched(out)

    return call


BATCH = 8
"""The rows of every call the check makes to a JAX function: ``jax.jit`` compiles once per
shape, and the check's batches (its points, each difference quotient's steps, the domain's
ladders) have many sizes: tests/test_normal_quantile.py's primal compiled at six (5 to
216 rows), 2-20 CPU-s each for a program of special functions."""


def _padded(call):
    """``call`` in batches of :data:`BATCH` rows (the arrays' first axis, all of one
    length), the last padded by repeating its last row, and the results joined and cut
    back to the rows given: the generated JAX functions map each row alone
    (``jax.vmap``), so each row gets the values it gets in a batch of its own."""

    def padded(name: str, *arrays: np.ndarray, params: np.ndarray | None = None):
        given = [np.asarray(a) for a in (*arrays, *(() if params is None else (params,)))]
        rows = {a.shape[0] if a.ndim >= 2 else -1 for a in given}
        if len(rows) != 1 or min(rows) < 1:
            return call(name, *arrays, params=params)
        (n,) = rows
        given = [np.concatenate([a, np.repeat(a[-1:], -n % BATCH, axis=0)]) for a in given]
        parts = []
        for start in range(0, len(given[0]), BATCH):
            part = [a[start : start + BATCH] for a in given]
            rest = part.pop() if params is not None else None
            parts.append(call(name, *part, params=rest))
        if isinstance(parts[0], tuple | list):
            return tuple(np.concatenate(list(p))[:n] for p in zip(*parts, strict=True))
        return np.concatenate(parts)[:n]

    return padded


class KernelLayouts:
    """A CUDA file's host build whose functions run point by point and through both
    kernels' index arithmetic, and raise unless the three agree exactly (the same
    device function on the same numbers)."""

    def __init__(self, module: CudaHostModule) -> None:
        self.module = module

    def _all(self, name: str, *arrays: np.ndarray) -> np.ndarray:
        def function(*given: np.ndarray, layout: str = "batch_first") -> np.ndarray:
            return self.module._function(name, given, layout)  # flat: value_and_jacobian too

        first = function(*arrays)
        last = function(*(np.asarray(a).T for a in arrays), layout="batch_last")
        kernels = [("batch_last", np.moveaxis(last, -1, 0))]
        if self.module.meta["block"][name]["f64"] is not None:  # its tiles fit: a kernel
            kernels.append(("batch_first", function(*arrays, layout="batch_first_kernel")))
        for layout, got in kernels:
            if not np.array_equal(got, first, equal_nan=True):
                raise DGraphError(f"the {layout} kernel's {name}() differs from {name}()")
        return first

    def primal(self, x: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("primal", x, *p)

    def jacobian(self, x: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("jacobian", x, *p)

    def jvp(self, x: np.ndarray, v: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("jvp", x, v, *p)

    def vjp(self, x: np.ndarray, w: np.ndarray, *p: np.ndarray) -> np.ndarray:
        return self._all("vjp", x, w, *p)

    def value_and_jacobian(self, x: np.ndarray, *p: np.ndarray):
        flat = self._all("value_and_jacobian", x, *p)
        m, n = self.module.m, self.module.n
        return flat[..., :m], flat[..., m:].reshape((*flat.shape[:-1], m, n))


def checked(check: CodeCheck, stacklevel: int = 4) -> CodeCheck:
    """``check`` when it passed; raises when the code disagrees; a warning when its values
    could not be checked anywhere (the result is then not verified): what every level of
    ``make_function`` (the element level and the array level) does with its code's check.
    ``stacklevel``: the warning's, past this function, as :func:`warnings.warn` takes it."""
    if check.ran and not check.ok:
        raise VerificationError(check.detail)
    if not check.ok:
        warnings.warn(f"dgraph: generated code NOT verified: {check.detail}", stacklevel=stacklevel)
    return check
