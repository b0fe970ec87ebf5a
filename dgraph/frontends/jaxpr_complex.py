"""Complex intermediates of a real JAX function as pairs of real arrays, before the array
reader sees its jaxpr.

A jaxpr that computes in complex numbers (``jnp.fft.rfft``, ``x[:n] + 1j * x[n:]``,
``jnp.real(z * jnp.conj(z))``, and JAX's gradients of such programs) is re-traced
(``jax.make_jaxpr``) by an interpreter that walks its equations
(:func:`~.jaxpr_static_while.evaluate_with`): a real value stays as it is; a complex one is
a :class:`Pair` of real arrays ``(re, im)`` (either ``None`` where it is known to be 0:
``convert_element_type`` of a real array, ``1j * x``); each equation on complex values is
written in real operations on the parts. The reader then reads only real primitives, and
every Jacobian block, value check and code generator applies unchanged.

* ``add``, ``sub``, ``neg``, ``mul``, ``div``, ``integer_pow``, ``square``, ``exp``,
  ``log``, ``pow`` (``exp(b·log a)``), ``sqrt`` (the principal root), ``sin``, ``cos``,
  ``conj``, ``real``, ``imag``, ``complex``, ``abs``, ``eq``,
  ``ne``, and ``convert_element_type`` to and from complex, by the textbook formulas;
  ``abs`` is ``sqrt(s + e) − e``, ``s = re² + im²``, ``e = (s == 0)``: its derivative at 0
  is 0, as JAX's, with no select (a loop's condition may read it); its even power
  (``integer_pow``, ``square``: a power spectrum ``jnp.abs(z)**2``) is ``s`` itself, as
  the NumPy tracer reads it (:mod:`~dgraph.frontends.array_complex`);
* ``dot_general`` (bilinear, four real products), and every move or linear reduction
  (``reduce_sum``, ``broadcast_in_dim``, ``reshape``, ``slice``, ``concatenate``,
  ``transpose``, ``pad``, ``select_n``, gathers, scatters (``.at[i].set``) and
  scatter-adds, ...) applied to each part;
* ``fft`` (``FFT``, ``IFFT``, ``RFFT``, ``IRFFT`` along the last ``len(fft_lengths)``
  axes) as products with the constant DFT matrices ``cos(2πjk/n)`` and ``sin(2πjk/n)``
  of :mod:`~dgraph.frontends.dft` (the one builder, the NumPy tracer's too; dense, n × n
  per axis, at most :data:`FFT_MOST`): a linear map the reader reads as a
  ``dot_general`` (Cooley and Tukey's algorithm is how the values are computed fast; the
  derivative of the DFT is the DFT itself). ``IRFFT`` reads the ``n//2 + 1`` entries of
  a Hermitian spectrum as ``numpy.fft.irfft`` does: ``x_j = (1/n) Σ_k w_k (Re Y_k
  cos(2πjk/n) − Im Y_k sin(2πjk/n))``, ``w_k`` 1 for ``k = 0`` and ``k = n/2``, else 2
  (the imaginary parts of those two ignored);
* ``eig`` of a real matrix: its eigenvalues as one equation of dgraph's primitive
  ``dgraph_eig_values`` (their real and imaginary parts), its eigenvectors refused where
  read; the call ``jax.scipy.linalg.sqrtm`` makes of a real matrix as one ``dgraph_sqrtm``
  (the real root; :mod:`.jaxpr_eig`);
* calls (``pjit``, ``custom_jvp_call``, ...) on complex values are inlined (a custom
  rule's derivative is then the primal's), and ``scan``, ``while`` and ``cond`` that
  carry or compute complex values are run again as ``lax.scan``, ``lax.while_loop`` and
  ``lax.switch`` of the interpreted bodies.

Any other primitive on complex values is one :class:`~dgraph.errors.InputError` line
naming it, as are complex arguments and complex outputs: the Jacobian and the Hessian are
of real functions of real arguments (give real and imaginary parts as arrays of their
own). The values are checked against JAX's own ``jvp`` of the function as written, so a
wrong rule here is reported, never returned.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from ..errors import InputError
from . import complex_parts as cp
from . import dft
from .dft import FFT_MOST
from .jaxpr_eig import eig_parts, is_sqrtm, sqrtm_part
from .jaxpr_numpy import INLINED_CALLS
from .jaxpr_static_while import evaluate_with

__all__ = ["FFT_MOST", "Pair", "complex_pairs", "has_complex", "zero_modulus"]


class Pair(NamedTuple):
    """A complex array as its real and imaginary parts, real arrays of the complex
    array's shape (``None``: known to be 0)."""

    re: Any
    im: Any


