"""Complex values in the NumPy tracer as pairs of real arrays, as the JAX reader holds them
(:mod:`~dgraph.frontends.jaxpr_complex`): a real function of real arguments that computes
in complex numbers inside (``np.abs(np.fft.rfft(x))**2``, ``np.fft.irfft(1j * k *
np.fft.rfft(u))``, ``np.exp(1j * theta)``) is traced with each complex value a
:class:`ComplexArray` of a real part and an imaginary part (traced arrays, constants, or
``None`` where known to be 0). Every operation on it is written in the tracer's real
operations on the parts, so the graph stays real and every Jacobian block, value check and
code generator applies unchanged.

* ``+``, ``-``, ``*``, ``/``, integer powers, ``np.exp``, ``np.log`` and ``np.sqrt``
  (principal branches, NumPy's: ``log|z| + i·angle(z)``, ``sqrt|z|·e^{i·angle(z)/2}``,
  the cut on the negative real axis), ``np.abs``, ``np.real``,
  ``np.imag``, ``np.conj``, ``np.angle``, ``.real``, ``.imag``, ``.conj()``, with real
  or complex operands and complex constants (``1j * k * U``), by the textbook formulas;
  ``|z|`` is ``sqrt(s + e) − e``, ``s = re² + im²``, ``e = (s == 0)`` (its derivative at 0
  is 0, as JAX's); ``|z|**2`` (``np.square``, an even power) is read as ``s`` itself and
  ``z * conj(z)`` as ``(s, 0)``: a power spectrum is smooth where a bin is 0 (a constant
  signal's), which ``sqrt(s)**2`` is not;
* sums, means, moves (reshape, transpose, slices, ``np.roll``, ``np.concatenate``,
  ``np.where``, ...) on each part; products with constant or real matrices (``@``,
  ``np.dot``, ``np.tensordot``, ``np.outer``) as four real ones;
* ``np.fft.fft``, ``ifft``, ``rfft``, ``irfft``, ``fft2``, ``ifft2``, ``rfft2``,
  ``irfft2``, ``fftn``, ``ifftn``, ``rfftn``, ``irfftn`` (``n``/``s``, ``axis``/``axes``,
  ``norm`` as NumPy reads them) as products with the constant DFT matrices of
  :mod:`~dgraph.frontends.dft` (the JAX reader's), at most
  :data:`~dgraph.frontends.dft.FFT_MOST` per axis; ``np.fft.fftshift`` and ``ifftshift``
  as ``np.roll``; ``np.fft.fftfreq`` is a constant.

Any other operation on a complex value is one :class:`~dgraph.errors.InputError` line, as
is a complex output (the derivatives are of real outputs: return ``np.real(z)`` and
``np.imag(z)``). The graph's values are checked against the function's own (NumPy's
pocketfft) at the user's point, so a wrong rule here is reported, never returned.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from . import complex_parts as cp
from . import dft
from .remembered import Remembered

__all__ = [
    "FUNCTIONS",
    "REAL_FUNCTIONS",
    "ComplexArray",
    "elementwise",
    "is_complex",
    "lift",
    "power",
    "squared_norm_of",
    "ufunc",
]

_READ = (
    "complex values are read as pairs of real arrays: arithmetic, abs, exp, log, sqrt, real,"
    " imag, conj, angle, sums, moves, products and numpy.fft"
)


def _refused(what: str) -> InputError:
    return InputError(f"{what} of a complex value is not supported ({_READ})")


class ComplexArray:
    """A complex array as its real and imaginary parts (real arrays of shapes that
    broadcast to ``shape``; ``None``: known to be 0). ``conjugate_of``: the value this is
    the conjugate of (``z * conj(z)`` is ``|z|²``)."""

    __array_priority__ = 2000  # above a traced array's: NumPy asks this one first

    def __init__(self, re: Any, im: Any, shape: Sequence[int], conjugate_of: Any = None):
        self.re, self.im, self.shape = re, im, tuple(int(n) for n in shape)
        self.conjugate_of = conjugate_of

    def __repr__(self) -> str:
        return f"ComplexArray(shape={self.shape})"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(complex)

    @property
    def real(self) -> Any:
        return _full(self.re, self.shape)

    @property
    def imag(self) -> Any:
        return _full(self.im, self.shape)

    @property
    def T(self) -> ComplexArray:
        return _partwise(np.transpose, self)

    def conj(self) -> ComplexArray:
        return conjugate(self)

    conjugate = conj

    def reshape(self, *shape: Any, order: str = "C") -> ComplexArray:
        return _partwise(np.reshape, self, shape[0] if len(shape) == 1 else shape, order=order)

    def ravel(self, order: str = "C") -> ComplexArray:
        return _partwise(np.reshape, self, (-1,), order=order)

    flatten = ravel

    def transpose(self, *axes: Any) -> ComplexArray:
        return _partwise(np.transpose, self, axes[0] if len(axes) == 1 else (axes or None))

    def sum(self, axis: Any = None, keepdims: bool = False) -> ComplexArray:
        return _partwise(np.sum, self, axis, keepdims=keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> ComplexArray:
        return _partwise(np.mean, self, axis, keepdims=keepdims)

    def copy(self) -> ComplexArray:
        return self

    def __len__(self) -> int:
        if not self.shape:
            raise InputError("len() of a 0-d array")
        return self.shape[0]

    def __iter__(self):
        return (self[k] for k in range(len(self)))

    def __getitem__(self, key: Any) -> ComplexArray:
        return _partwise(lambda p: p[key], self)

    def __setitem__(self, key: Any, value: Any) -> None:
        raise _refused("assignment x[...] = ...")

    def __bool__(self) -> bool:
        raise _refused("a branch (if, while, bool())")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise _refused("converting to a NumPy array")

    def __complex__(self) -> complex:
        raise _refused("complex()")

    __float__ = __int__ = __index__ = __complex__
    __hash__ = object.__hash__

    def __add__(self, o: Any) -> ComplexArray:
        return add(self, o)

    def __radd__(self, o: Any) -> ComplexArray:
        return add(o, self)

    def __sub__(self, o: Any) -> ComplexArray:
        return subtract(self, o)

    def __rsub__(self, o: Any) -> ComplexArray:
        return subtract(o, self)

    def __mul__(self, o: Any) -> ComplexArray:
        return multiply(self, o)

    def __rmul__(self, o: Any) -> ComplexArray:
        return multiply(o, self)

    def __truediv__(self, o: Any) -> ComplexArray:
        return divide(self, o)

    def __rtruediv__(self, o: Any) -> ComplexArray:
        return divide(o, self)

    def __pow__(self, o: Any) -> ComplexArray:
        return power(self, o)

    def __rpow__(self, o: Any) -> ComplexArray:
        return power(o, self)

    def __matmul__(self, o: Any) -> ComplexArray:
        return _bilinear(np.matmul, self, o)

    def __rmatmul__(self, o: Any) -> ComplexArray:
        return _bilinear(np.matmul, o, self)

    def __neg__(self) -> ComplexArray:
        return negative(self)

    def __pos__(self) -> ComplexArray:
        return self

    def __abs__(self) -> Any:
        return absolute(self)

    def __eq__(self, o: Any) -> Any:  # type: ignore[override]
        raise _refused("a comparison")

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__

    def __array_ufunc__(self, function: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return ufunc(function, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        handler = FUNCTIONS.get(func)
        if handler is None:
            raise _refused(f"numpy.{getattr(func, '__name__', func)}")
        return handler(*args, **kwargs)


# -- values --------------------------------------------------------------------------------


def is_complex(x: Any) -> bool:
    """Whether ``x`` is a complex value: a :class:`ComplexArray`, or a complex constant."""
    if isinstance(x, ComplexArray | complex):
        return True
    return isinstance(x, np.ndarray | np.generic) and x.dtype.kind == "c"


def _shape(x: Any) -> tuple[int, ...]:
    return x.shape if isinstance(x, ComplexArray) else tuple(np.shape(x))


def lift(x: Any) -> ComplexArray:
    """``x`` as a :class:`ComplexArray` (a real value: its real part; a complex constant:
    its parts, a part of zeros ``None``)."""
    if isinstance(x, ComplexArray):
        return x
    if is_complex(x):
        array = np.asarray(x)
        re, im = np.real(array).copy(), np.imag(array).copy()
        return ComplexArray(re if re.any() else None, im if im.any() else None, array.shape)
    return ComplexArray(x, None, _shape(x))


def _full(part: Any, shape: tuple[int, ...]) -> Any:
    """A part as an array of ``shape`` (zeros for ``None``)."""
    if part is None:
        return np.zeros(shape)
    return part if tuple(np.shape(part)) == shape else np.broadcast_to(part, shape)


def _broadcast(x: Any, y: Any, what: str) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(_shape(x), _shape(y)))
    except ValueError:
        raise InputError(f"{what}: shapes {_shape(x)} and {_shape(y)} do not broadcast") from None


def _squared_norm(a: ComplexArray) -> Any:
    return cp.add(cp.mul(a.re, a.re), cp.mul(a.im, a.im))


# -- arithmetic ----------------------------------------------------------------------------


def add(x: Any, y: Any) -> ComplexArray:
    a, b = lift(x), lift(y)
    return ComplexArray(cp.add(a.re, b.re), cp.add(a.im, b.im), _broadcast(a, b, "add"))


def subtract(x: Any, y: Any) -> ComplexArray:
    a, b = lift(x), lift(y)
    return ComplexArray(cp.sub(a.re, b.re), cp.sub(a.im, b.im), _broadcast(a, b, "subtract"))


def negative(x: Any) -> ComplexArray:
    a = lift(x)
    return ComplexArray(cp.neg(a.re), cp.neg(a.im), a.shape)


def conjugate(x: Any) -> ComplexArray:
    a = lift(x)
    return ComplexArray(a.re, cp.neg(a.im), a.shape, conjugate_of=a)


def multiply(x: Any, y: Any) -> ComplexArray:
    """``x * y``; ``z * conj(z)`` is ``(re² + im², 0)``, smooth everywhere."""
    a, b = lift(x), lift(y)
    shape = _broadcast(a, b, "multiply")
    if b.conjugate_of is a or a.conjugate_of is b:
        return ComplexArray(_squared_norm(a), None, shape)
    return _bilinear(lambda p, q: p * q, a, b, shape)


def _bilinear(f: Callable[[Any, Any], Any], x: Any, y: Any, shape: Any = None) -> ComplexArray:
    """``f`` (bilinear over real arrays: ``*``, ``@``, ``np.tensordot``) of complex values,
    as four real ones (fewer where a part is 0)."""
    a, b = lift(x), lift(y)

    def g(p: Any, q: Any) -> Any:
        return None if p is None or q is None else f(p, q)

    re = cp.sub(g(a.re, b.re), g(a.im, b.im))
    im = cp.add(g(a.re, b.im), g(a.im, b.re))
    if shape is None:  # the shape of f's result: of f on the parts' shapes
        shape = np.shape(f(np.zeros(a.shape), np.zeros(b.shape)))
    return ComplexArray(re, im, shape)


def divide(x: Any, y: Any) -> ComplexArray:
    a, b = lift(x), lift(y)
    shape = _broadcast(a, b, "divide")
    if b.im is None:
        if b.re is None:
            raise InputError("divide: a division by a complex 0")
        d = b.re
        return ComplexArray(
            None if a.re is None else a.re / d, None if a.im is None else a.im / d, shape
        )
    norm = _squared_norm(b)
    top = multiply(a, ComplexArray(b.re, cp.neg(b.im), b.shape))
    return ComplexArray(
        None if top.re is None else top.re / norm, None if top.im is None else top.im / norm, shape
    )


def power(x: Any, y: Any) -> ComplexArray:
    """``x**y`` of a complex ``x`` and an integer ``y`` (|y| ≤ 64), by repeated squaring (a
    negative ``y``: of ``1/x``)."""
    if is_complex(y) or isinstance(y, ComplexArray) or np.ndim(y) != 0:
        raise _refused("a power with a complex or array exponent")
    try:
        k = float(y)
    except (TypeError, InputError):
        raise _refused("a power with an exponent that depends on the inputs") from None
    if not (math.isfinite(k) and k == int(k) and abs(k) <= 64):
        raise _refused(f"a power {k:g} (not an integer of at most 64)")
    a, k = lift(x), int(k)
    if k == 0:
        return ComplexArray(np.ones(a.shape), None, a.shape)
    return cp.power(a if k > 0 else divide(1.0, a), abs(k), multiply)


def exp(x: Any) -> ComplexArray:
    a = lift(x)
    if a.im is None:
        return ComplexArray(np.exp(_full(a.re, a.shape)), None, a.shape)
    if a.re is None:
        return ComplexArray(np.cos(a.im), np.sin(a.im), a.shape)
    e = np.exp(a.re)
    return ComplexArray(e * np.cos(a.im), e * np.sin(a.im), a.shape)


_SQUARES = Remembered()  # |z| -> |z|²


def squared_norm_of(x: Any) -> Any:
    """``re² + im²`` where ``x`` is ``|z|`` of a complex ``z`` (:func:`absolute`), else
    None: ``|z|**2`` is read as it, smooth where ``z = 0``."""
    return _SQUARES.recall(x)


def absolute(x: Any) -> Any:
    """``|z|`` (a real array), its derivative at 0 taken as 0 (as JAX's): ``sqrt(s + e) −
    e``, ``s = re² + im²``, ``e = 1`` where ``s = 0``; remembered with ``s``."""
    a = lift(x)
    if a.im is None or a.re is None:
        part = _full(a.re if a.im is None else a.im, a.shape)
        return _SQUARES.remember(np.abs(part), part * part)
    s = _squared_norm(a)
    e = np.where(s == 0, 1.0, 0.0)  # a comparison: no derivative flows through it
    return _SQUARES.remember(np.sqrt(s + e) - e, s)


def angle(z: Any, deg: bool = False) -> Any:
    a = lift(z)
    out = np.arctan2(_full(a.im, a.shape), _full(a.re, a.shape))
    return out * (180.0 / math.pi) if deg else out


def log(x: Any) -> ComplexArray:
    """NumPy's principal ``log z = log|z| + i·angle(z)``."""
    a = lift(x)
    return ComplexArray(np.log(absolute(a)), angle(a), a.shape)


def sqrt(x: Any) -> ComplexArray:
    """NumPy's principal ``sqrt z = sqrt|z|·(cos(θ/2) + i·sin(θ/2))``, ``θ = angle(z)``."""
    a = lift(x)
    r, half = np.sqrt(absolute(a)), 0.5 * angle(a)
    return ComplexArray(r * np.cos(half), r * np.sin(half), a.shape)


def real(val: Any) -> Any:
    return lift(val).real


def imag(val: Any) -> Any:
    return lift(val).imag


# -- ufuncs and functions ------------------------------------------------------------------

_UNARY: dict[str, Callable[[Any], Any]] = {
    "negative": negative,
    "positive": lambda a: a,
    "conjugate": conjugate,
    "absolute": absolute,
    "exp": exp,
    "log": log,
    "sqrt": sqrt,
    "square": lambda a: multiply(a, a),
}
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": add,
    "subtract": subtract,
    "multiply": multiply,
    "divide": divide,
    "true_divide": divide,
    "power": power,
    "float_power": power,
    "matmul": lambda a, b: _bilinear(np.matmul, a, b),
}
_ELEMENTWISE = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
                "neg": "negative", "abs": "absolute", "exp": "exp", "square": "square",
                "pow": "power", "log": "log", "sqrt": "sqrt"}  # fmt: skip
