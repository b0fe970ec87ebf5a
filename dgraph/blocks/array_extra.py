"""Array operations beyond jax.lax's core vocabulary: special functions, ``rem``, the
product reduction, ``sort``, and the integer results no derivative flows through
(``argmax``, ``argmin``, ``argsort``).

:mod:`dgraph.blocks.arrays` keeps one table per kind of operation; this module holds
what these operations add to it, each with its exact block:

* the special functions (``lgamma``, ``digamma``, ``polygamma``, ``bessel_i0e``,
  ``bessel_i1e``, the normal quantile ``ndtri`` (SciPy's; JAX's is a composite of
  rational approximations, and ``√2·erfinv(2p − 1)`` loses the far tails' digits), the
  regularized incomplete gammas ``igamma`` and ``igammac``, the regularized incomplete
  beta ``betainc`` (three operands a, b, x, as JAX's ``regularized_incomplete_beta``),
  Hurwitz's ``zeta``, the exponential integrals ``exp1``, ``expi`` and ``expn``, Dawson's
  integral ``dawsn``, SciPy's names: JAX computes them as composites; the Bessel functions
  ``j0``, ``j1``, ``y0``, ``y1``, ``k0``, ``k1``, ``k0e``, ``k1e``
  (:mod:`~dgraph.blocks.bessel`), which JAX lacks, the dilogarithm ``spence`` and the
  complete elliptic integrals ``ellipk`` and ``ellipe`` (:mod:`~dgraph.blocks.special_more`))
  and ``rem`` are elementwise, their
  derivatives sympy formulas as JAX states them (``lax.special``'s JVP rules);
  ``polygamma``'s order ``m``, the incomplete gammas' shape ``a``, the incomplete beta's
  ``a`` and ``b``, ``expn``'s order and ``zeta``'s exponent take none (the readers refuse
  them traced: JAX has no rule for ``zeta``'s, for ``betainc``'s ``a`` and ``b`` nor for
  the gammas' ``a``'s second derivative, SciPy no function for either);
* ``reduce_prod``: a row per output over the reduced axes, its values the product of
  the other entries (prefix times suffix products, so a zero entry is no division);
* ``cumprod`` and ``cumlogsumexp`` along one axis: a block dense and triangular along it
  (:mod:`~dgraph.blocks.cumulative`);
* ``sort`` along one dimension: a :class:`~dgraph.blocks.permutation.Permutation`
  block, one entry per row, its column the stable ``argsort`` at the point (JAX's rule).
  With several operands (``lax.sort`` of keys carrying a value, ``num_keys`` keys) the
  last operand is permuted by the keys' stable lexicographic order (the first key
  first), and only it has a derivative, as in JAX's rule (the keys only choose);
* ``take_dynamic`` and its transpose ``scatter_add_dynamic``: positions computed at run
  time (:mod:`~dgraph.blocks.dynamic_take`, :mod:`~dgraph.blocks.dynamic_scatter`);
* ``searchsorted`` (:mod:`~dgraph.blocks.sorted_search`): positions in a sorted table;
* ``argmax``, ``argmin``, ``argsort`` and the two parts of ``frexp`` (mantissa and
  exponent, which JAX computes on the float's bits) are nested operations with no
  derivative.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from sympy.codegen.cfunctions import log1p

from . import GENERAL, Labelled
from . import cumulative as _cumulative
from .bessel import BESSEL
from .bessel import NOT_IN_JAX as _BESSEL_NOT_IN_JAX
from .dynamic_scatter import DYNAMIC_ADD, add_block, add_forward, add_value
from .dynamic_take import DYNAMIC_TAKE, dynamic_block, dynamic_forward, dynamic_value
from .orders import permuted_by, sort_order_tie, sources
from .permutation import Permutation
from .special_more import MORE, REAL_PARTS

__all__ = [
    "EXTRA_ELEMENTWISE",
    "EXTRA_NONDIFFERENTIABLE",
    "EXTRA_OPERATIONS",
    "NOT_IN_JAX",
    "SCIPY_NAMED",
    "SPECIAL_CALLS",
    "SPECIAL_NUMPY",
    "dawsn",
    "describe_extra",
    "exclusive_product",
    "exp1",
    "expi",
    "extra_block",
    "extra_forward",
    "extra_value",
    "hurwitz_zeta",
    "i0e",
    "i1e",
    "ndtri",
    "permutes",
    "sort_onehot",
    "sort_order",
]

A, B, C = sympy.symbols("a b c", real=True)  # the operands (dgraph.blocks.arrays.OPERANDS)


def _scipy(name: str):
    """scipy.special's ``name``, imported when first called (a complex one's real part:
    :data:`~dgraph.blocks.special_more.REAL_PARTS`)."""
    if name in REAL_PARTS:
        return REAL_PARTS[name]

    def call(*args):
        import scipy.special

        return getattr(scipy.special, name)(*args)

    call.__name__ = name
    return call


class i0e(sympy.Function):  # scipy's name
    """The exponentially scaled modified Bessel function of order 0, exp(-|x|)·I0(x)."""

    nargs = 1


class i1e(sympy.Function):
    """The exponentially scaled modified Bessel function of order 1, exp(-|x|)·I1(x)."""

    nargs = 1


class ndtri(sympy.Function):
    """The standard normal quantile Φ⁻¹(p), SciPy's ``ndtri``: its derivative is
    1/φ(Φ⁻¹(p)) = √(2π)·exp(ndtri(p)²/2)."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return sympy.sqrt(2 * sympy.pi) * sympy.exp(self**2 / 2)


