"""A JAX program's elementwise and array-moving equations run by NumPy where their
operands are in host memory: what :func:`~.jaxpr_arrays.run_eagerly` runs of a long
reference's ``J·v`` instead of dispatching each to XLA.

Run operation by operation (a program too long to compile whole:
:data:`~.jaxpr_arrays.REFERENCE_JIT_MOST`), JAX compiles a kernel for each primitive
and each shape it meets: a Python loop whose arrays shrink a step at a time (a binomial
tree's levels) meets a new shape each step, and the ``J·v`` of its gradient at 12 levels
(6,778 operations) compiled 289 kernels, most of its 10 CPU-s. NumPy runs the same
operation on the same doubles with no compile. The equations taken here are elementwise
arithmetic, comparisons and selections, and the moves (``broadcast_in_dim``,
``reshape``, ``slice``, ``pad``, ``transpose``, ``squeeze``, ``expand_dims``,
``concatenate``, ``split``, ``stack``, ``unstack``, ``tile`` (JAX 0.10's primitives of
``jnp.stack``, ``jnp.unstack`` and ``jnp.tile``; ``det``'s rule tiles a mask: a
determinant's reference compiled for it alone), ``iota``, ``stop_gradient``, ``rev``,
``dynamic_slice`` and ``dynamic_update_slice`` with their starts clamped as lax clamps
them), ``rem`` (C's, a zero integer divisor left to XLA), ``and``/``or``/``not``,
``clamp``, ``reduce_sum``/``reduce_max``/``reduce_min``/``reduce_prod``,
``reduce_or``/``reduce_and``, the cumulative
``cumsum``/``cumprod``/``cummax``/``cummin``, ``round`` (either rounding), ``copy``, the
total-order comparisons ``lt_to``/``le_to``, ``platform_index`` (the CPU's branch) and
``dot_general`` of floats (:func:`~dgraph.blocks.arrays.dot_general`: ``np.matmul``
for a product of vectors and matrices, rounding as BLAS does, else ``np.einsum``),
``argmax``/``argmin``, ``gather``,
``scatter`` and ``scatter-add`` by their flat positions (:mod:`.jaxpr_index_maps`:
windows clamped, filled or dropped as the mode says; a ``scatter`` writing an entry
twice, or a window out of bounds under ``promise_in_bounds``, left to XLA), and ``sort``
(NumPy's lexicographic order; a NaN or -0.0 in a key, or an unstable sort's ties, left
to XLA: its total order), each with JAX's semantics (``lax``'s ``max`` propagates NaN as
``np.maximum`` does; a ``select_n`` picks case ``k`` where its predicate is ``k``);
arithmetic whose integer semantics differ (``div``, ``pow``: a float base) and every
elementary function only on floats (the special functions ``erf``, ``lgamma``,
``logistic``, ... by SciPy's), and the calls of a custom rule's function inlined;
``div`` of integers rounds toward zero as lax's (a zero divisor left to XLA); ``pad``
spreads interior entries too. The factorizations (``lu``, ``triangular_solve``,
``cholesky``, ``eigh``, ``svd``, ``qr``) run by the LAPACK routines XLA's CPU kernels
call (:mod:`.jaxpr_numpy_linalg`: the same bits), and a ``custom_linear_solve``
(``jnp.linalg.solve``, ``inv``) by its ``solve`` program, as JAX's own implementation
runs it (:func:`linear_solve_call`). Elementary functions may round differently from
XLA's in the last bits, far below the check's tolerance
(:data:`~dgraph.core.value_check.TOLERANCE`). Complex numbers too: their arithmetic,
``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``abs``, ``real``, ``imag``, ``conj``,
``complex``, conversions, the moves, and ``fft`` by NumPy's pocketfft
(:data:`_COMPLEX_FUNCTIONS`); ``polygamma`` by SciPy's. A small ``scan`` or ``cond``
whose programs NumPy takes is stepped through (:func:`numpy_loop`): a ``fori_loop``'s
``J·v`` compiles nothing; a ``while`` too, trip by trip, up to
:data:`NUMPY_WHILE_MOST` equations, then continued in JAX. A result whose dtype or
shape is not the equation's, an operand on an accelerator, or any other equation: None,
and the caller binds it in JAX."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..blocks.arrays import dot_general
from .jaxpr_index_maps import gather_map, scatter_map
from .jaxpr_numpy_linalg import linalg_equation, linalg_taken

__all__ = [
    "ANY_DTYPE",
    "INLINED_CALLS",
    "NUMPY_LOOP_MOST",
    "NUMPY_WHILE_MOST",
    "called_programs",
    "lax_sign",
    "linear_solve_call",
    "numpy_equation",
    "numpy_loop",
    "numpy_pad",
    "numpy_program",
    "numpy_while_trips",
]

_FLOAT = {  # floats only: their integer versions round or wrap otherwise
    "div": np.divide,
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "atan2": np.arctan2,
    "floor": np.floor,
    "ceil": np.ceil,
    "is_finite": np.isfinite,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "cbrt": np.cbrt,
}

_SPECIAL = {  # lax's name: scipy.special's, the same function on floats
    "logistic": "expit",
    "erf": "erf",
    "erfc": "erfc",
    "erf_inv": "erfinv",
    "lgamma": "gammaln",
    "digamma": "psi",
    "bessel_i0e": "i0e",
    "bessel_i1e": "i1e",
}
"""Elementwise special functions by SciPy (imported on first use): JAX's values to
2e-14 relative (lgamma, digamma; the others to 2e-16), and the same NaN and infinities,
except ``digamma`` at ±0 (NaN in lax, ∓inf in SciPy) and ``lgamma`` at -inf (+inf in
lax, -inf in SciPy), both lax's here (:func:`_special`)."""