def _is_complex(aval: Any) -> bool:
    dtype = getattr(aval, "dtype", None)
    return isinstance(dtype, np.dtype) and dtype.kind == "c"


def _nested(params: dict) -> list[Any]:
    """The jaxprs an equation's parameters hold (loop bodies, branches, called jaxprs)."""
    found = []
    for param in params.values():
        for inner in param if isinstance(param, tuple | list) else (param,):
            inner = getattr(inner, "jaxpr", inner)
            if hasattr(inner, "eqns"):
                found.append(inner)
    return found


def has_complex(jaxpr: Any) -> bool:
    """Whether ``jaxpr`` (its nested jaxprs too) has a complex value anywhere."""
    todo, seen = [jaxpr], set()
    while todo:
        j = todo.pop()
        if id(j) in seen:
            continue
        seen.add(id(j))
        if any(_is_complex(v.aval) for v in [*j.invars, *j.constvars, *j.outvars]):
            return True
        for e in j.eqns:
            if any(_is_complex(v.aval) for v in [*e.invars, *e.outvars]):
                return True
            todo += _nested(e.params)
    return False


def complex_pairs(jax: Any, closed: Any, where: str) -> Any:
    """``closed`` (a closed jaxpr of real arguments) itself where it computes no complex
    value, else the closed jaxpr of the same function with every complex value a pair of
    real ones (module docstring)."""
    jaxpr = closed.jaxpr
    if not has_complex(jaxpr):
        return closed
    for k, v in enumerate(jaxpr.invars):
        if _is_complex(v.aval):
            raise InputError(
                f"{where}: argument {k + 1} is complex: the derivatives are of real"
                " arguments (give its real and imaginary parts as arrays of their own)"
            )
    for k, v in enumerate(jaxpr.outvars):
        if _is_complex(v.aval):
            raise InputError(
                f"{where}: output {k + 1} is complex ({v.aval.dtype}): the derivatives are"
                " of real outputs (return jnp.real(z) and jnp.imag(z) instead)"
            )
    interpreter = _Interpreter(jax, where)

    def run(*args: Any) -> list[Any]:
        return interpreter.run(closed, list(args))

    shapes = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in jaxpr.invars]
    return jax.make_jaxpr(run)(*shapes)


def zero_modulus(jax: Any, f: Callable[..., Any], args: list[Any]) -> bool:
    """Whether ``f`` at ``args`` takes ``|z|`` of a complex ``z`` with an entry exactly 0
    (JAX's own values; ``abs`` in ``f``'s jaxpr and in the calls it makes, not in loop
    bodies): JAX's ``abs`` rule gives ``|z|``'s derivative there as 0, so JAX's Hessian of
    a power spectrum ``|z|²`` at a zero bin is 0 where the true one (``re² + im²``'s, as
    read here) is not, and JAX's ``jvp`` of its gradient is no reference there. Only
    the equations a modulus (or a call that may take one) reads from are evaluated, each
    bound as it is (one XLA compilation per new operation and shape): a value none of
    them reads (``eigvalsh`` of a matrix beside the spectrum) is never computed."""
    found: list[bool] = []

    def modulus(eqn: Any, ins: list[Any]) -> Any:
        found.append(bool(np.any(np.asarray(ins[0]) == 0)))
        return jax.lax.abs(ins[0])

    def call(wanted: set[int]) -> Callable[[Any, list], Any]:
        def run(eqn: Any, ins: list[Any]) -> Any:
            inner = _called(eqn)
            outs = walk(inner, ins[: len(inner.jaxpr.invars)], wanted)
            return outs if eqn.primitive.multiple_results else outs[0]

        return run

    def walk(closed: Any, values: list[Any], wanted: set[int]) -> list[Any]:
        """``closed``'s outputs at positions ``wanted`` (the others None), the moduli on
        the way taken."""
        eqns = closed.jaxpr.eqns
        ruled: set[int] = set()
        for k, e in enumerate(eqns):
            if e.primitive.name == "abs" and _is_complex(e.invars[0].aval):
                ruled.add(k)
            elif e.primitive.name in _CALLS and (inner := _called(e)) is not None:
                ruled.update({k} if has_complex(inner.jaxpr) else set())
        needed = {v for i, v in enumerate(closed.jaxpr.outvars) if i in wanted and _var(v)}
        rules: dict[int, Callable[[Any, list], Any]] = {}
        only: set[int] = set()
        for k in reversed(range(len(eqns))):
            e = eqns[k]
            outs = {i for i, v in enumerate(e.outvars) if v in needed}
            if k not in ruled and not outs:
                continue
            only.add(k)
            needed.update(v for v in e.invars if _var(v))
            if k in ruled:
                rules[k] = modulus if e.primitive.name == "abs" else call(outs)
        return evaluate_with(jax, closed, values, rules, only)

    closed = jax.make_jaxpr(f)(*args)
    if has_complex(closed.jaxpr):
        walk(closed, jax.tree_util.tree_leaves(list(args)), set())
    return any(found)