class exp1(sympy.Function):
    """The exponential integral E₁(x) = ∫ₓ^∞ e^(-t)/t dt (x > 0), SciPy's ``exp1``
    (Abramowitz and Stegun 5.1.1): its derivative is -e^(-x)/x."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        return -sympy.exp(-x) / x


class expn(sympy.Function):
    """The exponential integral E_n(x) = ∫₁^∞ e^(-xt)/tⁿ dt of a whole order n, SciPy's
    ``expn`` (Abramowitz and Stegun 5.1.4): ∂/∂x = -E_(n-1)(x) (5.1.26), E_0(x) =
    e^(-x)/x (5.1.24); the order takes no derivative."""

    nargs = 2

    @classmethod
    def eval(cls, n: sympy.Expr, x: sympy.Expr) -> sympy.Expr | None:
        return sympy.exp(-x) / x if n.is_number and n == 0 else None

    def fdiff(self, argindex: int = 2) -> sympy.Expr:
        n, x = self.args
        return sympy.nan if argindex == 1 else -expn(n - 1, x)


class expi(sympy.Function):
    """The exponential integral Ei(x), the principal value of ∫₋∞ˣ e^t/t dt, SciPy's
    ``expi`` (Abramowitz and Stegun 5.1.2): its derivative is e^x/x."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        x = self.args[0]
        return sympy.exp(x) / x