def _special(name: str, x: np.ndarray) -> np.ndarray:
    """``lax.<name>(x)`` by :data:`_SPECIAL`'s SciPy function, lax's at its edges."""
    import scipy.special

    out = getattr(scipy.special, _SPECIAL[name])(x)
    if name == "digamma":
        return np.where(x == 0, np.nan, out)
    return np.where(x == -np.inf, np.inf, out) if name == "lgamma" else out


def _polygamma(m: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``lax.polygamma(m, x)`` by SciPy's ``polygamma`` (within 9 ulps of lax's for
    ``m`` 1–3 at 5,000 points over e^±4; ``m`` 0 is ``digamma``, :data:`_SPECIAL`), with
    lax's NaN and infinities: NaN for ``m`` not a whole number ≥ 0 and, ``m`` ≥ 1, at
    +inf; at a pole (``x`` a whole number ≤ 0, or -inf) +inf for odd ``m``, else NaN."""
    import scipy.special

    m, x = np.broadcast_arrays(m, x)
    whole = np.isfinite(m) & (m >= 0) & (m == np.floor(m))
    out = scipy.special.polygamma(np.where(whole, m, 0).astype(np.int64), x)
    pole = ((x <= 0) & (x == np.floor(x))) | (x == -np.inf)
    out = np.where(pole, np.where(m % 2 == 1, np.inf, np.nan), out)
    out = np.where((x == np.inf) & (m >= 1), np.nan, out)
    return np.where(whole, out, np.nan)


def lax_sign(x: np.ndarray) -> np.ndarray:
    """``lax.sign``: a zero keeps its sign (NumPy's ``sign(-0.0)`` is ``0.0``)."""
    return np.where(x == 0, x, np.sign(x)) if x.dtype.kind == "f" else np.sign(x)


def _complex(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``lax.complex``: ``x + iy`` with each part as given (``1j * inf`` would make a NaN)."""
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), np.result_type(x, np.complex64))
    out.real, out.imag = x, y
    return out


def _complex_sqrt(z: np.ndarray) -> np.ndarray:
    """``lax.sqrt`` of complex numbers: XLA's takes a zero imaginary part as +0 (``-1 -
    0j`` has root ``+1j``, C's ``csqrt`` ``-1j``)."""
    return np.sqrt(np.where(z.imag == 0, _complex(z.real, np.zeros_like(z.real)), z))


def _fft(x: np.ndarray, p: dict) -> np.ndarray:
    """``lax.fft`` over its last ``len(fft_lengths)`` axes by NumPy's FFT (pocketfft):
    ``FFT`` and ``IFFT`` (the latter divided by the points, as lax's), ``RFFT`` of reals,
    ``IRFFT`` to ``fft_lengths`` reals."""
    lengths = tuple(int(n) for n in p["fft_lengths"])
    axes = tuple(range(-len(lengths), 0))
    kind = int(p["fft_type"])  # lax's FftType: FFT, IFFT, RFFT, IRFFT
    if kind == 0:
        return np.fft.fftn(x, axes=axes)
    if kind == 1:
        return np.fft.ifftn(x, axes=axes)
    if kind == 2:
        return np.fft.rfftn(x, axes=axes)
    return np.fft.irfftn(x, s=lengths, axes=axes)


_COMPLEX_FUNCTIONS: dict[str, Callable[..., np.ndarray]] = {
    "div": np.divide,
    "exp": np.exp,
    "log": np.log,
    "sqrt": _complex_sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "real": np.real,
    "imag": np.imag,
    "conj": lambda z, **_: np.conj(z),
    "complex": _complex,
}
"""Functions of complex numbers by NumPy (C99's), lax's names: within 2 ulps of the
modulus of XLA's at 20,000 random points with moduli over e^±9 (``div``, ``sqrt``,
``sin``, ``cos``), 113 (``log``, XLA's near ``|z| = 1``: 2.5e-14 relative) and, for
``exp``, 1e-9 relative only where the imaginary part is some 10^4 and more (the
argument of its sine; 1 ulp at the value check's points); the same at the branch cuts
(``sqrt``: XLA's sign, :func:`_complex_sqrt`). ``mul``, ``integer_pow`` (repeated
products) agree to 1–5 ulps of the modulus, ``abs``, ``add``, ``sub``, ``real``,
``imag`` exactly, and ``fft`` (NumPy's pocketfft, XLA's DUCC) to 1e-16 of the largest
entry (benchmarks/RESULTS.md, xla54)."""

_COMPLEX_TAKEN = frozenset(
    {
        *_COMPLEX_FUNCTIONS,
        *("add", "add_any", "sub", "mul", "neg", "eq", "ne", "abs", "square", "integer_pow"),
        *("broadcast_in_dim", "reshape", "slice", "transpose", "squeeze", "expand_dims"),
        *("rev", "copy", "stop_gradient", "reduce_sum", "convert_element_type", "fft"),
        *("select_n", "pad", "concatenate", "stack", "tile"),
        *("dynamic_slice", "dynamic_update_slice"),
        *("dot_general", "gather", "scatter", "scatter-add"),
    }
)
"""The primitives taken with a complex operand or result (:func:`_complex_taken`):
:data:`_COMPLEX_FUNCTIONS`, NumPy's arithmetic and the moves (any dtype alike), ``fft``."""


ANY_DTYPE: dict[str, Callable[..., np.ndarray]] = {
    "add": np.add,
    "add_any": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "neg": np.negative,
    "max": np.maximum,
    "min": np.minimum,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "abs": np.abs,
    "sign": lax_sign,
    "square": lambda x: np.multiply(x, x),
    "and": np.bitwise_and,  # logical on booleans, bitwise on integers, as lax's
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "not": np.invert,
    "clamp": lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
}
"""Primitives NumPy evaluates alike for floats, integers and booleans (two's complement
wraps alike), each ``lax`` name to its function."""


def _broadcast_in_dim(x: np.ndarray, p: dict) -> np.ndarray:
    shape = [1] * len(p["shape"])
    for axis, size in zip(p["broadcast_dimensions"], x.shape, strict=True):
        shape[axis] = size
    return np.broadcast_to(x.reshape(shape), p["shape"])


def _reshape(x: np.ndarray, p: dict) -> np.ndarray:
    """``lax.reshape``: the axes permuted first where ``dimensions`` is given."""
    if p.get("dimensions") is not None:
        x = np.transpose(x, p["dimensions"])
    return x.reshape(p["new_sizes"])


def _slice(x: np.ndarray, p: dict) -> np.ndarray:
    steps = p["strides"] or (1,) * x.ndim
    at = zip(p["start_indices"], p["limit_indices"], steps, strict=True)
    return x[tuple(slice(a, b, step) for a, b, step in at)]


def numpy_pad(x: np.ndarray, value: Any, p: dict) -> np.ndarray:
    """``pad``: ``interior`` entries between neighbours, then the edges (negative edges
    cut)."""
    config = p["padding_config"]
    if any(inner != 0 for _, _, inner in config):
        spread = [
            n + max(n - 1, 0) * inner for (_, _, inner), n in zip(config, x.shape, strict=True)
        ]
        full = np.full(spread, np.asarray(value).item(), dtype=x.dtype)
        full[tuple(slice(None, None, inner + 1) for _, _, inner in config)] = x
        x, config = full, [(lo, hi, 0) for lo, hi, _ in config]
    kept = x[
        tuple(
            slice(max(-lo, 0), n - max(-hi, 0))
            for (lo, hi, _), n in zip(config, x.shape, strict=True)
        )
    ]
    width = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in config]
    return np.pad(kept, width, constant_values=np.asarray(value).item())


def _round(x: np.ndarray, p: dict) -> np.ndarray:
    """``lax.round``: half to even (``TO_NEAREST_EVEN``) or half away from zero."""
    if int(p["rounding_method"]) == 1:
        return np.round(x)
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole)  # -0.4: -0.0


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``lax.div`` of integers: the quotient rounded toward zero (C's ``/``); a divisor
    0 left to XLA (its answer is its own)."""
    if (b == 0).any():
        return None
    q = np.floor_divide(a, b)
    return q + ((q < 0) & (q * b != a)).astype(q.dtype)


def _total_order(x: np.ndarray) -> np.ndarray:
    """Keys whose integer order is IEEE's total order of the floats ``x`` (``lt_to``'s):
    -NaN < -inf < ... < -0.0 < +0.0 < ... < inf < NaN."""
    bits = x.view(np.int64 if x.itemsize == 8 else np.int32)
    return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _cumulative(function: Callable[..., np.ndarray]) -> Callable[[np.ndarray, dict], np.ndarray]:
    """``cumsum``/``cumprod``/``cummax``/``cummin`` along ``axis``, from its end where
    ``reverse``."""

    def cumulative(x: np.ndarray, p: dict) -> np.ndarray:
        axis = p["axis"]
        if p["reverse"]:
            return np.flip(function(np.flip(x, axis), axis=axis), axis)
        return function(x, axis=axis)

    return cumulative


def _platform(p: dict) -> np.ndarray | None:
    """``platform_index`` on the host: the group naming ``cpu``, else the default
    (``None``) group."""
    groups = list(p["platforms"])
    found = [k for k, g in enumerate(groups) if g is not None and "cpu" in g]
    found = found or [k for k, g in enumerate(groups) if g is None]
    return np.asarray(found[0], dtype=np.int32) if found else None


def _select_n(which: np.ndarray, *cases: np.ndarray) -> np.ndarray:
    if len(cases) == 1:
        return cases[0]
    index = which.astype(np.int64) if which.dtype == np.bool_ else which
    return np.choose(index, np.broadcast_arrays(*cases))


def _reduce(function: Callable[..., np.ndarray]) -> Callable[[np.ndarray, dict], np.ndarray]:
    def reduce(x: np.ndarray, p: dict) -> np.ndarray:
        return function(x, axis=tuple(p["axes"]))

    return reduce


def _convert(x: np.ndarray, p: dict) -> np.ndarray | None:
    """``convert_element_type``; a float to an integer only where every value is finite
    and in range (toward zero, as XLA; its NaN and overflow are its own); a complex
    number to a real type: its real part (XLA's)."""
    target = np.dtype(p["new_dtype"])
    if x.dtype.kind == "c" and target.kind != "c":  # XLA's: the real part
        x = x.real
    if x.dtype.kind == "f" and target.kind in "iu":
        whole = np.trunc(x)
        info = np.iinfo(target)
        low, high = float(info.min), float(info.max) + 1.0  # both exact powers of two
        if not (np.isfinite(x).all() and ((whole >= low) & (whole < high)).all()):
            return None
        return whole.astype(target)
    return x.astype(target)


def _rem(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``lax.rem``: the sign of the dividend (C's ``%``, ``np.fmod``); an integer divisor
    0 left to XLA (its answer is its own)."""
    if a.dtype.kind in "iu" and (b == 0).any():
        return None
    return np.fmod(a, b)


def _starts(x: np.ndarray, starts: list[np.ndarray], sizes: tuple) -> tuple[slice, ...]:
    """A window's slices, its starts clamped into the array as ``lax.dynamic_slice``'s."""
    at = [min(max(int(s), 0), n - m) for s, n, m in zip(starts, x.shape, sizes, strict=True)]
    return tuple(slice(a, a + m) for a, m in zip(at, sizes, strict=True))


def _dynamic_update(x: np.ndarray, update: np.ndarray, *starts: np.ndarray) -> np.ndarray:
    out = np.array(x)
    out[_starts(x, list(starts), update.shape)] = update
    return out


def _iota(p: dict) -> np.ndarray:
    shape, axis = tuple(p["shape"]), p["dimension"]
    counts = np.arange(shape[axis]).reshape([-1 if k == axis else 1 for k in range(len(shape))])
    return np.broadcast_to(counts, shape).astype(p["dtype"])


def _arg(function: Callable[..., np.ndarray]) -> Callable[[np.ndarray, dict], np.ndarray]:
    """``argmax``/``argmin`` along their one axis: the first extreme, a NaN first (as
    lax's, which takes a NaN as both the largest and the smallest)."""

    def arg(x: np.ndarray, p: dict) -> np.ndarray:
        (axis,) = p["axes"]
        return function(x, axis=axis).astype(p["index_dtype"])

    return arg


def _fill(dtype: np.dtype, value: Any) -> Any:
    """A ``fill`` gather's value for a window leaving the operand: ``fill_value``, else
    JAX's default (NaN for floats and complex numbers, the least signed and the largest
    unsigned integer, True)."""
    if value is not None:
        return value
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if dtype.kind == "i" else info.max
    return True


def _gather(x: np.ndarray, idx: np.ndarray, p: dict, shape: tuple) -> np.ndarray | None:
    """``gather`` by its flat positions (:func:`~.jaxpr_index_maps.gather_map`)."""
    numbers, sizes = p["dimension_numbers"], tuple(p["slice_sizes"])
    found = gather_map(x.shape, shape, idx, numbers, sizes, p["mode"])
    if found is None:
        return None
    at, read = found
    out = x.reshape(-1)[at]
    if not read.all():
        out = np.where(read, out, np.asarray(_fill(x.dtype, p.get("fill_value")), x.dtype))
    return out.reshape(shape)


def _scatter(
    x: np.ndarray, idx: np.ndarray, update: np.ndarray, p: dict, adds: bool
) -> np.ndarray | None:
    """``scatter`` (``adds``: ``scatter-add``) by the flat targets of its update entries
    (:func:`~.jaxpr_index_maps.scatter_map`); None for a ``scatter`` writing two entries
    into one (which one is kept is XLA's to say)."""
    found = scatter_map(x.shape, update.shape, idx, p["dimension_numbers"], p["mode"])
    if found is None or (adds and x.dtype.kind == "b"):
        return None
    at, kept = found
    at, values = at[kept], update.reshape(-1)[kept]
    out = np.array(x).reshape(-1)
    if adds:
        np.add.at(out, at, values)
    elif np.unique(at).size != at.size:
        return None
    else:
        out[at] = values
    return out.reshape(x.shape)


def _sort(xs: list[np.ndarray], p: dict) -> list[np.ndarray] | None:
    """``sort``: every operand permuted as its first ``num_keys`` sort, lexicographically,
    along ``dimension``; None where lax's order is not NumPy's (a NaN or a -0.0 in a
    float key: lax's total order) or, unstable, where keys tie."""
    keys, axis = xs[: p["num_keys"]], p["dimension"]
    for key in keys:
        if key.dtype.kind == "f" and (np.isnan(key).any() or np.signbit(key[key == 0]).any()):
            return None
    order = np.lexsort(keys[::-1], axis=axis)
    if not p["is_stable"] and order.shape[axis] > 1:
        ordered = [np.take_along_axis(k, order, axis) for k in keys]
        ties = np.ones(np.diff(ordered[0], axis=axis).shape, dtype=bool)
        for k in ordered:
            ties &= np.diff(k, axis=axis) == 0
        if ties.any():
            return None
    return [np.take_along_axis(x, order, axis) for x in xs]


_MOVES: dict[str, Callable[..., np.ndarray | None]] = {
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape,
    "slice": _slice,
    "transpose": lambda x, p: np.transpose(x, p["permutation"]),
    "squeeze": lambda x, p: np.squeeze(x, axis=tuple(p["dimensions"])),
    "expand_dims": lambda x, p: np.expand_dims(x, tuple(p["dimensions"])),
    "reduce_sum": _reduce(np.sum),
    "reduce_max": _reduce(np.max),
    "reduce_min": _reduce(np.min),
    "convert_element_type": _convert,
    "stop_gradient": lambda x, p: x,
    "rev": lambda x, p: np.flip(x, tuple(p["dimensions"])),
    "tile": lambda x, p: np.tile(x, tuple(p["reps"])),
    "argmax": _arg(np.argmax),
    "argmin": _arg(np.argmin),
    "reduce_prod": _reduce(np.prod),
    "reduce_or": _reduce(np.any),
    "reduce_and": _reduce(np.all),
    "copy": lambda x, p: np.array(x),
    "round": _round,
    "cumsum": _cumulative(np.cumsum),
    "cumprod": _cumulative(np.cumprod),
    "cummax": _cumulative(np.maximum.accumulate),
    "cummin": _cumulative(np.minimum.accumulate),
}


def _on_host(x: Any) -> bool:
    """Whether ``x`` is a number (a literal), a NumPy array or scalar, or a JAX array on
    the CPU, of numbers."""
    if isinstance(x, (bool, int, float)):
        return True
    if isinstance(x, (np.ndarray, np.generic)):
        return np.dtype(x.dtype).kind in "biufc"
    devices = getattr(x, "devices", None)
    if not callable(devices) or not all(d.platform == "cpu" for d in devices()):
        return False
    return np.dtype(x.dtype).kind in "biufc"


def numpy_equation(eqn: Any, args: list[Any]) -> list[np.ndarray] | None:
    """``eqn`` (one equation of a jaxpr) applied to ``args`` by NumPy (module docstring),
    its one result as a list; None where it is not taken here."""
    name = eqn.primitive.name
    if not all(_on_host(a) for a in args):
        return None
    xs = [np.asarray(a) for a in args]
    complex_ = any(x.dtype.kind == "c" for x in xs) or "c" in map(_kind, eqn.outvars)
    if complex_ and not _numpy_taken(name, eqn):
        return None
    try:
        if name == "split" and len(xs) == 1:  # concatenate's transpose: several results
            at = np.cumsum(eqn.params["sizes"])[:-1]
            outs = np.split(xs[0], at, axis=eqn.params["axis"])
        elif name == "unstack" and len(xs) == 1:  # stack's transpose: one per index
            outs = list(np.moveaxis(xs[0], eqn.params["axis"], 0))
        elif name == "sort":
            outs = _sort(xs, eqn.params) or [None]
        elif name == "gather" and len(xs) == 2:
            outs = [_gather(*xs, eqn.params, tuple(eqn.outvars[0].aval.shape))]
        elif name in _SCATTERS and len(xs) == 3:
            outs = [_scatter(*xs, eqn.params, adds=name == "scatter-add")]
        elif name in _LINALG:
            outs = linalg_equation(name, xs, eqn.params) or [None]
        elif eqn.primitive.multiple_results or len(eqn.outvars) != 1:
            return None
        else:
            outs = [_numpy(name, xs, eqn.params)]
    except (ValueError, TypeError, IndexError):  # JAX's to say (an empty max, ...)
        return None
    if len(outs) != len(eqn.outvars) or any(out is None for out in outs):
        return None
    found = []
    for out, var in zip(outs, eqn.outvars, strict=True):
        out, aval = np.asarray(out), var.aval
        if out.shape != tuple(aval.shape) or np.dtype(aval.dtype).kind not in "biufc":
            return None
        found.append(out.astype(aval.dtype, copy=False))
    return found


def _numpy(name: str, xs: list[np.ndarray], params: dict) -> np.ndarray | None:
    """The primitive ``name`` on ``xs`` by NumPy; None where it is not taken here."""
    with np.errstate(all="ignore"):
        if name in _COMPLEX_FUNCTIONS and (
            name in ("complex", "conj") or any(x.dtype.kind == "c" for x in xs)
        ):
            out = _COMPLEX_FUNCTIONS[name](*xs)
        elif name == "fft" and len(xs) == 1:
            out = _fft(xs[0], params)
        elif name in ANY_DTYPE:
            out = ANY_DTYPE[name](*xs)
        elif name in _FLOAT and all(x.dtype.kind == "f" for x in xs):
            out = _FLOAT[name](*xs)
        elif name in _SPECIAL and len(xs) == 1 and xs[0].dtype.kind == "f":
            out = _special(name, xs[0])
        elif name == "polygamma" and all(x.dtype.kind == "f" for x in xs):
            out = _polygamma(*xs)
        elif name == "pow" and xs[0].dtype.kind == "f":  # an integer exponent: lax's too
            out = np.power(xs[0], xs[1].astype(xs[0].dtype))
        elif name == "integer_pow" and xs[0].dtype.kind in "fc":
            out = np.power(xs[0], params["y"])
        elif name == "select_n" and xs[0].dtype.kind in "biu":
            out = _select_n(*xs)
        elif name == "pad":
            out = numpy_pad(xs[0], xs[1], params)
        elif name == "concatenate":
            out = np.concatenate(xs, axis=params["dimension"])
        elif name == "stack" and xs:
            out = np.stack(xs, axis=params["axis"])
        elif name in _MOVES and len(xs) == 1:
            out = _MOVES[name](xs[0], params)
        elif name == "dot_general" and all(x.dtype.kind in "fc" for x in xs):
            out = dot_general(xs[0], xs[1], params["dimension_numbers"])
        elif name == "iota" and not xs:
            out = _iota(params)
        elif name == "empty2" and not xs:  # a scan's stacked-results buffer: XLA's zeros
            out = np.zeros((), dtype=params["dtype"])
        elif name == "rem":
            out = _rem(xs[0], xs[1])
        elif name == "div" and all(x.dtype.kind in "iu" for x in xs):
            out = _int_div(xs[0], xs[1])
        elif name in ("lt_to", "le_to") and all(x.dtype.kind == "f" for x in xs):
            compare = np.less if name == "lt_to" else np.less_equal
            out = compare(_total_order(xs[0]), _total_order(xs[1]))
        elif name == "platform_index" and not xs:
            out = _platform(params)
        elif name == "dynamic_slice":
            out = xs[0][_starts(xs[0], xs[1:], tuple(params["slice_sizes"]))]
        elif name == "dynamic_update_slice":
            out = _dynamic_update(*xs)
        else:
            return None
    return out


INLINED_CALLS = frozenset(
    {
        "pjit",
        "jit",
        "closed_call",
        "core_call",
        "remat",
        "checkpoint",
        "remat2",
        "custom_jvp_call",
        "custom_vjp_call",
    }
)
"""The call primitives a program run eagerly inlines (:func:`~.jaxpr_arrays.run_eagerly`)
and :func:`numpy_program` looks into: a custom rule's function is run as its primal
program (``jax.nn.relu``'s, ``logsumexp``'s), as JAX evaluates it; its rule matters
only to a derivative, which a program run here has already taken."""


NUMPY_LOOP_MOST = 10_000
"""The most equations a ``scan`` (its steps times its body's, nested loops' steps
included) or a ``cond`` (its longest branch) may run for :func:`numpy_loop` to take it:
NumPy takes some 5–15 µs an equation, a loop's compile as part of a program some 0.1 s
and more (a reference's ``J·v`` of a ``fori_loop`` of 6 steps: 44 equations in its
body)."""


def linear_solve_call(eqn: Any, args: list[Any]) -> tuple[Any, list[Any]]:
    """A ``custom_linear_solve`` equation's value as JAX's own implementation computes
    it: its ``solve`` program (a closed jaxpr) and that program's arguments among
    ``args`` (its constants, then the right-hand sides)."""
    lengths = eqn.params["const_lengths"]
    start = lengths.matvec + lengths.vecmat
    constants = sum(lengths)
    return eqn.params["jaxprs"].solve, [*args[start : start + lengths.solve], *args[constants:]]


def numpy_program(jaxpr: Any) -> bool:
    """Whether :func:`numpy_equation` takes every equation of ``jaxpr`` (calls inlined,
    as :func:`~.jaxpr_arrays.run_eagerly` inlines them; a small ``scan`` or ``cond``
    stepped through, :func:`numpy_loop`), judged by the equations' primitives,
    parameters and types alone: run eagerly, such a program compiles nothing."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in INLINED_CALLS:
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
            if inner is None or not numpy_program(getattr(inner, "jaxpr", inner)):
                return False
        elif name in _LOOPS:
            if not numpy_loop(eqn):
                return False
        elif name == "custom_linear_solve":
            if not numpy_program(eqn.params["jaxprs"].solve.jaxpr):
                return False
        elif not _numpy_taken(name, eqn):
            return False
    return True


_LOOPS = ("scan", "cond", "while")


def numpy_loop(eqn: Any, args: list[Any] | None = None) -> bool:
    """Whether ``eqn``, a ``scan``, a ``cond`` or a ``while``, is run by
    :func:`~.jaxpr_arrays.run_eagerly` step by step (each branch, each step's body by
    :func:`numpy_program`'s equations): every program it runs is a :func:`numpy_program`
    and it runs at most :data:`NUMPY_LOOP_MOST` equations (a ``while``: one trip; its
    trips past that many equations are XLA's, :data:`NUMPY_WHILE_MOST`; none inside a
    ``scan``'s or a ``while``'s body, whose trips would multiply) (and its operands
    ``args``, where given, are in host memory)."""
    name = eqn.primitive.name
    if args is not None and not all(_on_host(a) for a in args):
        return False
    if name not in _LOOPS or any(_kind(v) not in "biufc" for v in (*eqn.invars, *eqn.outvars)):
        return False
    if _work(eqn) > NUMPY_LOOP_MOST:
        return False
    if name == "while":  # a scalar predicate (a batched one is JAX's to say)
        programs = [eqn.params["cond_jaxpr"].jaxpr, eqn.params["body_jaxpr"].jaxpr]
        scalar = [tuple(v.aval.shape) for v in programs[0].outvars] == [()]
        return scalar and all(numpy_program(j) and not _has_while(j) for j in programs)
    if name == "scan":
        body = eqn.params["jaxpr"].jaxpr
        return numpy_program(body) and not _has_while(body)
    return all(numpy_program(branch.jaxpr) for branch in eqn.params["branches"])


NUMPY_WHILE_MOST = 2_000
"""The most equations of a ``while``'s trips (its condition's and body's) run by NumPy
(:func:`~.jaxpr_arrays.run_eagerly`); a loop still running then is bound in JAX from
where it is (its state after those trips: the same loop continued), so that a long loop
costs at most this much NumPy on top of its compile. ``J·v`` of a 24-equation loop
(tests/test_jaxpr_numpy.py's): NumPy 0.2 ms a trip (8.5 µs an equation), the jitted
``jvp``'s first call 0.04–0.07 CPU s (XLA's default options); at 400 trips NumPy took
0.08 s a run, twice that compile, at 2,000 equations some 17 ms, under a compile's
share even at a check's few runs (benchmarks/RESULTS.md, xla54)."""


def numpy_while_trips(eqn: Any) -> int:
    """The most trips of the ``while`` ``eqn`` run by NumPy (:data:`NUMPY_WHILE_MOST`)."""
    return max(NUMPY_WHILE_MOST // max(_work(eqn), 1), 1)


def called_programs(eqn: Any) -> Iterator[Any]:
    """The programs ``eqn`` calls (a loop's body and condition, a ``cond``'s branches, a
    call's program), each a ``Jaxpr`` (a ``ClosedJaxpr``'s own)."""
    for value in eqn.params.values():
        for sub in value if isinstance(value, (tuple, list)) else (value,):
            inner = getattr(sub, "jaxpr", sub)
            if hasattr(inner, "eqns"):
                yield inner


def _has_while(jaxpr: Any) -> bool:
    """Whether ``jaxpr`` or a program it calls has a ``while``."""
    return any(
        eqn.primitive.name == "while" or any(_has_while(j) for j in called_programs(eqn))
        for eqn in jaxpr.eqns
    )


def _work(eqn: Any) -> int:
    """The equations a ``scan``/``cond``/call equation runs (a loop's body once per step; a
    ``while``'s condition and body once)."""
    name = eqn.primitive.name
    if name == "scan":
        return int(eqn.params["length"]) * _program_work(eqn.params["jaxpr"].jaxpr)
    if name == "cond":
        return max((_program_work(b.jaxpr) for b in eqn.params["branches"]), default=0)
    if name == "while":  # one trip
        p = eqn.params
        return _program_work(p["cond_jaxpr"].jaxpr) + _program_work(p["body_jaxpr"].jaxpr)
    if name in INLINED_CALLS:
        inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
        return _program_work(getattr(inner, "jaxpr", inner))
    if name == "custom_linear_solve":
        return _program_work(eqn.params["jaxprs"].solve.jaxpr)
    return 1


def _program_work(jaxpr: Any) -> int:
    return sum(_work(e) for e in jaxpr.eqns)


def _kind(var: Any) -> str:
    """A variable's NumPy kind (``f``, ``i``, ...); ``"?"`` for a type NumPy has not (a
    PRNG key's, a ``float0``)."""
    try:
        return np.dtype(var.aval.dtype).kind
    except TypeError:
        return "?"


_SCATTERS = ("scatter", "scatter-add")
_LINALG = ("lu", "triangular_solve", "cholesky", "eigh", "svd", "qr")  # .jaxpr_numpy_linalg


def _indexed_taken(name: str, p: dict, kinds: list[str]) -> bool:
    """Whether :func:`numpy_equation` takes a ``gather`` or a scatter of these operand
    kinds (it may still leave one to JAX at its values: a window out of bounds under
    ``promise_in_bounds``, a ``scatter`` writing an entry twice)."""
    numbers = p["dimension_numbers"]
    batching = ("operand_batching_dims", "start_indices_batching_dims")
    batching += ("scatter_indices_batching_dims",)
    if any(tuple(getattr(numbers, b, ())) for b in batching) or kinds[1] not in "iu":
        return False
    if name == "gather":
        return len(kinds) == 2
    return len(kinds) == 3 and (name == "scatter" or kinds[0] in "iufc")


def _complex_taken(name: str, eqn: Any, kinds: list[str], results: list[str]) -> bool:
    """:func:`_numpy`'s choice for ``eqn`` with a complex operand or result
    (:data:`_COMPLEX_TAKEN`): a conversion to a float or complex type, indices and
    selectors integers, a pad without negative interior."""
    if name not in _COMPLEX_TAKEN or len(results) != 1:
        return False
    if name == "convert_element_type":  # a complex number to a float: its real part
        return results[0] in "fc"
    if name == "select_n":
        return kinds[0] in "biu"
    if name in ("dynamic_slice", "dynamic_update_slice"):
        return all(k in "iu" for k in kinds[1 if name == "dynamic_slice" else 2 :])
    if name in ("gather", "scatter", "scatter-add"):
        return _indexed_taken(name, eqn.params, kinds)
    if name == "pad":
        return all(inner >= 0 for _, _, inner in eqn.params["padding_config"])
    if name == "dot_general":
        return all(k in "fc" for k in kinds)
    return all(k in "fc" for k in kinds) or name in ("concatenate", "stack")


def _numpy_taken(name: str, eqn: Any) -> bool:
    """:func:`_numpy`'s choice for ``eqn`` from its operands' and results' types."""
    kinds, results = [_kind(v) for v in eqn.invars], [_kind(v) for v in eqn.outvars]
    if any(k not in "biufc" for k in (*kinds, *results)):
        return False
    if "c" in kinds or "c" in results:
        return _complex_taken(name, eqn, kinds, results)
    if name in ("split", "unstack"):
        return len(kinds) == 1
    if name == "sort":
        return True
    if name in ("gather", *_SCATTERS):
        return _indexed_taken(name, eqn.params, kinds)
    if name in _LINALG:
        avals = [v.aval for v in eqn.invars]
        return linalg_taken(name, kinds, [a.dtype for a in avals], [a.shape for a in avals])
    if eqn.primitive.multiple_results or len(eqn.outvars) != 1:
        return False
    p = eqn.params
    if name in ANY_DTYPE or name in ("concatenate", "stack"):
        return True
    if name == "div" and all(k in "iu" for k in kinds):
        return True
    if name in _FLOAT or name == "dot_general":
        return all(k == "f" for k in kinds)
    if name in _SPECIAL:
        return kinds == ["f"]
    if name == "polygamma":
        return kinds == ["f", "f"]
    if name in ("iota", "empty2"):
        return not kinds
    if name in ("pow", "integer_pow"):
        return kinds[0] == "f"
    if name == "rem":
        return True
    if name in ("lt_to", "le_to"):
        return all(k == "f" for k in kinds)
    if name == "platform_index":
        return not kinds
    if name in ("dynamic_slice", "dynamic_update_slice"):
        return all(k in "iu" for k in kinds[1 if name == "dynamic_slice" else 2 :])
    if name == "select_n":
        return kinds[0] in "biu"
    if name == "pad":
        return all(inner >= 0 for _, _, inner in p["padding_config"])
    if name in ("round", "reduce_prod", "cumsum", "cumprod", "cummax", "cummin"):
        return kinds == ["f"] or (name != "round" and kinds[0] in "iu")
    if name in ("reduce_or", "reduce_and"):
        return kinds == ["b"]
    return name in _MOVES and len(kinds) == 1