def _var(v: Any) -> bool:
    """Whether ``v`` (an equation's operand or result) is a variable of the jaxpr, not a
    literal or a dropped result."""
    return type(v).__name__ not in ("Literal", "DropVar")


# -- values of the interpreter (the parts' arithmetic: complex_parts) ---------------------


def _lift(x: Any) -> Any:
    """A value of the interpreter: a complex constant or literal as a :class:`Pair` of
    NumPy parts (a part of zeros ``None``); anything else as it is."""
    from jax.core import Tracer

    if isinstance(x, Pair | Tracer) or not np.iscomplexobj(x):
        return x
    x = np.asarray(x)
    re, im = np.real(x).copy(), np.imag(x).copy()
    return Pair(None if not re.any() else re, None if not im.any() else im)


def _traced(x: Any) -> bool:
    from jax.core import Tracer

    parts = x if isinstance(x, Pair) else (x,)
    return any(isinstance(p, Tracer) for p in parts)


def _joined(x: Any, aval: Any) -> np.ndarray:
    """A constant complex value as one NumPy array of ``aval``'s shape and dtype."""
    x = _pair(x)
    re, im = (np.zeros(aval.shape) if p is None else np.asarray(p) for p in x)
    return np.broadcast_to(re + 1j * im, aval.shape).astype(aval.dtype)


def _pair(x: Any) -> Pair:
    x = _lift(x)
    return x if isinstance(x, Pair) else Pair(x, None)


def _real_dtype(aval: Any) -> Any:
    return np.finfo(aval.dtype).dtype if _is_complex(aval) else aval.dtype


def _part(jnp: Any, part: Any, aval: Any) -> Any:
    """A part as an array of ``aval``'s shape and real dtype (zeros for ``None``)."""
    dtype = _real_dtype(aval)
    if part is None:
        return jnp.zeros(aval.shape, dtype)
    part = jnp.asarray(part, dtype)
    return part if part.shape == tuple(aval.shape) else jnp.broadcast_to(part, aval.shape)


def _fit(jnp: Any, value: Any, aval: Any) -> Any:
    """A result of a rule as the equation's result: a pair's known parts of its shape and
    dtype."""
    if not _is_complex(aval):
        return value
    value = _pair(value)
    return Pair(*(None if p is None else _part(jnp, p, aval) for p in value))


def _full(jnp: Any, value: Any, aval: Any) -> Pair:
    """A complex value with both parts arrays (a loop's carry keeps its structure)."""
    value = _pair(value)
    return Pair(_part(jnp, value.re, aval), _part(jnp, value.im, aval))


def _bilinear(f: Callable[[Any, Any], Any], a: Pair, b: Pair) -> Pair:
    """``f`` (bilinear, over real arrays) of complex ``a`` and ``b``."""

    def g(x: Any, y: Any) -> Any:
        return None if x is None or y is None else f(x, y)

    return Pair(cp.sub(g(a.re, b.re), g(a.im, b.im)), cp.add(g(a.re, b.im), g(a.im, b.re)))


def _times(a: Pair, b: Pair) -> Pair:
    return _bilinear(lambda x, y: x * y, a, b)


def _squared_norm(a: Pair) -> Any:
    return cp.add(cp.mul(a.re, a.re), cp.mul(a.im, a.im))


def _inverse(jnp: Any, a: Pair, aval: Any) -> Pair:
    if a.im is None:
        return Pair(1.0 / _part(jnp, a.re, aval), None)
    norm = _squared_norm(a)
    return Pair(None if a.re is None else a.re / norm, -a.im / norm)


def _divided(jnp: Any, a: Pair, b: Pair, aval: Any) -> Pair:
    if b.im is None:
        d = _part(jnp, b.re, aval)
        return Pair(None if a.re is None else a.re / d, None if a.im is None else a.im / d)
    return _times(a, _inverse(jnp, b, aval))