class dawsn(sympy.Function):
    """Dawson's integral F(x) = e^(-x²) ∫₀ˣ e^(t²) dt, SciPy's ``dawsn`` (Abramowitz and
    Stegun 7.1.17): its derivative is 1 - 2x·F(x)."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return 1 - 2 * self.args[0] * self


class hurwitz_zeta(sympy.Function):
    """Hurwitz's zeta function ζ(s, q) = Σₖ (q + k)^(-s), SciPy's ``zeta(s, q)`` (sympy's
    own ``zeta`` turns ζ(s, 1) into Riemann's one-argument form, which JAX's lacks)."""

    nargs = 2


# the functions of one argument under SciPy's names, each one operation of that name
SCIPY_NAMED: tuple[type[sympy.Function], ...] = (*BESSEL, *MORE)
# those JAX has no function for, or none with a derivative (spence's is NaN): their
# Hessian is the element level's (dgraph.codegen.hessian)
NOT_IN_JAX = _BESSEL_NOT_IN_JAX | {f.__name__ for f in MORE}

# sympy functions the array printers write as special-function calls: the name in
# scipy.special and jax.scipy.special (a class, or sympy's own name)
SPECIAL_CALLS: dict[str, str] = {
    "erfinv": "erfinv",
    "loggamma": "gammaln",
    "polygamma": "polygamma",
    "i0e": "i0e",
    "i1e": "i1e",
    "hurwitz_zeta": "zeta",
    "ndtri": "ndtri",
    "exp1": "exp1",
    "expi": "expi",
    "dawsn": "dawsn",
    "expn": "expn",
    **{f.__name__: f.__name__ for f in SCIPY_NAMED},  # j0, …, k1e, spence, ellipk, ellipe
    # complex in SciPy, none in JAX: a helper each module defines (dgraph.codegen.lambertw_code)
    **{name: f"_{name}" for name in REAL_PARTS},
}
# the same, for sympy.lambdify's NumPy evaluation of a derivative
SPECIAL_NUMPY = {"i0e": _scipy("i0e"), "i1e": _scipy("i1e"), "hurwitz_zeta": _scipy("zeta")}
SPECIAL_NUMPY |= {name: _scipy(name) for name in ("ndtri", "exp1", "expi", "dawsn", "expn")}
SPECIAL_NUMPY |= {f.__name__: _scipy(f.__name__) for f in SCIPY_NAMED}

_ratio = A / B
# ∂P(a, x)/∂x = x^(a-1)·e^(-x)/Γ(a), by logarithms as JAX's rule (no overflow of x^(a-1))
_gamma_density = sympy.exp(-B + (A - 1) * sympy.log(B) - sympy.loggamma(A))
# ∂I_x(a, b)/∂x = x^(a-1)·(1-x)^(b-1)/B(a, b) (Abramowitz and Stegun 26.5.1), by
# logarithms as JAX's rule (no overflow of the powers; log1p keeps 1 - x's digits near 0)
_beta_density = sympy.exp(
    (A - 1) * sympy.log(C)
    + (B - 1) * log1p(-C)
    - (sympy.loggamma(A) + sympy.loggamma(B) - sympy.loggamma(A + B))
)
EXTRA_ELEMENTWISE: dict[str, tuple[Any, tuple[sympy.Expr, ...]]] = {
    "lgamma": (_scipy("gammaln"), (sympy.polygamma(0, A),)),
    "digamma": (_scipy("digamma"), (sympy.polygamma(1, A),)),
    # order m (a constant in practice): no derivative, as JAX refuses one
    "polygamma": (_scipy("polygamma"), (sympy.nan, sympy.polygamma(A + 1, B))),
    **{
        f.__name__: (_scipy(f.__name__), (f(A).fdiff(),))
        for f in (ndtri, exp1, expi, dawsn, *SCIPY_NAMED)
    },
    "bessel_i0e": (_scipy("i0e"), (i1e(A) - sympy.sign(A) * i0e(A),)),
    # i1e(x)/x -> 1/2 at 0, where the formula is 0/0 (JAX's rule: 1/2 at |x| <= eps);
    # the division by x is of 1 there (no warning from a printer that computes both pieces)
    "bessel_i1e": (
        _scipy("i1e"),
        (
            sympy.Piecewise(
                (sympy.S.Half, sympy.Eq(A, 0)),
                (
                    i0e(A)
                    - i1e(A)
                    * (sympy.sign(A) + 1 / (A + sympy.Piecewise((1, sympy.Eq(A, 0)), (0, True)))),
                    True,
                ),
            ),
        ),
    ),
    # the regularized incomplete gammas P(a, x) and Q(a, x) = 1 - P(a, x), of a constant a
    "igamma": (_scipy("gammainc"), (sympy.nan, _gamma_density)),
    "igammac": (_scipy("gammaincc"), (sympy.nan, -_gamma_density)),
    # the regularized incomplete beta I_x(a, b) of constant a and b
    "betainc": (_scipy("betainc"), (sympy.nan, sympy.nan, _beta_density)),
    # E_n(x) of a constant whole n
    "expn": (_scipy("expn"), (sympy.nan, expn(A, B).fdiff(2))),
    # ζ(s, q) of a constant s: ∂/∂q = -s·ζ(s + 1, q)
    "zeta": (_scipy("zeta"), (sympy.nan, -A * hurwitz_zeta(A + 1, B))),
    # C's fmod: a - b·trunc(a/b)
    "rem": (np.fmod, (sympy.Integer(1), -sympy.sign(_ratio) * sympy.floor(sympy.Abs(_ratio)))),
}


def _argmax(x: np.ndarray, axes: Sequence[int], *, lowest: bool = False) -> np.ndarray:
    (axis,) = axes
    x = np.asarray(x)
    return np.argmin(x, axis=axis) if lowest else np.argmax(x, axis=axis)


EXTRA_NONDIFFERENTIABLE = {
    "argmax", "argmin", "argsort", "searchsorted", "frexp_mantissa", "frexp_exponent"
}  # fmt: skip
EXTRA_OPERATIONS = frozenset(
    {"reduce_prod", "sort", DYNAMIC_TAKE, DYNAMIC_ADD, *_cumulative.CUMULATIVE}
)


def extra_forward(op, args: list[np.ndarray]) -> np.ndarray | None:
    """The value of one of this module's non-elementwise operations, else None."""
    name, p = op.primitive, op.param
    if name == DYNAMIC_TAKE:  # positions known at run time (dynamic_take)
        return dynamic_forward(op, args)
    if name == DYNAMIC_ADD:  # its transpose (dynamic_scatter)
        return add_forward(op, args)
    if name in ("argmax", "argmin"):
        return _argmax(args[0], p["axes"], lowest=name == "argmin")
    if name == "argsort":
        return sort_order(args, p["dimension"])
    if name == "searchsorted":  # sorted_search: NaN last, as NumPy sorts
        side = "right" if p["right"] else "left"
        return np.searchsorted(np.asarray(args[0], float), np.asarray(args[1], float), side)
    if name in ("frexp_mantissa", "frexp_exponent"):
        return np.frexp(np.asarray(args[0], dtype=float))[name == "frexp_exponent"]
    if name == "reduce_prod":
        return np.prod(args[0], axis=tuple(p["axes"]))
    if name in _cumulative.CUMULATIVE:
        return _cumulative.forward(op, args)
    if name == "sort":
        d = p["dimension"]
        order = sort_order(args[:-1] or args, d)
        return np.take_along_axis(np.asarray(args[-1], dtype=float), order, axis=d)
    return None