"""The tracer's elementwise operations (jax.lax's names) and the ufuncs they are."""


def ufunc(function: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    """``function(*inputs)`` where an input is complex."""
    name = function.__name__
    if method != "__call__" or kwargs.get("out") is not None:
        raise _refused(f"numpy.{name}.{method}" if method != "__call__" else f"numpy.{name}(out=)")
    if len(inputs) == 1 and name in _UNARY:
        return _UNARY[name](inputs[0])
    if len(inputs) == 2 and name in _BINARY:
        return _BINARY[name](*inputs)
    raise _refused(f"numpy.{name}")


def elementwise(name: str, args: Sequence[Any]) -> Any:
    """The tracer's elementwise operation ``name`` (jax.lax's) where an operand is
    complex."""
    function = _ELEMENTWISE.get(name)
    if function is None:
        raise _refused(f"the operation {name!r}")
    return ufunc(getattr(np, function), "__call__", tuple(args), {})


def _partwise(f: Callable[..., Any], x: Any, *args: Any, **kwargs: Any) -> ComplexArray:
    """``f`` (linear: a sum, a move) applied to each part of ``x``."""
    a = lift(x)
    re, im = a.re, a.im
    if re is not None and tuple(np.shape(re)) != a.shape:
        re = _full(re, a.shape)
    if im is not None and tuple(np.shape(im)) != a.shape:
        im = _full(im, a.shape)
    parts = [None if p is None else f(p, *args, **kwargs) for p in (re, im)]
    shape = next((np.shape(p) for p in parts if p is not None), None)
    if shape is None:
        shape = np.shape(f(np.zeros(a.shape), *args, **kwargs))
    return ComplexArray(parts[0], parts[1], shape)


def _linear(f: Callable[..., Any]) -> Callable[..., Any]:
    def apply(x: Any, *args: Any, **kwargs: Any) -> Any:
        return _partwise(f, x, *args, **kwargs)

    return apply


def _sequence(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` of a list of arrays (``np.concatenate``, ``np.stack``) on each part."""

    def apply(arrays: Sequence[Any], *args: Any, **kwargs: Any) -> Any:
        values = [lift(a) for a in arrays]
        parts = []
        for index in (0, 1):
            chosen = [(v.re, v.im)[index] for v in values]
            if all(p is None for p in chosen):
                parts.append(None)
                continue
            full = [_full(p, v.shape) for p, v in zip(chosen, values, strict=True)]
            parts.append(f(full, *args, **kwargs))
        shape = np.shape(f([np.zeros(v.shape) for v in values], *args, **kwargs))
        return ComplexArray(parts[0], parts[1], shape)

    return apply


def _where(condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None or y is None:
        raise _refused("numpy.where with one argument")
    a, b = lift(x), lift(y)
    shape = np.broadcast_shapes(np.shape(condition), a.shape, b.shape)
    parts = [
        None
        if p is None and q is None
        else np.where(condition, _full(p, a.shape), _full(q, b.shape))
        for p, q in ((a.re, b.re), (a.im, b.im))
    ]
    return ComplexArray(parts[0], parts[1], shape)


# -- the DFT -------------------------------------------------------------------------------

_NORMS = ("backward", "ortho", "forward")


def _scale(norm: Any, n: int, inverse: bool, what: str) -> float:
    """The factor on the transform of ``norm`` (None: ``"backward"``) beside the
    ``"backward"`` one (the inverse's ``1/n`` is in its matrices)."""
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise InputError(f"{what}: norm must be one of {', '.join(_NORMS)}, not {norm!r}")
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1.0 / math.sqrt(n)
    if norm == "forward":
        return float(n) if inverse else 1.0 / n
    return 1.0


def _along(part: Any, m: np.ndarray, axis: int) -> Any:
    """``m`` (rows × length) applied along ``axis`` of ``part`` (of that length there)."""
    if part is None:
        return None
    ndim = len(np.shape(part))
    if axis == ndim - 1:
        return np.matmul(part, np.ascontiguousarray(m.T))
    y = np.tensordot(m, part, axes=([1], [axis]))
    return np.transpose(y, (*range(1, axis + 1), 0, *range(axis + 1, ndim)))


def _cut(a: ComplexArray, axis: int, n: int) -> tuple[ComplexArray, int]:
    """``a`` with at most ``n`` entries along ``axis`` (NumPy's truncation), and how
    many it has (fewer: the rest are NumPy's zero padding, columns the product skips)."""
    length = a.shape[axis]
    if length <= n:
        return a, length
    key = (slice(None),) * axis + (slice(0, n),)
    return _partwise(lambda p: p[key], a), n


def _shaped(a: ComplexArray, axis: int, rows: int) -> tuple[int, ...]:
    return (*a.shape[:axis], rows, *a.shape[axis + 1 :])


def _complex_dft(a: ComplexArray, axis: int, n: int, inverse: bool, norm: Any, what: str):
    """The DFT of length ``n`` (``inverse``: its inverse) of ``a`` along ``axis``."""
    a, used = _cut(a, axis, n)
    c, s = dft.matrices(n, n)
    factor = _scale(norm, n, inverse, what) * (1.0 / n if inverse else 1.0)
    c, s = c[:, :used] * factor, s[:, :used] * (-factor if inverse else factor)
    re, im = _full_parts(a)
    cr, ci, sr, si = (
        _along(re, c, axis),
        _along(im, c, axis),
        _along(re, s, axis),
        _along(im, s, axis),
    )
    return ComplexArray(cp.add(cr, si), cp.sub(ci, sr), _shaped(a, axis, n))


def _full_parts(a: ComplexArray) -> tuple[Any, Any]:
    return tuple(None if p is None else _full(p, a.shape) for p in (a.re, a.im))


def _real_dft(x: Any, axis: int, n: int, norm: Any, what: str) -> ComplexArray:
    """The first ``n//2 + 1`` entries of the DFT of length ``n`` of a real ``x``."""
    a = lift(x)
    if a.im is not None:
        raise InputError(f"{what} of a complex array: its input must be real (use numpy.fft.fft)")
    a, used = _cut(a, axis, n)
    c, s = dft.matrices(n, n // 2 + 1)
    factor = _scale(norm, n, False, what)
    re = _full_parts(a)[0]
    re_out = _along(re, c[:, :used] * factor, axis)
    im_out = cp.neg(_along(re, s[:, :used] * factor, axis))
    return ComplexArray(re_out, im_out, _shaped(a, axis, n // 2 + 1))


def _real_inverse(x: Any, axis: int, n: int, norm: Any, what: str) -> Any:
    """``irfft`` of length ``n`` along ``axis``: a real array."""
    a, used = _cut(lift(x), axis, n // 2 + 1)
    m_re, m_im = dft.irfft_matrices(n)  # n × (n//2 + 1)
    factor = _scale(norm, n, True, what)
    re, im = _full_parts(a)
    out = cp.add(
        _along(re, m_re[:, :used] * factor, axis), _along(im, m_im[:, :used] * factor, axis)
    )
    return np.zeros(_shaped(a, axis, n)) if out is None else out


def _axes_lengths(shape: tuple[int, ...], s: Any, axes: Any, real_inverse: bool, what: str):
    """NumPy's reading of ``s`` and ``axes`` (numpy.fft's ``_cook_nd_args``): the axes
    (nonnegative) and the transform's length along each."""
    ndim = len(shape)
    if axes is None:
        axes = list(range(ndim)) if s is None else list(range(ndim - len(s), ndim))
    axes = [axes] if isinstance(axes, numbers.Integral) else list(axes)
    for k in axes:
        if not isinstance(k, numbers.Integral) or not -ndim <= k < ndim:
            raise InputError(f"{what}: axis {k!r} is out of bounds for {ndim} axes")
    axes = [int(k) % ndim for k in axes]
    if not axes:
        raise InputError(f"{what}: no axes to transform")
    if s is None:
        lengths = [shape[k] for k in axes]
        if real_inverse:
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        lengths = [s] if isinstance(s, numbers.Integral) else list(s)
        if len(lengths) != len(axes):
            raise InputError(f"{what}: s and axes differ in length")
    for n in lengths:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise InputError(f"{what}: invalid number of data points {n!r}")
        dft.check_length(int(n), what)
    return axes, [int(n) for n in lengths]


def _transform(kind: str, what: str) -> Callable[..., Any]:
    """``numpy.fft``'s transform ``kind`` (``"c"``, ``"ic"``, ``"r"``, ``"ir"``) of one
    axis (``n``, ``axis``) or several (``s``, ``axes``)."""
    inverse, real = kind in ("ic", "ir"), kind in ("r", "ir")

    def run(x: Any, s: Any, axes: Any, norm: Any, out: Any) -> Any:
        if out is not None:
            raise InputError(f"{what}(..., out=...) writes into an array: not supported")
        axes, lengths = _axes_lengths(_shape(x), s, axes, kind == "ir", what)
        if kind == "r":
            value = _real_dft(x, axes[-1], lengths[-1], norm, what)
            for axis, n in zip(axes[:-1], lengths[:-1], strict=True):
                value = _complex_dft(value, axis, n, False, norm, what)
            return value
        value = lift(x)
        last = len(axes) - (1 if kind == "ir" else 0)
        for axis, n in zip(axes[:last], lengths[:last], strict=True):
            value = _complex_dft(value, axis, n, inverse, norm, what)
        if real:
            return _real_inverse(value, axes[-1], lengths[-1], norm, what)
        return value

    return run


def _one_axis(kind: str, name: str) -> Callable[..., Any]:
    run = _transform(kind, f"numpy.fft.{name}")

    def transform(a: Any, n: Any = None, axis: int = -1, norm: Any = None, out: Any = None):
        return run(a, None if n is None else [n], [axis], norm, out)

    return transform


def _axes_default(kind: str, name: str, default: Any) -> Callable[..., Any]:
    run = _transform(kind, f"numpy.fft.{name}")

    def transform(a: Any, s: Any = None, axes: Any = default, norm: Any = None, out: Any = None):
        return run(a, s, axes, norm, out)

    return transform


def _shift(inverse: bool) -> Callable[..., Any]:
    """``np.fft.fftshift`` (``ifftshift``): ``np.roll`` by half of each axis."""

    def shift(x: Any, axes: Any = None) -> Any:
        shape = _shape(x)
        axes = range(len(shape)) if axes is None else axes
        axes = [axes] if isinstance(axes, numbers.Integral) else list(axes)
        for k in axes:
            n = shape[k]
            x = np.roll(x, -(n // 2) if inverse else n // 2, axis=k)
        return x

    return shift


_FFT: dict[Callable[..., Any], Callable[..., Any]] = {
    np.fft.fft: _one_axis("c", "fft"),
    np.fft.ifft: _one_axis("ic", "ifft"),
    np.fft.rfft: _one_axis("r", "rfft"),
    np.fft.irfft: _one_axis("ir", "irfft"),
    np.fft.fft2: _axes_default("c", "fft2", (-2, -1)),
    np.fft.ifft2: _axes_default("ic", "ifft2", (-2, -1)),
    np.fft.rfft2: _axes_default("r", "rfft2", (-2, -1)),
    np.fft.irfft2: _axes_default("ir", "irfft2", (-2, -1)),
    np.fft.fftn: _axes_default("c", "fftn", None),
    np.fft.ifftn: _axes_default("ic", "ifftn", None),
    np.fft.rfftn: _axes_default("r", "rfftn", None),
    np.fft.irfftn: _axes_default("ir", "irfftn", None),
    np.fft.fftshift: _shift(False),
    np.fft.ifftshift: _shift(True),
}

REAL_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    **_FFT,
    np.real: lambda val: val,
    np.imag: lambda val: np.zeros(np.shape(val)),
    np.angle: lambda z, deg=False: np.where(z < 0, 180.0 if deg else math.pi, 0.0),
}
"""``numpy.fft`` and ``np.real``/``np.imag``/``np.angle`` of a real traced array."""

_LINEAR = (np.sum, np.mean, np.reshape, np.ravel, np.transpose, np.swapaxes, np.roll,
           np.flip, np.squeeze, np.expand_dims, np.broadcast_to, np.cumsum, np.diff,
           np.take, np.tile, np.trace, np.diagonal, np.copy, np.pad)  # fmt: skip

FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    **_FFT,
    **{f: _linear(f) for f in _LINEAR},
    **{f: _sequence(f) for f in (np.concatenate, np.stack, np.hstack, np.vstack)},
    np.where: _where,
    np.real: real,
    np.imag: imag,
    np.angle: angle,
    np.dot: lambda a, b, out=None: _bilinear(np.dot, a, b),
    np.tensordot: lambda a, b, axes=2: _bilinear(lambda p, q: np.tensordot(p, q, axes), a, b),
    np.outer: lambda a, b, out=None: _bilinear(np.outer, a, b),
    np.shape: _shape,
    np.ndim: lambda a: len(_shape(a)),
    np.size: lambda a, axis=None: math.prod(_shape(a)) if axis is None else _shape(a)[axis],
}
"""NumPy's functions of complex values (``__array_function__``)."""