def _power(jnp: Any, a: Pair, y: int, aval: Any) -> Pair:
    """``a**y`` by repeated squaring (a negative ``y``: of ``1/a``)."""
    if y == 0:
        return Pair(jnp.ones(aval.shape, _real_dtype(aval)), None)
    return cp.power(a if y > 0 else _inverse(jnp, a, aval), abs(y), _times)


def _magnitude(jnp: Any, a: Pair, aval: Any) -> Any:
    """``|a|``, its derivative at 0 taken as 0 (as JAX's ``abs`` of a complex number)."""
    if a.im is None:
        return jnp.abs(_part(jnp, a.re, aval))
    if a.re is None:
        return jnp.abs(a.im)
    return _root(jnp, _squared_norm(a))


def _root(jnp: Any, s: Any) -> Any:
    """``sqrt(s)`` of ``s ≥ 0``, its derivative at 0 taken as 0."""
    zero = (s == 0).astype(s.dtype)  # sqrt(s + 1) - 1 at 0 (its derivative 0), no select
    return jnp.sqrt(s + zero) - zero


# -- the DFT as products with constant matrices -----------------------------------------


def _along(lax: Any, x: Any, m: np.ndarray, axis: int) -> Any:
    """``m`` (rows × n) applied along ``axis`` of ``x`` (of length n there)."""
    if x is None:
        return None
    last = x.ndim - 1
    if axis == last:
        return lax.dot_general(x, m.astype(x.dtype), (((last,), (1,)), ((), ())))
    y = lax.dot_general(m.astype(x.dtype), x, (((1,), (axis,)), ((), ())))
    order = [*range(1, axis + 1), 0, *range(axis + 1, x.ndim)]
    return lax.transpose(y, order)


def _complex_dft(lax: Any, a: Pair, axis: int, n: int, inverse: bool) -> Pair:
    """The DFT (``inverse``: its inverse, with the 1/n) of ``a`` along ``axis``."""
    c, s = dft.matrices(n, n)
    if inverse:
        c, s = c / n, -s / n
    cr, ci = _along(lax, a.re, c, axis), _along(lax, a.im, c, axis)
    sr, si = _along(lax, a.re, s, axis), _along(lax, a.im, s, axis)
    return Pair(cp.add(cr, si), cp.sub(ci, sr))