def sort_order(keys: Sequence[np.ndarray], d: int) -> np.ndarray:
    """The stable order of each fibre along ``d`` by ``keys``, the first key first (ties
    broken by the next, then by position), as ``lax.sort`` with ``num_keys`` keys."""
    if len(keys) == 1:
        return np.argsort(np.asarray(keys[0]), axis=d, kind="stable")
    return np.lexsort(tuple(np.asarray(k) for k in reversed(keys)), axis=d)


def extra_block(op, k: int, mine: tuple[int, ...]) -> Labelled | Permutation | None:
    """The block of ∂op/∂(operand k) for this module's operations, else None.

    ``reduce_prod``: the input's axes as labels, the kept ones shared with the output,
    values over all of them. ``sort`` along d: a run-time permutation along d."""
    name, out = op.primitive, op.shape
    n = len(mine)
    ins = tuple(((j,), 0) for j in range(n))
    if name == "reduce_prod":
        axes = tuple(op.param["axes"])
        outs = tuple(((j,), 0) for j in range(n) if j not in axes)
        return Labelled(out, mine, outs, ins, mine, tuple(range(n)), GENERAL)
    if name in _cumulative.CUMULATIVE:  # triangular along the axis
        return _cumulative.cumulative_block(op, mine)
    if name == "sort":
        return Permutation(tuple(mine), int(op.param["dimension"]), tie=sort_order_tie(op))
    if name in (DYNAMIC_TAKE, DYNAMIC_ADD) and k == _MOVED[name]:
        tie = permuted_by(op)
        if tie is not None:  # one position each: a permutation, its order known
            shape, axis = tuple(op.shape), int(op.param["axis"])
            return Permutation(shape, axis, tie=tie, inverse=name == DYNAMIC_ADD)
    if name == DYNAMIC_TAKE:
        return dynamic_block(op, mine)
    if name == DYNAMIC_ADD:
        return add_block(op, k, mine)
    return None