def _fft(jax: Any, where: str, eqn: Any, ins: list[Any]) -> list[Any]:
    lax = jax.lax
    kind = int(eqn.params["fft_type"])  # FFT 0, IFFT 1, RFFT 2, IRFFT 3
    lengths = tuple(int(n) for n in eqn.params["fft_lengths"])
    dft.check_length(max(lengths, default=0), where)
    x, ndim = ins[0], len(eqn.invars[0].aval.shape)
    axes = list(range(ndim - len(lengths), ndim))
    if kind == 2:  # real -> the first n//2 + 1 of each DFT along the last axis
        n = lengths[-1]
        c, s = dft.matrices(n, n // 2 + 1)
        real = x.re if isinstance(x, Pair) else x
        x = Pair(_along(lax, real, c, ndim - 1), cp.neg(_along(lax, real, s, ndim - 1)))
        axes = axes[:-1]
    last = None
    if kind == 3:
        last, axes = axes[-1], axes[:-1]
    x = _pair(x)
    for axis, n in zip(axes, lengths, strict=False):
        x = _complex_dft(lax, x, axis, n, inverse=kind in (1, 3))
    if last is None:
        return [x]
    a, b = dft.irfft_matrices(lengths[-1])  # a Hermitian spectrum -> n real values
    out = cp.add(_along(lax, x.re, a, last), _along(lax, x.im, b, last))
    return [out if out is not None else jax.numpy.zeros(eqn.outvars[0].aval.shape)]


# -- the interpreter ---------------------------------------------------------------------

_PARTWISE = {
    "reduce_sum",
    "broadcast_in_dim",
    "reshape",
    "squeeze",
    "expand_dims",
    "slice",
    "concatenate",
    "stack",
    "transpose",
    "pad",
    "rev",
    "select_n",
    "dynamic_slice",
    "dynamic_update_slice",
    "gather",
    "scatter",
    "scatter-add",
    "scatter_add",
    "copy",
    "copy_p",
    "cumsum",
    "split",
    "reduce_precision",
    "sharding_constraint",
    "name",
}
"""Primitives that are linear and apply to each part alone (their other operands integer
indices or a boolean predicate)."""

_RESIDUALS = ("empty", "empty2")
"""Uninitialized arrays (a branch's residuals it does not compute): zeros, not evaluated."""

_CALLS = INLINED_CALLS | {"custom_vjp_call_jaxpr"}


class _Interpreter:
    """Evaluates a jaxpr with complex values as :class:`Pair` s, under ``make_jaxpr``."""

    def __init__(self, jax: Any, where: str) -> None:
        self.jax, self.where = jax, where
        self.squares: dict[int, tuple[Any, Callable[[], Any]]] = {}  # id(|z|): (|z|, |z|²)
        self.used: set[Any] = set()  # the variables some equation or output reads

    def run(self, closed: Any, values: list[Any]) -> list[Any]:
        """The outputs of ``closed`` (``.jaxpr``, ``.consts``) at ``values``."""
        self.used.update(v for e in closed.jaxpr.eqns for v in e.invars if _var(v))
        self.used.update(v for v in closed.jaxpr.outvars if _var(v))
        rules = {
            k: self.equation
            for k, e in enumerate(closed.jaxpr.eqns)
            if any(_is_complex(v.aval) for v in [*e.invars, *e.outvars])
            or any(has_complex(j) for j in _nested(e.params))
        }
        magnitudes = {
            id(e.outvars[0])
            for e in closed.jaxpr.eqns
            if e.primitive.name == "abs" and _is_complex(e.invars[0].aval)
        }
        for k, e in enumerate(closed.jaxpr.eqns):  # |z|**2: re² + im² (module docstring)
            if e.primitive.name in ("integer_pow", "square") and id(e.invars[0]) in magnitudes:
                rules[k] = self.squared
        out = evaluate_with(self.jax, closed, values, rules)
        return [_lift(v) for v in out]

    def refuse(self, name: str) -> InputError:
        return InputError(
            f"{self.where}: jaxpr primitive {name!r} on complex numbers is not supported"
            " (complex values are read as pairs of real arrays: arithmetic, abs, exp, log,"
            " sqrt, pow, dot_general, moves, fft, eigvals and sqrtm of real matrices)"
        )

    def equation(self, eqn: Any, ins: list[Any]) -> list[Any]:
        """The results of ``eqn`` at ``ins`` (complex ones as pairs)."""
        jnp = self.jax.numpy
        name = eqn.primitive.name
        ins = [_lift(x) for x in ins]
        if name not in _RESIDUALS and not any(_traced(x) for x in ins):
            return self.constant(eqn, ins)  # on constants: JAX's own complex numbers
        if name in _CALLS and is_sqrtm(eqn) and not isinstance(ins[0], Pair):
            outs = [Pair(sqrtm_part(self.jax, ins[0]), None)]
        elif name in _CALLS:
            inner = _called(eqn)
            if inner is None:
                raise self.refuse(name)
            outs = self.run(inner, ins[: len(inner.jaxpr.invars)])
        elif name in ("scan", "while", "cond"):
            loop = {"scan": self.scan, "while": self.while_loop, "cond": self.cond}[name]
            outs = loop(eqn, ins)
        elif name == "fft":
            outs = _fft(self.jax, self.where, eqn, ins)
        elif name == "eig" and not isinstance(ins[0], Pair):  # of a real matrix
            outs = [Pair(*p) for p in eig_parts(self.jax, eqn, ins[0], self.used, self.where)]
        elif name in _PARTWISE:
            outs = self.partwise(eqn, ins)
        elif name == "abs":
            outs = [self.magnitude(_pair(ins[0]), eqn.invars[0].aval)]
        else:
            rule = _RULES.get(name)
            if rule is None:
                raise self.refuse(name)
            outs = [rule(self.jax, eqn, ins)]
        outs = [_fit(jnp, v, var.aval) for v, var in zip(outs, eqn.outvars, strict=True)]
        return outs if eqn.primitive.multiple_results else outs[0]

    def magnitude(self, a: Pair, aval: Any) -> Any:
        """``|a|`` (:func:`_magnitude`), remembered with ``|a|²`` (:meth:`squared`)."""
        jnp = self.jax.numpy
        if a.re is None or a.im is None:
            part = _part(jnp, a.re if a.im is None else a.im, aval)
            out = jnp.abs(part)
            self.squares[id(out)] = (out, lambda: part * part)
            return out
        s = _squared_norm(a)
        out = _root(jnp, s)
        self.squares[id(out)] = (out, lambda: s)
        return out

    def squared(self, eqn: Any, ins: list[Any]) -> Any:
        """``|z|**k`` of an even ``k > 0`` (``square``: 2) as ``(re² + im²)**(k/2)``:
        smooth where ``z = 0`` (a power spectrum's zero bins), where ``sqrt(s)**2`` has a
        second derivative of 0; else the equation as it is."""
        x, y = ins[0], int(eqn.params.get("y", 2))
        entry = self.squares.get(id(x))
        if entry is None or entry[0] is not x or y <= 0 or y % 2:
            bound = eqn.primitive.get_bind_params(eqn.params)
            sub, params = bound if isinstance(bound, tuple) else ((), bound)
            return eqn.primitive.bind(*sub, *ins, **params)
        s = entry[1]()
        return s if y == 2 else self.jax.lax.integer_pow(s, y // 2)

    def constant(self, eqn: Any, ins: list[Any]) -> Any:
        """``eqn`` evaluated by JAX at constant operands (a complex one rejoined), as
        where no rewrite is made: a constant program is folded whatever it computes."""
        jax = self.jax
        values = [
            _joined(x, v.aval) if _is_complex(v.aval) else x
            for x, v in zip(ins, eqn.invars, strict=True)
        ]
        bound = eqn.primitive.get_bind_params(eqn.params)
        sub, params = bound if isinstance(bound, tuple) else ((), bound)
        with jax.ensure_compile_time_eval():
            out = eqn.primitive.bind(*sub, *values, **params)
        outs = out if eqn.primitive.multiple_results else [out]
        outs = [
            _lift(np.asarray(v)) if _is_complex(var.aval) else v
            for v, var in zip(outs, eqn.outvars, strict=True)
        ]
        return outs if eqn.primitive.multiple_results else outs[0]

    def partwise(self, eqn: Any, ins: list[Any]) -> list[Any]:
        """A linear primitive bound on the real parts, then on the imaginary parts (a
        part known to be 0 on both: 0)."""
        jnp = self.jax.numpy
        bound = eqn.primitive.get_bind_params(eqn.params)
        sub, params = bound if isinstance(bound, tuple) else ((), bound)
        if eqn.primitive.name in ("scatter-add", "scatter_add"):
            params = {**params, "update_jaxpr": None, "update_consts": ()}
        complex_at = [k for k, v in enumerate(eqn.invars) if _is_complex(v.aval)]
        parts = []
        for index in (0, 1):
            chosen = [_pair(ins[k])[index] for k in complex_at]
            if all(p is None for p in chosen):
                parts.append(None)
                continue
            args = list(ins)
            for k, p in zip(complex_at, chosen, strict=True):
                args[k] = _part(jnp, p, eqn.invars[k].aval)
            out = eqn.primitive.bind(*sub, *args, **params)
            parts.append(out if eqn.primitive.multiple_results else [out])
        if not eqn.primitive.multiple_results:
            return [Pair(*(None if p is None else p[0] for p in parts))]
        count = len(eqn.outvars)
        return [Pair(*(None if p is None else p[j] for p in parts)) for j in range(count)]

    def scan(self, eqn: Any, ins: list[Any]) -> list[Any]:
        p = eqn.params
        nc, nk = int(p["num_consts"]), int(p["num_carry"])
        body = p["jaxpr"]
        avals = [v.aval for v in eqn.invars]
        consts, init, xs = ins[:nc], ins[nc : nc + nk], ins[nc + nk :]
        carried = [self.carry(v, a) for v, a in zip(init, avals[nc : nc + nk], strict=True)]
        out_avals = [v.aval for v in body.jaxpr.outvars]

        def step(carry: list[Any], x: list[Any]) -> tuple[list[Any], list[Any]]:
            out = self.run(body, [*consts, *carry, *x])
            new = [self.carry(v, a) for v, a in zip(out[:nk], out_avals[:nk], strict=True)]
            return new, [self.carry(v, a) for v, a in zip(out[nk:], out_avals[nk:], strict=True)]

        carry, ys = self.jax.lax.scan(
            step,
            carried,
            xs,
            length=int(p["length"]),
            reverse=bool(p["reverse"]),
            unroll=p.get("unroll", 1),
        )
        return [*carry, *ys]

    def carry(self, value: Any, aval: Any) -> Any:
        return _full(self.jax.numpy, value, aval) if _is_complex(aval) else value

    def cond(self, eqn: Any, ins: list[Any]) -> list[Any]:
        branches = eqn.params["branches"]
        avals = [v.aval for v in eqn.outvars]

        def branch(closed: Any) -> Callable[..., list[Any]]:
            def run(*ops: Any) -> list[Any]:
                out = self.run(closed, list(ops))
                return [self.carry(v, a) for v, a in zip(out, avals, strict=True)]

            return run

        return self.jax.lax.switch(ins[0], [branch(b) for b in branches], *ins[1:])

    def while_loop(self, eqn: Any, ins: list[Any]) -> list[Any]:
        p = eqn.params
        cn, bn = int(p["cond_nconsts"]), int(p["body_nconsts"])
        cond, body = p["cond_jaxpr"], p["body_jaxpr"]
        avals = [v.aval for v in eqn.invars[cn + bn :]]
        cc, bc, init = ins[:cn], ins[cn : cn + bn], ins[cn + bn :]

        def full(values: list[Any]) -> list[Any]:
            return [self.carry(v, a) for v, a in zip(values, avals, strict=True)]

        def more(carry: list[Any]) -> Any:
            return self.run(cond, [*cc, *carry])[0]

        def again(carry: list[Any]) -> list[Any]:
            return full(self.run(body, [*bc, *carry]))

        return self.jax.lax.while_loop(more, again, full(init))


def _called(eqn: Any) -> Any:
    """The closed jaxpr a call equation runs (a custom rule's primal), or None."""
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        inner = eqn.params.get(key)
        if inner is not None:
            jaxpr = getattr(inner, "jaxpr", inner)
            consts = getattr(inner, "consts", ())
            return SimpleNamespace(jaxpr=jaxpr, consts=list(consts))
    return None


# -- the rules of the other primitives: (jax, eqn, operands) -> the result -----------------


def _aval(eqn: Any) -> Any:
    return eqn.outvars[0].aval


def _convert(jax: Any, eqn: Any, ins: list[Any]) -> Any:
    source, target = eqn.invars[0].aval, _aval(eqn)
    x = ins[0]
    if _is_complex(target):
        x = _pair(x)
        dtype = _real_dtype(target)
        return Pair(*(None if p is None else jax.numpy.asarray(p, dtype) for p in x))
    return _part(jax.numpy, _pair(x).re, target) if _is_complex(source) else x


def _plus(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    a, b = _pair(ins[0]), _pair(ins[1])
    return Pair(cp.add(a.re, b.re), cp.add(a.im, b.im))


def _minus(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    a, b = _pair(ins[0]), _pair(ins[1])
    return Pair(cp.sub(a.re, b.re), cp.sub(a.im, b.im))


def _negative(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    a = _pair(ins[0])
    return Pair(cp.neg(a.re), cp.neg(a.im))


def _multiply(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return _times(_pair(ins[0]), _pair(ins[1]))


def _divide(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return _divided(jax.numpy, _pair(ins[0]), _pair(ins[1]), _aval(eqn))


def _integer_pow(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return _power(jax.numpy, _pair(ins[0]), int(eqn.params["y"]), _aval(eqn))


def _square(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return _power(jax.numpy, _pair(ins[0]), 2, _aval(eqn))


def _dot_general(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    bound = eqn.primitive.get_bind_params(eqn.params)
    _, params = bound if isinstance(bound, tuple) else ((), bound)
    params = {**params, "preferred_element_type": _real_dtype(_aval(eqn))}
    a, b = _pair(ins[0]), _pair(ins[1])
    dtype = _real_dtype(_aval(eqn))

    def product(x: Any, y: Any) -> Any:
        x, y = jax.numpy.asarray(x, dtype), jax.numpy.asarray(y, dtype)
        return eqn.primitive.bind(x, y, **params)

    if not _is_complex(eqn.invars[0].aval):
        a = Pair(ins[0], None)
    if not _is_complex(eqn.invars[1].aval):
        b = Pair(ins[1], None)
    return _bilinear(product, a, b)


def _exponential(jnp: Any, a: Pair, aval: Any) -> Pair:
    e = jnp.exp(_part(jnp, a.re, aval))
    if a.im is None:
        return Pair(e, None)
    return Pair(e * jnp.cos(a.im), e * jnp.sin(a.im))


def _logarithm(jnp: Any, a: Pair, aval: Any) -> Pair:
    re, im = _part(jnp, a.re, aval), _part(jnp, a.im, aval)
    return Pair(0.5 * jnp.log(re * re + im * im), jnp.arctan2(im, re))


def _exp(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return _exponential(jax.numpy, _pair(ins[0]), _aval(eqn))


def _log(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return _logarithm(jax.numpy, _pair(ins[0]), _aval(eqn))


def _pow(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    """``a**b`` as ``exp(b·log a)`` (JAX's own complex ``pow``: the principal branch)."""
    jnp, aval = jax.numpy, _aval(eqn)
    return _exponential(jnp, _times(_pair(ins[1]), _logarithm(jnp, _pair(ins[0]), aval)), aval)


def _safe_sqrt(jnp: Any, u: Any) -> Any:
    """``sqrt(u)`` of ``u ≥ 0``, its derivative at 0 taken as 0 (not 0/0: a part's
    ``max(·, 0)`` is 0 on a half-line, where the square root's NaN partial would make the
    product NaN)."""
    e = (u == 0).astype(u.dtype)
    return jnp.sqrt(u + e) - e


def _sqrt(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    """The principal square root: ``(sqrt((|a| + re)/2), ±sqrt((|a| − re)/2))``, the sign
    of the imaginary part's (+ for a zero one, so ``sqrt(−4) = 2j`` as NumPy's for +0)."""
    jnp, aval = jax.numpy, _aval(eqn)
    a = _pair(ins[0])
    re = _part(jnp, a.re, aval)
    if a.im is None:  # a real number: sqrt(max(re, 0)) + i·sqrt(max(−re, 0))
        return Pair(_safe_sqrt(jnp, jnp.maximum(re, 0.0)), _safe_sqrt(jnp, jnp.maximum(-re, 0.0)))
    r = _magnitude(jnp, a, aval)
    sign = 2.0 * (a.im >= 0).astype(re.dtype) - 1.0
    half = 0.5 * (r + re), 0.5 * jnp.maximum(r - re, 0.0)
    return Pair(_safe_sqrt(jnp, jnp.maximum(half[0], 0.0)), sign * _safe_sqrt(jnp, half[1]))


def _sin(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    jnp = jax.numpy
    a = _pair(ins[0])
    re = _part(jnp, a.re, _aval(eqn))
    if a.im is None:
        return Pair(jnp.sin(re), None)
    return Pair(jnp.sin(re) * jnp.cosh(a.im), jnp.cos(re) * jnp.sinh(a.im))


def _cos(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    jnp = jax.numpy
    a = _pair(ins[0])
    re = _part(jnp, a.re, _aval(eqn))
    if a.im is None:
        return Pair(jnp.cos(re), None)
    return Pair(jnp.cos(re) * jnp.cosh(a.im), -jnp.sin(re) * jnp.sinh(a.im))


def _complex(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return Pair(ins[0], ins[1])


def _real(jax: Any, eqn: Any, ins: list[Any]) -> Any:
    return _part(jax.numpy, _pair(ins[0]).re, _aval(eqn))


def _imag(jax: Any, eqn: Any, ins: list[Any]) -> Any:
    return _part(jax.numpy, _pair(ins[0]).im, _aval(eqn))


def _conj(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    a = _pair(ins[0])
    return Pair(a.re, cp.neg(a.im))


def _abs(jax: Any, eqn: Any, ins: list[Any]) -> Any:
    return _magnitude(jax.numpy, _pair(ins[0]), eqn.invars[0].aval)


def _compare(jax: Any, eqn: Any, ins: list[Any]) -> Any:
    jnp = jax.numpy
    aval = eqn.invars[0].aval
    a, b = _pair(ins[0]), _pair(ins[1])
    same = [_part(jnp, x, aval) == _part(jnp, y, aval) for x, y in zip(a, b, strict=True)]
    if eqn.primitive.name == "eq":
        return same[0] & same[1]
    return ~(same[0] & same[1])


def _empty(jax: Any, eqn: Any, ins: list[Any]) -> Pair:
    return Pair(None, None)  # a residual a branch does not compute (a gradient's cond)


_RULES: dict[str, Callable[[Any, Any, list[Any]], Any]] = {
    "empty2": _empty,
    "empty": _empty,
    "convert_element_type": _convert,
    "add": _plus,
    "add_any": _plus,
    "sub": _minus,
    "neg": _negative,
    "mul": _multiply,
    "div": _divide,
    "integer_pow": _integer_pow,
    "square": _square,
    "dot_general": _dot_general,
    "exp": _exp,
    "log": _log,
    "pow": _pow,
    "sqrt": _sqrt,
    "sin": _sin,
    "cos": _cos,
    "complex": _complex,
    "real": _real,
    "imag": _imag,
    "conj": _conj,
    "abs": _abs,
    "eq": _compare,
    "ne": _compare,
}