_MOVED = {DYNAMIC_TAKE: 0, DYNAMIC_ADD: 2}  # the operand a take or a scatter-add moves


def permutes(op, k: int) -> bool:
    """Whether ∂op/∂(operand k) is a :class:`Permutation` of a take or a scatter-add at
    an ``argsort``'s positions (:func:`~dgraph.blocks.orders.permuted_by`)."""
    name = op.primitive
    return name in _MOVED and k == _MOVED[name] and permuted_by(op) is not None


def exclusive_product(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """∂ prod(x over ``axes``)/∂x: for each entry the product of the others of its
    fibre (prefix products times suffix products; no division, so zeros are exact)."""
    x = np.asarray(x, dtype=float)
    axes = tuple(axes)
    kept = [j for j in range(x.ndim) if j not in axes]
    order = kept + list(axes)
    moved = np.transpose(x, order)
    lead = moved.shape[: len(kept)]
    flat = moved.reshape((*lead, -1))
    ones = np.ones((*lead, 1))
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], -1), -1), -1)
    return np.transpose((before * after).reshape(moved.shape), np.argsort(order))


def sort_onehot(keys: Sequence[np.ndarray], d: int) -> np.ndarray:
    """∂ sort(by keys along d)/∂(the sorted operand) as its
    :class:`~dgraph.blocks.permutation.Permutation`'s values: ones, and each output's
    source position along d (the stable order by the keys)."""
    perm = sort_order(keys, d)
    return np.stack([np.ones(perm.shape), perm.astype(float)])


def extra_value(op, k: int, args: Sequence[np.ndarray]) -> np.ndarray | None:
    """The values of this module's blocks over their value labels, else None."""
    if op.primitive == "reduce_prod":
        return exclusive_product(args[0], op.param["axes"])
    if op.primitive in _cumulative.CUMULATIVE:
        return _cumulative.cumulative_value(op, args)
    if op.primitive == "sort":
        return sort_onehot(args[:-1] or args, op.param["dimension"])
    if permutes(op, k):  # ones, and each output's source along the axis
        source = sources(op, args[1], inverse=op.primitive == DYNAMIC_ADD)
        return np.stack([np.ones(source.shape), source.astype(float)])
    if op.primitive == DYNAMIC_TAKE:
        return dynamic_value(op, args)
    if op.primitive == DYNAMIC_ADD:
        return add_value(op, k, args)
    return None


def describe_extra(op, names: Sequence[str], k: int = 0) -> str | None:
    """The block as the papers write it, for this module's operations (∂/∂ operand k)."""
    if op.primitive == "reduce_prod":
        return f"∏′[axes {', '.join(map(str, op.param['axes']))}]"
    if op.primitive in _cumulative.CUMULATIVE:
        side = "upper" if op.param.get("reverse") else "lower"
        return f"∂{op.primitive}[{side} triangle, axis {op.param['axis']}]"
    if op.primitive == "sort":
        return f"P(argsort({names[0]}, axis {op.param['dimension']}))"
    if permutes(op, k):  # at an argsort's positions: that permutation, or its transpose
        keys, d, _ = permuted_by(op)  # type: ignore[misc]
        said = ", ".join(key if isinstance(key, str) else "…" for key in keys)
        p = f"P(argsort({said}, axis {d}))"
        return p + "ᵀ" if op.primitive == DYNAMIC_ADD else p
    if op.primitive == DYNAMIC_TAKE:
        return f"onehot(positions at run time, axis {op.param['axis']})"
    if op.primitive == DYNAMIC_ADD:
        if k == 0:  # a write that replaces keeps x only where nothing is written
            return "diag(not written at run time)" if op.param.get("replace") else "I"
        return f"onehot(positions at run time, axis {op.param['axis']})ᵀ"
    return None
