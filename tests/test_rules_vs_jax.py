"""Every derivative rule of the array level against JAX: a generated differential test.

For each array operation the array level accepts (``dgraph.blocks.arrays.PRIMITIVES``, and
the jaxpr reader's own primitives: aliases, renames, ``split``, ``dynamic_slice``,
``gather``) the table below gives cases: one operation, over operand shape classes (0-d,
1-d, n-d, axes of length 1, a scalar constant or a constant array beside an array,
broadcasting) and parameter variants (axes, dimension numbers, exponents, offsets). Each
case is built at the array level (``from_jax(level="array")``, the NumPy array tracer for
the operations only it records, or the graph itself for operand shapes neither builder
gives) and each edge's block, dense, is compared with ``jax.jacfwd`` of the operation at
a point inside its domain; so is the Jacobian the generated NumPy code returns (dense and
sparse), whose block values are printed from the same rules by another path
(:mod:`dgraph.codegen.tensor.leaves`), and so is the Jacobian of the case's element level
(the graph expanded to scalars, issue 53; the operations only the array level has refuse
it in one line). An operation missing from the table fails
:func:`test_every_operation_has_cases`. Operations the array level does not support are
refused in one line (:data:`REFUSED`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jsl = jax.scipy.linalg
jsps = jax.scipy.special
from jax.ad_checkpoint import checkpoint_name  # noqa: E402

from dgraph import from_function, from_jax  # noqa: E402
from dgraph.blocks import to_matrix  # noqa: E402
from dgraph.blocks.array_extra import NOT_IN_JAX  # noqa: E402
from dgraph.blocks.arrays import ELEMENTWISE, PRIMITIVES, ArrayOp, Const  # noqa: E402
from dgraph.codegen.lambertw_code import jax_lambertw  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor.module import tensor_module  # noqa: E402
from dgraph.core.block_values import edge_values, vertex_values  # noqa: E402
from dgraph.core.expand import scalar_edges  # noqa: E402
from dgraph.core.graph import DGraph  # noqa: E402
from dgraph.errors import InputError  # noqa: E402
from dgraph.frontends.jaxpr_arrays import _ALIASES, _RENAMES, REFERENCE_COMPILE  # noqa: E402
from dgraph.frontends.jaxpr_rewrites import TRACED  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests import jax_reference_store as _STORE  # noqa: E402
from tests.convolution_cases import CONVOLUTIONS, STENCIL, conv  # noqa: E402
from tests.peers.harness import compile_reference, densified  # noqa: E402

# the reader's primitives that are no ArrayOp of their own
READER = {*_ALIASES, *_RENAMES, "split", "dynamic_slice", "gather", "tile"}
READER |= {"dynamic_update_slice", "bcoo_dot_general"}
READER |= set(TRACED) | {"custom_linear_solve"}  # read as other operations

SHAPES = {"0-d": (), "1-d": (3,), "n-d": (2, 3), "size-1": (1, 3, 1)}

# operations of the array level only (dgraph.blocks.array_extra): their element level is
# refused in one line
ARRAY_ONLY = {
    "polygamma", "bessel_i0e", "bessel_i1e", "rem", "igamma", "igammac", "zeta", "expn",
    "betainc", "regularized_incomplete_beta",
    "sort", "argsort", "argmax", "argmin",
    "frexp_mantissa", "frexp_exponent",
    "cholesky", "eigh_values", "eigh_vectors", "triangular_solve",
    "linear_solve", "custom_linear_solve", "tridiagonal_solve", "top_k",  # solves; a sort
    "det", "logabsdet", "qr_q", "qr_r", "svd_values", "svd_u", "svd_vt",
    "eig_real", "eig_imag", "sqrtm", "logm",
    "take_dynamic",  # its positions come from argmax/argsort
    "lu", "lu_pivots", "lu_permutation",
    "scatter_add_dynamic",  # its transpose
}  # fmt: skip

# where each elementwise function is defined and smooth (default: |x| in [0.5, 1.5],
# either sign); the magnitude range, and whether negative values are allowed
DOMAIN = {
    "log": (0.5, 1.5, False),
    "sqrt": (0.5, 1.5, False),
    "rsqrt": (0.5, 1.5, False),
    "acosh": (1.5, 2.5, False),
    "asin": (0.1, 0.8, True),
    "acos": (0.1, 0.8, True),
    "atanh": (0.1, 0.8, True),
    "erf_inv": (0.1, 0.8, True),
    "log1p": (0.1, 0.8, True),
    "pow": (0.5, 1.5, False),
    "lgamma": (0.5, 1.5, False),
    "digamma": (0.5, 1.5, False),
}


def point(shape, seed: int, domain: tuple[float, float, bool] = (0.5, 1.5, True)) -> np.ndarray:
    """A point inside ``domain``: no zeros, no ties (distinct magnitudes)."""
    rng = np.random.default_rng(seed)
    low, high, signed = domain
    x = rng.uniform(low, high, shape)
    if signed:
        x = x * rng.choice([-1.0, 1.0], shape)
    return np.asarray(x, dtype=np.float64)


@dataclass(frozen=True)
class Case:
    """One operation: ``f`` (JAX, or NumPy-style with ``xp`` first for the tracer) at
    ``args``; ``builder``: ``jax`` (from_jax), ``numpy`` (the array tracer) or ``graph``
    (``op`` on input vertices of the arguments' shapes)."""

    key: str
    label: str
    f: Callable
    args: tuple[np.ndarray, ...]
    builder: str = "jax"
    op: ArrayOp | None = None

    @property
    def id(self) -> str:
        return f"{self.key}-{self.label}"


CASES: list[Case] = []


def case(key, label, f, *args, builder="jax", op=None) -> None:
    CASES.append(Case(key, label, f, tuple(np.asarray(a, np.float64) for a in args), builder, op))


# -- elementwise: every function of ELEMENTWISE, read from the table ----------------------

# Axes of length 1 ("size-1") take the same elementwise code as "n-d" (operands of one
# shape); the class is kept for one member of each family of cases below, and the
# constant-on-the-left cases of a symmetric function (its rule in the left operand is
# checked by the two-vertex cases, the constant beside it by the right ones) for none.
SIZE_1 = {"sin", "add", "y2", "floor", "lt", "and", "m1"}
SYMMETRIC = {"add", "mul", "max", "min"}


def shapes(member: str) -> dict[str, tuple[int, ...]]:
    """:data:`SHAPES`, less "size-1" for a family's members other than its one in
    :data:`SIZE_1`."""
    return SHAPES if member in SIZE_1 else {k: v for k, v in SHAPES.items() if k != "size-1"}


_LAX = {"copy": None, "convert_element_type": None, "polygamma": None}  # cases of their own
_LAX |= dict.fromkeys(("igamma", "igammac", "zeta"))
# jax.scipy.special's ndtri, exp1, expi and dawsn are composites: the operations on their own
_LAX |= dict.fromkeys(("ndtri", "exp1", "expi", "dawsn", "expn"))
_LAX |= dict.fromkeys(("betainc",))  # three operands: cases of its own
# JAX has no Bessel j0 … k1e: cases of their own below, JAX references by quadrature
_LAX |= dict.fromkeys(("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e"))
_LAX |= dict.fromkeys(("spence", "ellipk", "ellipe"))  # JAX's spence: a NaN derivative
_LAX |= dict.fromkeys(("lambertw",))  # JAX has none: Halley's steps, differentiated by JAX
for _name, (_, _rules) in ELEMENTWISE.items():
    if _name in _LAX:
        continue
    _f = getattr(lax, _name)
    _dom = DOMAIN.get(_name, (0.5, 1.5, True))
    if len(_rules) == 1:
        for _cls, _shape in shapes(_name).items():
            case(_name, _cls, _f, point(_shape, 1, _dom))
        continue
    for _cls, _shape in shapes(_name).items():  # two vertices of the same shape
        case(_name, _cls, _f, point(_shape, 2, _dom), point(_shape, 3, _dom))
    _c = point((), 4, _dom)
    case(_name, "const-scalar-right", lambda x, f=_f, c=_c: f(x, c), point((2, 3), 5, _dom))
    if _name not in SYMMETRIC:
        case(_name, "const-scalar-left", lambda x, f=_f, c=_c: f(c, x), point((2, 3), 6, _dom))
    _c = point((2, 3), 7, _dom)
    case(_name, "const-array-right", lambda x, f=_f, c=_c: f(x, c), point((2, 3), 8, _dom))
    if _name not in SYMMETRIC:
        case(_name, "const-array-left", lambda x, f=_f, c=_c: f(c, x), point((2, 3), 9, _dom))
    case(_name, "0-d-both", lambda x, f=_f: f(x, x), point((), 10, _dom))
    case(_name, "1-d-both", lambda x, f=_f: f(x, x), point((3,), 11, _dom))
    # operand shapes only a graph gives (NumPy's broadcasting inside the operation)
    for _cls, (_sa, _sb) in {
        "broadcast-scalar-left": ((), (2, 3)),
        "broadcast-scalar-right": ((2, 3), ()),
        "broadcast-size-1": ((2, 1), (2, 3)),
        "broadcast-rank": ((3,), (2, 3)),
    }.items():
        _out = np.broadcast_shapes(_sa, _sb)
        case(
            _name,
            _cls,
            lambda x, y, f=_f, s=_out: f(jnp.broadcast_to(x, s), jnp.broadcast_to(y, s)),
            point(_sa, 12, _dom),
            point(_sb, 13, _dom),
            builder="graph",
            op=ArrayOp(_name, ("x", "y"), (), _out),
        )
for _name in ("max", "min"):  # ties: each side gets half, as JAX's rule
    _t, _f = point((3,), 14), getattr(lax, _name)
    case(_name, "tie", lambda x, y, f=_f: f(x, y), _t, _t)
case("pow", "const-exponent-0-d", lambda x: x**2.5, point((), 15, DOMAIN["pow"]))
case("pow", "const-exponent-1-d", lambda x: x**-1.5, point((3,), 16, DOMAIN["pow"]))
case("pow", "const-base", lambda x: 2.0**x, point((2, 3), 17))
case("copy", "input-as-output", lambda x: x, point((2, 3), 18))
case("copy", "0-d", lambda x: x, point((), 19))
case("copy", "constant-output", lambda x: jnp.array([1.0, 2.0]), point((3,), 19))
case("eq", "output-not-reached", lambda x: (jnp.sin(x) == x) - 1.0, point((2, 3), 19))
# the order m: a constant (JAX takes no derivative in it); one function per order, for all
# its shape classes (:func:`_shared_ranks`)
_POLYGAMMA = {_m: lambda x, m=_m: lax.polygamma(jnp.full_like(x, m), x) for _m in (0, 1)}
for _cls in SHAPES:
    for _m in (0, 1) if _cls in shapes("m0") else (1,):
        _shape = SHAPES[_cls]
        case("polygamma", f"m{_m}-{_cls}", _POLYGAMMA[_m], point(_shape, 20, DOMAIN["lgamma"]))
# a constant first operand (the shape a, zeta's exponent): a number or an array. zeta's
# graph is the operation itself (JAX's reader takes jsps.zeta's custom rule, and JAX has no
# rule for lax.zeta), its reference jsps.zeta's
for _name, _f in {"igamma": lax.igamma, "igammac": lax.igammac, "zeta": jsps.zeta}.items():
    _firsts = {f"const-first-{k}": (2.5, SHAPES[k]) for k in shapes(_name)}
    _firsts["const-array-first"] = (point((2, 3), 22, (1.5, 3.0, False)), (2, 3))
    _of_scalar = lambda x, f=_f: f(jnp.broadcast_to(2.5, x.shape), x)  # noqa: E731
    for _cls, (_c, _shape) in _firsts.items():
        _x = point(_shape, 21, (0.5, 1.5, False))
        _op = ArrayOp(_name, (Const.of(np.broadcast_to(_c, _shape) + 0.0), "x"), (), _shape)
        kind = {"builder": "graph", "op": _op} if _name == "zeta" else {}
        _g = (
            _of_scalar
            if np.ndim(_c) == 0
            else lambda x, f=_f, c=_c: f(jnp.broadcast_to(c, x.shape), x)
        )
        case(_name, _cls, _g, _x, **kind)

for _cls, _shape in shapes("ndtri").items():  # SciPy's normal quantile, p in (0, 1)
    case(
        "ndtri",
        _cls,
        jsps.ndtri,
        point(_shape, 23, (0.02, 0.98, False)),
        builder="graph",
        op=ArrayOp("ndtri", ("x",), (), _shape),
    )
# E1 (x > 0), Ei of both signs (the negative: -E1(-x)), Dawson's integral of both signs
_SPECIAL_DOMAINS = {"exp1": (0.1, 3.0, False), "expi": (0.1, 3.0, True), "dawsn": (0.1, 4.0, True)}
for _name, _dom in _SPECIAL_DOMAINS.items():
    for _cls, _shape in shapes(_name).items():
        case(
            _name,
            _cls,
            getattr(jsps, _name),
            point(_shape, 29, _dom),
            builder="graph",
            op=ArrayOp(_name, ("x",), (), _shape),
        )


# the regularized incomplete beta I_x(a, b) (JAX's regularized_incomplete_beta, read as
# betainc) of constant shapes a and b (numbers, or arrays), x in (0, 1)
_firsts = {f"const-shapes-{k}": (2.5, 0.7, SHAPES[k]) for k in shapes("betainc")}
_firsts["const-array-shapes"] = (
    point((2, 3), 30, (0.3, 30.0, False)),
    point((2, 3), 31, (0.3, 3.0, False)),
    (2, 3),
)
_BETAINC = lambda x: jsps.betainc(2.5, 0.7, x)  # noqa: E731 (the number shapes')
for _cls, (_a, _b, _shape) in _firsts.items():
    _key = "regularized_incomplete_beta" if _cls == "const-shapes-1-d" else "betainc"
    case(
        _key,
        _cls,
        _BETAINC if np.ndim(_a) == 0 else lambda x, a=_a, b=_b: jsps.betainc(a, b, x),
        point(_shape, 32, (0.05, 0.95, False)),
    )
# JAX has no Bessel j0 … k1e: references written with jax.numpy by quadrature (A&S 9.1.21,
# 9.1.22, 9.6.24), which JAX differentiates: J_n = (1/π)∫₀^π cos(nθ − x sin θ) dθ and
# the first part of Y_n by Gauss-Legendre (40 nodes), Y_n's tail ∫₀^∞ (e^(nt) + (−1)ⁿ
# e^(−nt)) e^(−x sinh t) dt by Gauss-Legendre on [0, 4] and [4, 8] (60 nodes each) and
# K_n = ∫₀^∞ e^(−x cosh t) cosh(nt) dt by the trapezoidal rule (step 0.02 to 8): within
# 1e-13 of SciPy's on [0.5, 1.5]
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(40)
_THETA, _W = np.pi / 2 * (_NODES + 1), np.pi / 2 * _WEIGHTS
_T = np.arange(401) * 0.02
_TW = np.where(_T == 0, 0.01, 0.02)
_HALF, _HALF_W = np.polynomial.legendre.leggauss(60)
_S = np.concatenate([2 * (_HALF + 1), 2 * (_HALF + 1) + 4])
_SW = np.concatenate([2 * _HALF_W, 2 * _HALF_W])


def _bessel_jax(name: str):
    n = int(name[1])
    x_ = lambda x: x[..., None]  # noqa: E731
    theta = _THETA  # NumPy's: a constant of the call's precision (x64 set there)
    if name[0] == "j":
        return lambda x: jnp.sum(jnp.cos(n * theta - x_(x) * np.sin(theta)) * _W, -1) / np.pi
    if name[0] == "y":
        tail = np.exp(n * _S) + (-1) ** n * np.exp(-n * _S)
        return lambda x: (
            (
                jnp.sum(jnp.sin(x_(x) * np.sin(theta) - n * theta) * _W, -1)
                - jnp.sum(tail * jnp.exp(-x_(x) * np.sinh(_S)) * _SW, -1)
            )
            / np.pi
        )
    scaled = name.endswith("e")  # e^x K: e^(-x (cosh t - 1))
    shift = np.cosh(_T) - 1.0 if scaled else np.cosh(_T)
    return lambda x: jnp.sum(np.cosh(n * _T) * jnp.exp(-x_(x) * shift) * _TW, -1)


for _name in ("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e"):
    _f = _bessel_jax(_name)
    for _cls, _shape in shapes(_name).items():
        case(
            _name,
            _cls,
            _f,
            point(_shape, 30, (0.5, 1.5, False)),
            builder="graph",
            op=ArrayOp(_name, ("x",), (), _shape),
        )


# spence(x) = ∫₁ˣ log t/(1 − t) dt = −∫₀¹ log(1 + (x − 1)s)/s ds and K(m), E(m) =
# ∫₀^(π/2) (1 − m sin²θ)^(∓1/2) dθ by Gauss-Legendre (40 nodes): JAX differentiates them
_PHI, _PHI_W = np.pi / 4 * (_NODES + 1), np.pi / 4 * _WEIGHTS
_UNIT, _UNIT_W = (_NODES + 1) / 2, _WEIGHTS / 2
_MORE_JAX = {
    "spence": lambda x: -jnp.sum(jnp.log1p((x[..., None] - 1) * _UNIT) / _UNIT * _UNIT_W, -1),
    "ellipk": lambda m: jnp.sum(_PHI_W / jnp.sqrt(1 - m[..., None] * np.sin(_PHI) ** 2), -1),
    "ellipe": lambda m: jnp.sum(_PHI_W * jnp.sqrt(1 - m[..., None] * np.sin(_PHI) ** 2), -1),
}
for _name, _dom in {"spence": (0.2, 2.5, False), "ellipk": (0.1, 0.8, False)}.items():
    for _key in (_name, "ellipe") if _name == "ellipk" else (_name,):
        for _cls, _shape in shapes(_key).items():
            case(
                _key,
                _cls,
                _MORE_JAX[_key],
                point(_shape, 31, _dom),
                builder="graph",
                op=ArrayOp(_key, ("x",), (), _shape),
            )


# W by the generated JAX code's own Halley steps (dgraph.codegen.lambertw_code), which JAX
# differentiates through: at the root each step's derivative in w is 0, so the steps'
# derivative in x is W's (not the rule e^(−W)/(1 + W) dgraph states)
_LAMBERTW = jax_lambertw(jnp)
for _cls, _shape in shapes("lambertw").items():
    case(
        "lambertw",
        _cls,
        _LAMBERTW,
        point(_shape, 32, (-0.3, 2.5, False)),
        builder="graph",
        op=ArrayOp("lambertw", ("x",), (), _shape),
    )


def _expn_jax(n, x):
    """E_2 and E_3 by 5.1.14 from E_1 = -Ei(-x), which JAX differentiates to every order
    (its own expn's rule does not trace a second time)."""
    e2 = jnp.exp(-x) + x * jsps.expi(-x)
    return jnp.where(n == 2, e2, (jnp.exp(-x) - x * e2) / 2)


# E_n(x) of a constant whole order: a number, or an array of orders 2 and 3
_firsts = {f"const-first-{k}": (2.0, SHAPES[k]) for k in shapes("expn")}
_firsts["const-array-first"] = (point((2, 3), 24, (0.0, 1.0, False)).round() + 2.0, (2, 3))
_EXPN_2 = lambda x: _expn_jax(2.0, x)  # noqa: E731 (the scalar order's, every class)
for _cls, (_c, _shape) in _firsts.items():
    _op = ArrayOp("expn", (Const.of(np.broadcast_to(_c, _shape) + 0.0), "x"), (), _shape)
    case(
        "expn",
        _cls,
        _EXPN_2 if np.ndim(_c) == 0 else lambda x, c=_c: _expn_jax(c, x),
        point(_shape, 25, (0.2, 3.0, False)),
        builder="graph",
        op=_op,
    )

# -- integer powers ------------------------------------------------------------------------

for _y in (0, 1, 2, 3, -1, -2):
    _f = lambda x, y=_y: lax.integer_pow(x, y)  # noqa: E731 (one per exponent)
    for _cls, _shape in shapes(f"y{_y}").items():
        case("integer_pow", f"y{_y}-{_cls}", _f, point(_shape, 20))
case("integer_pow", "y2-const-inside", lambda x: jnp.sin(x) * 0 + x**2, point((), 21))

# -- functions no derivative flows through, read as operands -------------------------------

_ROUNDING = {
    "stop_gradient": lax.stop_gradient,
    "floor": lax.floor,
    "ceil": lax.ceil,
    "round": lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),  # the op
    "round_away": lax.round,  # lax.round's default: sign(x)·r, read of ops
    "sign": lax.sign,
}
for _name, _f in _ROUNDING.items():
    _g = lambda x, f=_f: x * f(3 * x)  # noqa: E731 (one function for the classes)
    for _cls, _shape in shapes(_name).items():
        case(_name, _cls, _g, point(_shape, 22))
_COMPARE = {n: getattr(lax, n) for n in ("eq", "ne", "lt", "le", "gt", "ge")}
for _name, _f in _COMPARE.items():
    _g = lambda x, y, f=_f: lax.select_n(f(x, jnp.zeros_like(x)), x, y)  # noqa: E731
    for _cls, _shape in shapes(_name).items():
        case(
            _name,
            _cls,
            _g,
            point(_shape, 23),
            point(_shape, 24),
        )
    case(
        _name,
        "equal-values",
        lambda x, y, f=_f: lax.select_n(f(x, x), x, y),
        *[point((3,), 25)] * 2,
    )
_IS_FINITE = lambda x, y: lax.select_n(lax.is_finite(jnp.log(x - 1.0)), y, x * y)  # noqa: E731
for _cls, _shape in SHAPES.items():  # a predicate: selects, never differentiated
    case(
        "is_finite",
        _cls,
        _IS_FINITE,
        point(_shape, 28),
        point(_shape, 29),
    )
_LOGIC = {
    "and": lambda x: lax.bitwise_and(x > 0, x < 1),
    "or": lambda x: lax.bitwise_or(x > 1, x < 0),
    "not": lambda x: lax.bitwise_not(x > 0),
}
for _name, _p in _LOGIC.items():
    _g = lambda x, y, p=_p: lax.select_n(p(x), x, y)  # noqa: E731
    for _cls, _shape in shapes(_name).items():
        case(
            _name,
            _cls,
            _g,
            point(_shape, 26),
            point(_shape, 27),
        )
_CONVERT = lambda x: x * lax.convert_element_type(x > 0, jnp.float64)  # noqa: E731
for _cls, _shape in SHAPES.items():
    case(
        "convert_element_type",
        _cls,
        _CONVERT,
        point(_shape, 28),
    )

# -- select_n ------------------------------------------------------------------------------

_SELECT, _SELECT_SAME = lambda x, y: lax.select_n(x > 0, x, y), lambda x: lax.select_n(x > 0, x, -x)
for _cls, _shape in SHAPES.items():
    case("select_n", _cls, _SELECT, point(_shape, 29), point(_shape, 30))
    case("select_n", f"{_cls}-same", _SELECT_SAME, point(_shape, 31))
case("select_n", "const-case", lambda x: jnp.where(x > 0, x, 0.5), point((2, 3), 32))
case(
    "select_n",
    "three-cases",
    lambda x, y: lax.select_n(lax.convert_element_type(x > 0, jnp.int32) + (x > 1), x, y, 2 * y),
    point((4,), 33),
    point((4,), 34),
)
case(
    "select_n",
    "const-predicate",
    lambda x, y: lax.select_n(jnp.array([True, False, True]), x, y),
    point((3,), 35),
    point((3,), 36),
)

# -- dot_general ---------------------------------------------------------------------------

_DOTS = {
    "0-d": ((), (), (((), ()), ((), ()))),
    "vec-vec": ((3,), (3,), (((0,), (0,)), ((), ()))),
    "outer": ((3,), (2,), (((), ()), ((), ()))),
    "mat-vec": ((2, 3), (3,), (((1,), (0,)), ((), ()))),
    "vec-mat": ((2,), (2, 3), (((0,), (0,)), ((), ()))),
    "mat-mat": ((2, 3), (3, 4), (((1,), (0,)), ((), ()))),
    "mat-mat-T": ((3, 2), (4, 3), (((0,), (1,)), ((), ()))),
    "batch": ((2, 3, 4), (2, 4, 1), (((2,), (1,)), ((0,), (0,)))),
    "batch-last": ((3, 2), (3, 2), (((0,), (0,)), ((1,), (1,)))),
    "two-contracted": ((2, 3, 4), (3, 4), (((1, 2), (0, 1)), ((), ()))),
    "size-1": ((1, 3), (3, 1), (((1,), (0,)), ((), ()))),
}
for _cls, (_sa, _sb, _dn) in _DOTS.items():
    _f = lambda x, y, dn=_dn: lax.dot_general(x, y, dn)  # noqa: E731
    case("dot_general", _cls, _f, point(_sa, 40), point(_sb, 41))
    _ca, _cb = point(_sa, 44), point(_sb, 42)
    case(
        "dot_general",
        f"{_cls}-const-rhs",
        lambda x, f=_f, c=_cb: f(x, c),
        point(_sa, 43),
    )
    case(
        "dot_general",
        f"{_cls}-const-lhs",
        lambda y, f=_f, c=_ca: f(c, y),
        point(_sb, 45),
    )
case(
    "dot_general",
    "same-operand",
    lambda x: lax.dot_general(x, x, (((0,), (0,)), ((), ()))),
    point((3,), 46),
)

# -- reductions ----------------------------------------------------------------------------

_REDUCE = {
    "reduce_sum": jnp.sum,
    "reduce_max": jnp.max,
    "reduce_min": jnp.min,
    "reduce_prod": jnp.prod,
}
_AXES = {"0-d": ((), ()), "1-d": ((3,), (0,)), "n-d-0": ((2, 3), (0,)), "n-d-1": ((2, 3), (1,))}
_AXES |= {"n-d-all": ((2, 3), (0, 1)), "size-1": ((1, 3, 1), (0, 2)), "3-d-mid": ((2, 3, 2), (1,))}
for _name, _f in _REDUCE.items():
    for _cls, (_shape, _axes) in _AXES.items():
        case(_name, _cls, lambda x, f=_f, a=_axes: f(x, axis=a), point(_shape, 50))
for _name in ("reduce_max", "reduce_min"):  # ties: JAX shares the derivative equally
    _f = _REDUCE[_name]
    case(_name, "tie", lambda x, f=_f: f(x, axis=0), np.array([0.7, 1.2, 0.7, 1.2, -1.2, -0.7]))
    case(
        _name, "tie-n-d", lambda x, f=_f: f(x, axis=1), np.array([[0.7, 0.7, 0.2], [1.0, 0.5, 1.0]])
    )
case(
    "reduce_prod",
    "a-zero",
    lambda x: jnp.prod(x, axis=1),
    np.array([[0.7, 0.0, 1.2], [0.0, 0.5, 0.0]]),
)
for _cls, (_shape, _axis) in {"1-d": ((4,), 0), "n-d-0": ((3, 2), 0), "n-d-1": ((2, 3), 1)}.items():
    case("sort", _cls, lambda x, a=_axis: jnp.sort(x, axis=a), point(_shape, 84))
    case(  # positions only: a nested integer operation, no derivative
        "argsort", _cls, lambda x, a=_axis: x * jnp.argsort(x, axis=a), point(_shape, 85)
    )
    for _name, _f in (("argmax", jnp.argmax), ("argmin", jnp.argmin)):
        case(_name, _cls, lambda x, a=_axis, f=_f: jnp.sum(x, a) * f(x, a), point(_shape, 86))
for _cls, _shape in SHAPES.items():  # jnp.frexp: JAX works on the bits, its rule 2**-e
    case("frexp_mantissa", _cls, lambda x: jnp.frexp(x)[0], point(_shape, 83))
    case("frexp_exponent", _cls, lambda x: x * jnp.frexp(x)[1], point(_shape, 83))
case("frexp_mantissa", "ldexp", lambda x: jnp.ldexp(x, 3), point((2, 3), 83))
case(  # jax.random.permutation: a sort by a constant key, one constant permutation
    "take",
    "constant-sort-key",
    lambda x: jax.random.permutation(jax.random.key(0), x),
    point((5,), 82),
)
case("sort", "ties", lambda x: jnp.sort(x), np.array([0.7, -0.2, 0.7, 0.1]))
case("sort", "3-d", lambda x: jnp.sort(x, axis=1), point((2, 3, 2), 87))
# several operands (lax.sort with num_keys): the last permuted by the keys, ties stable
_k, _k2 = np.array([0.7, -0.2, 0.7, 0.1, 0.7]), np.array([1.0, 0.0, 0.0, 0.0, 0.5])
case("sort", "carrying-1-d", lambda x, v: lax.sort((x, v), num_keys=1)[1], _k, point((5,), 88))
_by_two = lambda x, y: lax.sort((x, y), num_keys=2)  # noqa: E731
case("sort", "two-keys", lambda x, y: _by_two(x, y)[0] * _by_two(x, y)[1], _k, _k2)
case(
    "sort",
    "carrying-n-d-axis-0",
    lambda x, v: lax.sort((x, v), dimension=0, num_keys=1)[1],
    np.array([[0.3, 0.5], [0.3, -0.1], [0.2, 0.4]]),
    point((3, 2), 89),
)
case("argsort", "two-keys", lambda x, y: x * jnp.lexsort((y, x)), _k, _k2)
for _cls, (_shape, _reps) in {
    "1-d": ((3,), (2,)),
    "n-d": ((2, 3), (2, 1)),
    "size-1": ((1, 3), (3, 2)),
}.items():
    case("tile", _cls, lambda x, r=_reps: jnp.tile(x, r), point(_shape, 88))
for _cls, (_shape, _out, _dims) in {
    "n-d": ((2, 3), (6,), (1, 0)),
    "3-d": ((2, 3, 2), (3, 4), (1, 0, 2)),
}.items():
    case(
        "reshape",
        f"dimensions-{_cls}",
        lambda x, o=_out, d=_dims: lax.reshape(x, o, d),
        point(_shape, 89),
    )
for _cls, (_shape, _axis, _rev) in {
    "1-d": ((4,), 0, False),
    "1-d-reverse": ((4,), 0, True),
    "n-d-0": ((3, 2), 0, False),
    "n-d-1-reverse": ((2, 3), 1, True),
    "size-1": ((1, 3), 0, False),
}.items():
    case("cumsum", _cls, lambda x, a=_axis, r=_rev: lax.cumsum(x, a, reverse=r), point(_shape, 51))

# -- moves ---------------------------------------------------------------------------------

for _cls, (_shape, _out, _dims) in {
    "0-d": ((), (3,), ()),
    "0-d-to-n-d": ((), (2, 3), ()),
    "1-d-rows": ((3,), (2, 3), (1,)),
    "1-d-cols": ((3,), (3, 2), (0,)),
    "size-1": ((1, 3), (4, 3), (0, 1)),
    "add-axes": ((2, 3), (2, 4, 3), (0, 2)),
}.items():
    case(
        "broadcast_in_dim",
        _cls,
        lambda x, o=_out, d=_dims: lax.broadcast_in_dim(x, o, d),
        point(_shape, 52),
    )
for _cls, (_shape, _out) in {
    "split": ((6,), (2, 3)),
    "merge": ((2, 3), (6,)),
    "no-common-split": ((2, 3), (3, 2)),
    "0-d": ((), (1, 1)),
    "size-1": ((1, 3, 1), (3,)),
    "3-d": ((2, 3, 2), (6, 2)),
}.items():
    case("reshape", _cls, lambda x, o=_out: lax.reshape(x, o), point(_shape, 53))
for _cls, (_shape, _dims) in {
    "1-to-0-d": ((1,), (0,)),
    "size-1": ((1, 3, 1), (0, 2)),
    "middle": ((2, 1, 3), (1,)),
}.items():
    case("squeeze", _cls, lambda x, d=_dims: lax.squeeze(x, d), point(_shape, 54))
for _cls, (_shape, _axis) in {"0-d": ((), 0), "1-d": ((3,), 1), "n-d": ((2, 3), 0)}.items():
    _out = np.expand_dims(np.zeros(_shape), _axis).shape  # only dgraph/1 files record it
    case(
        "expand_dims",
        _cls,
        lambda x, a=_axis: jnp.expand_dims(x, a),
        point(_shape, 55),
        builder="graph",
        op=ArrayOp("expand_dims", ("x",), (("dimensions", (_axis,)),), _out),
    )
for _cls, (_shape, _perm) in {
    "n-d": ((2, 3), (1, 0)),
    "3-d": ((2, 3, 4), (2, 0, 1)),
    "size-1": ((1, 3, 1), (2, 1, 0)),
}.items():
    case("transpose", _cls, lambda x, p=_perm: lax.transpose(x, p), point(_shape, 56))
for _cls, (_shape, _start, _limit, _strides) in {
    "1-d": ((5,), (1,), (4,), None),
    "n-d": ((3, 4), (1, 0), (3, 3), None),
    "strided": ((6,), (0,), (6,), (2,)),
    "strided-n-d": ((4, 5), (1, 0), (4, 5), (2, 3)),
    "size-1": ((1, 4), (0, 2), (1, 3), None),
}.items():
    case(
        "slice",
        _cls,
        lambda x, s=_start, e=_limit, k=_strides: lax.slice(x, s, e, k),
        point(_shape, 57),
    )
for _cls, (_shape, _config, _fill) in {
    "1-d": ((3,), ((1, 2, 0),), 0.0),
    "n-d": ((2, 3), ((0, 1, 0), (2, 0, 0)), 0.0),
    "fill": ((3,), ((2, 1, 0),), 1.5),
    "size-1": ((1, 2), ((1, 1, 0), (0, 0, 0)), 0.0),
    "interior": ((3,), ((0, 0, 1),), 0.0),
    "negative": ((4,), ((-1, 2, 0),), 1.5),
    "n-d-mixed": ((3, 2), ((1, -2, 2), (-1, 1, 1)), 0.5),
}.items():
    case("pad", _cls, lambda x, c=_config, v=_fill: lax.pad(x, v, c), point(_shape, 58))
for _cls, (_sx, _sw, _kw) in CONVOLUTIONS.items():  # tests/convolution_cases.py
    case("conv_general_dilated", _cls, conv(**_kw), point(_sx, 59), point(_sw, 60))
case("conv_general_dilated", "const-kernel", lambda x: jnp.convolve(x, STENCIL), point((6,), 61))
for _cls, (_sa, _sb, _dim) in {
    "1-d": ((3,), (2,), 0),
    "n-d-0": ((2, 3), (1, 3), 0),
    "n-d-1": ((2, 3), (2, 2), 1),
}.items():
    case(
        "concatenate",
        _cls,
        lambda x, y, d=_dim: lax.concatenate([x, y], d),
        point(_sa, 59),
        point(_sb, 60),
    )
    _c = point(_sb, 61)
    case(
        "concatenate",
        f"{_cls}-const",
        lambda x, d=_dim, c=_c: lax.concatenate([c, x, c], d),
        point(_sa, 62),
    )
case(  # a part with an empty axis: a constant (no entries), folded
    "concatenate", "empty-part", lambda x: lax.concatenate([x, x[:0] ** 2], 0), point((3,), 63)
)
case("add", "sum-over-an-empty-axis", lambda x: x + jnp.sum(jnp.sin(x[:0])), point((3,), 63))
case("concatenate", "same-operand", lambda x: lax.concatenate([x, x], 0), point((3,), 63))
for _cls, (_shape, _dims) in {
    "1-d": ((4,), (0,)),
    "n-d": ((2, 3), (1,)),
    "n-d-all": ((2, 3), (0, 1)),
}.items():
    case("rev", _cls, lambda x, d=_dims: lax.rev(x, d), point(_shape, 64))
for _cls, (_shape, _axis) in {"0-d": ((), 0), "1-d": ((3,), 1), "n-d": ((2, 3), 2)}.items():
    _out = np.stack([np.zeros(_shape)] * 2, axis=_axis).shape  # only dgraph/1 files record it
    case(
        "stack",
        _cls,
        lambda x, y, a=_axis: jnp.stack([x, y], axis=a),
        point(_shape, 65),
        point(_shape, 66),
        builder="graph",
        op=ArrayOp("stack", ("x", "y"), (("axis", _axis),), _out),
    )
for _cls, (_shape, _idx, _axis) in {
    "1-d": ((4,), [2, 0, 2], 0),
    "n-d-0": ((3, 2), [1, 1], 0),
    "n-d-1": ((2, 3), [2, 0, 1, 0], 1),
}.items():
    case(
        "take",
        _cls,
        lambda x, i=_idx, a=_axis: jnp.take(x, jnp.array(i), axis=a),
        point(_shape, 67),
    )
    case(
        "gather",
        _cls,
        lambda x, i=_idx, a=_axis: jnp.take(x, jnp.array(i), axis=a),
        point(_shape, 68),
    )
case("gather", "negative-index", lambda x: x[jnp.array([-1, 0])], point((3,), 69))

# -- the same rules reached through the NumPy array tracer --------------------------------

case("integer_pow", "numpy-0-d", lambda xp, x: x**3, point((), 90), builder="numpy")
case("integer_pow", "numpy-neg", lambda xp, x: x**-2, point((3,), 91), builder="numpy")
case(
    "pow",
    "numpy-const-exponent",
    lambda xp, x: x**2.5,
    point((), 92, DOMAIN["pow"]),
    builder="numpy",
)
case(
    "select_n",
    "numpy-0-d",
    lambda xp, x, y: xp.where(x > 0, x, y),
    point((), 93),
    point((), 94),
    builder="numpy",
)
case(
    "select_n",
    "numpy-const",
    lambda xp, x: xp.where(x > 0, x, 0.0),
    point((2, 3), 95),
    builder="numpy",
)
case("take", "numpy", lambda xp, x: x[xp.array([2, 0, 2])], point((4,), 96), builder="numpy")
case("cumsum", "numpy", lambda xp, x: xp.cumsum(x, axis=1), point((2, 3), 97), builder="numpy")
case(
    "gather_flat",
    "numpy-two-axes",
    lambda xp, x: x[xp.array([0, 1, 1]), xp.array([2, 0, 2])],
    point((2, 3), 105),
    builder="numpy",
)
case(
    "gather_flat",
    "numpy-mask-and-integer",
    lambda xp, x: x[xp.array([True, False, True]), 1],
    point((3, 2), 106),
    builder="numpy",
)
case("mul", "numpy-0-d", lambda xp, x, y: x * y, point((), 98), point((), 99), builder="numpy")
case("max", "numpy-same", lambda xp, x: xp.maximum(x, x), point((3,), 100), builder="numpy")
case("sqrt", "numpy-0-d", lambda xp, x: xp.sqrt(x), point((), 101, DOMAIN["sqrt"]), builder="numpy")
case(
    "dot_general",
    "numpy",
    lambda xp, x, w: x @ w,
    point((2, 3), 102),
    point((3,), 103),
    builder="numpy",
)
case("sort", "numpy", lambda xp, x: xp.sort(x, axis=0), point((3, 2), 105), builder="numpy")
case("argsort", "numpy", lambda xp, x: x * xp.argsort(x), point((3,), 106), builder="numpy")
case("argmax", "numpy", lambda xp, x: x[0] * xp.argmax(x), point((3,), 107), builder="numpy")
case(
    "argmin", "numpy", lambda xp, x: x.sum(1) * xp.argmin(x, 1), point((2, 3), 107), builder="numpy"
)
case("tile", "numpy", lambda xp, x: xp.tile(x, (2, 1)), point((3,), 108), builder="numpy")
# positions in a sorted table (a binary search per query), at knots that are entries of x
for _side in ("left", "right"):
    case(
        "searchsorted",
        f"numpy-{_side}",
        lambda xp, x, s=_side: x * xp.searchsorted(xp.asarray([-1.0, 0.5, 0.5, 1.0]), x, side=s),
        np.array([[-1.2, 0.5, 0.7], [1.0, 1.4, -0.3]]),
        builder="numpy",
    )
case("rem", "numpy", lambda xp, x: xp.fmod(x, 0.3), point((3,), 109), builder="numpy")
case(
    "is_finite",
    "numpy",
    lambda xp, x: xp.where(xp.isfinite(xp.log(x - 1.0)), x, 2 * x),
    point((3,), 110),
    builder="numpy",
)
case("reduce_max", "numpy", lambda xp, x: xp.max(x, axis=0), point((3, 2), 104), builder="numpy")

# -- what the reader passes through or rewrites ---------------------------------------------

case("copy_p", "n-d", lambda x: jnp.sin(lax.copy_p.bind(x)), point((2, 3), 70))
case("name", "checkpoint_name", lambda x: jnp.sin(checkpoint_name(x, "a")),
     point((2, 3), 71))  # fmt: skip
case("device_put", "n-d", lambda x: jnp.sin(jax.device_put(x * x)), point((2, 3), 72))
case("psum", "vmap-axis-name",
     lambda x: jax.vmap(lambda r: jnp.sin(r) * lax.psum(r, "b"), axis_name="b")(x),
     point((2, 3), 73))  # fmt: skip
case("psum", "vmap-two-operands",
     lambda x: jax.vmap(lambda r: sum(lax.psum((r, r * r), "b")), axis_name="b", in_axes=1)(x),
     point((2, 3), 74))  # fmt: skip
case(
    "reduce_precision",
    "n-d",
    lambda x: jnp.sin(lax.reduce_precision(x, exponent_bits=11, mantissa_bits=52)),
    point((2, 3), 72),
)
case(
    "optimization_barrier", "n-d", lambda x: jnp.sin(lax.optimization_barrier(x)), point((2, 3), 73)
)
case("add_any", "n-d", lambda x: jax.grad(lambda z: jnp.sum(jnp.sin(z) * z))(x), point((3,), 74))
case(
    "split",
    "1-d",
    lambda x: lax.split(x, (2, 1, 3))[1] * lax.split(x, (2, 1, 3))[2][0],
    point((6,), 75),
)
case("split", "n-d", lambda x: lax.split(x, (1, 2), axis=1)[1], point((2, 3), 76))
for _cls, (_shape, _start, _sizes) in {
    "1-d": ((5,), (1,), (3,)),
    "n-d": ((3, 4), (1, 2), (2, 2)),
    "clamped": ((4,), (3,), (2,)),
}.items():
    case(
        "dynamic_slice",
        _cls,
        lambda x, s=_start, n=_sizes: lax.dynamic_slice(x, s, n),
        point(_shape, 77),
    )

# -- scatters and gathers at constant indices (traced operand and updates) -----------------

_I = jnp.array([0, 2, 0])  # a repeated index
_U = jnp.array([2, 0])  # unique
for _cls, _f, _sx, _su in [
    ("1-d-repeated", lambda x, u: x.at[_I].set(u), (4,), (3,)),
    ("n-d-points", lambda x, u: x.at[jnp.array([0, 1]), jnp.array([2, 0])].set(u), (2, 3), (2,)),
    ("0-d-operand", lambda x, u: x.at[()].set(u), (), ()),
    ("negative-and-dropped", lambda x, u: x.at[jnp.array([-1, 7])].set(u), (4,), (2,)),
    ("all-overwritten", lambda x, u: x.at[jnp.array([1, 0])].set(u), (2,), (2,)),
]:
    case("scatter", _cls, _f, point(_sx, 110), point(_su, 111))
case("scatter", "const-operand", lambda u: jnp.zeros(5).at[_U].set(u), point((2,), 112))
for _name, _m in {"scatter_add": "add", "scatter_min": "min", "scatter_max": "max"}.items():
    case(
        _name,
        "1-d-repeated",
        lambda x, u, m=_m: getattr(x.at[_I], m)(u),
        point((4,), 114),
        point((3,), 115),
    )
_x, _u = point((3, 2), 114), point((1, 2), 115)
case("scatter_add", "n-d-rows", lambda x, u: x.at[_U[:1]].add(u), _x, _u)
case("scatter_min", "n-d-rows", lambda x, u: x.at[_U[:1]].min(u), _x, _u)
case("scatter_max", "0-d-operand", lambda x, u: x.at[()].max(u), point((), 114), point((), 115))
_c = point((4,), 116)  # made a JAX array where traced (x64 there: no float32 operand)
case("scatter_max", "const-operand", lambda u: jnp.asarray(_c).at[_I].max(u), point((3,), 117))
case(
    "scatter_add",
    "dropped",
    lambda x, u: x.at[jnp.array([1, 9])].add(u),
    point((3,), 114),
    point((2,), 115),
)
case("scatter_add", "const-update", lambda x: x.at[_I].add(0.9), point((4,), 118))
for _name, _m in {"scatter_min": "min", "scatter_max": "max"}.items():  # ties share
    _x = np.array([0.7, 1.2, -0.4])
    _u = np.array([0.7, 0.7, 1.2, 1.2, -0.4])
    _f = lambda x, u, m=_m: getattr(x.at[jnp.array([0, 0, 1, 1, 2])], m)(u)  # noqa: E731
    case(_name, "ties", _f, _x, _u)
for _cls, _f, _sx, _su in [
    ("1-d", lambda x, u: x.at[_U].mul(u, unique_indices=True), (4,), (2,)),
    ("n-d", lambda x, u: x.at[1].mul(u, unique_indices=True), (2, 3), (3,)),
]:
    case("scatter_mul", _cls, _f, point(_sx, 119), point(_su, 120))
case(
    "scatter_mul",
    "repeated-const-update",
    lambda x: x.at[_I].mul(jnp.array([2.0, 3.0, 0.5])),
    point((4,), 121),
)
case(
    "dynamic_update_slice",
    "n-d-clamped",
    lambda x, u: lax.dynamic_update_slice(x, u, (1, 3)),
    point((3, 4), 122),
    point((2, 2), 123),
)
case(
    "dynamic_update_slice",
    "const-operand",
    lambda u: lax.dynamic_update_slice(jnp.ones((3, 3)), u, (1, 1)),
    point((2, 2), 124),
)
for _cls, _f, _sx in [
    ("two-axes", lambda x: x[jnp.array([0, 1, 1]), jnp.array([2, 0, 2])], (2, 3)),
    ("points-and-slice", lambda x: x[jnp.array([[1], [0]]), jnp.array([0, 2])], (2, 3)),
    ("vmap-k-1", lambda x: jax.vmap(lambda r: r[jnp.array([[1], [0]])])(x), (2, 3)),
]:
    case("gather_flat", _cls, _f, point(_sx, 125))


def _bcoo(rows, cols):
    """``BCOO.fromdense``'s matrix, built from its entries: fromdense compiles some sixty
    programs, in every process that collects this file."""
    from jax.experimental import sparse

    m = np.where(point((rows, cols), 126) > 0, point((rows, cols), 127), 0.0)
    at = np.argwhere(m != 0).astype(np.int32)  # row-major, as fromdense orders them
    return sparse.BCOO((m[m != 0], at), shape=m.shape, indices_sorted=True, unique_indices=True)


_M = _bcoo(3, 4)
case("bcoo_dot_general", "mat-vec", lambda x: _M @ x, point((4,), 128))
case("bcoo_dot_general", "vec-mat", lambda x: x @ _M, point((3,), 129))

# -- linear algebra by its implicit rules ----------------------------------------------------


def _spd(n: int, seed: int) -> np.ndarray:
    b = point((n, n), seed)
    return b @ b.T + n * np.eye(n)


case("cholesky", "n-d", lambda a: jnp.linalg.cholesky(a), _spd(3, 131))
case("cholesky", "size-1", lambda a: jnp.linalg.cholesky(a), _spd(1, 131))
case("eigh_values", "n-d", lambda a: jnp.linalg.eigh(a)[0], _spd(3, 132))
case("eigh_vectors", "n-d", lambda a: jnp.linalg.eigh(a)[1], _spd(3, 133))
for _cls, _f, _sb in [
    ("left-lower", lambda a, b: jsl.solve_triangular(a, b, lower=True), (3, 2)),
    ("left-upper-transposed-1-d", lambda a, b: jsl.solve_triangular(a, b, trans=1), (3,)),
    (
        "unit-diagonal",
        lambda a, b: jsl.solve_triangular(a, b, lower=True, unit_diagonal=True),
        (3, 2),
    ),
    ("right", lambda a, b: lax.linalg.triangular_solve(a, b, left_side=False, lower=True), (2, 3)),
]:
    case("triangular_solve", _cls, _f, _spd(3, 134), point(_sb, 135))

# -- read as the JAX functions JAX differentiates them by (frontends/jaxpr_rewrites.py) --------

_TIES = np.array([[0.7, 0.7, 0.2, 0.9], [1.0, 0.5, 1.0, -0.3]])
for _name in ("cumprod", "cummax", "cummin", "cumlogsumexp"):
    _f = getattr(lax, _name)
    if _name == "cumprod":
        case(_name, "1-d", lambda x, f=_f: f(x, 0), point((4,), 140))
    case(_name, "n-d-1-reverse", lambda x, f=_f: f(x, 1, reverse=True), point((2, 3), 141))
    case(_name, "ties", lambda x, f=_f: f(x, 1), _TIES)
# one operation each (dgraph.blocks.cumulative): along either axis, reversed, a zero entry
for _name in ("cumprod", "cumlogsumexp"):
    _f = getattr(lax, _name)
    case(_name, "1-d-reverse", lambda x, f=_f: f(x, 0, reverse=True), point((4,), 170))
    case(_name, "n-d-0", lambda x, f=_f: f(x, 0), point((3, 2), 171))
    case(_name, "size-1", lambda x, f=_f: f(x, 1), point((1, 3, 1), 172))
    case(_name, "n-d-2-reverse", lambda x, f=_f: f(x, 2, reverse=True), point((2, 2, 3), 173))
case(
    "cumprod",
    "zeros",
    lambda x: lax.cumprod(x, 1),
    np.array([[0.5, 0.0, 1.2, 0.0], [0.0, 0.7, -1.1, 0.9]]),
)
case(
    "cumprod",
    "zero-reverse",
    lambda x: lax.cumprod(x, 0, reverse=True),
    np.array([1.3, 0.0, 0.8, -0.6]),
)
_LARGE = np.array([[-1.0, 800.0, 3.0, 900.0], [0.5, -700.0, 710.0, 2.0]])  # exp overflows
case("cumlogsumexp", "large", lambda x: lax.cumlogsumexp(x, 1), _LARGE)
# σ'(x) = 0 where exp(-x) overflows (x < -709): exp(-x)/(1 + exp(-x))**2 is inf/inf
case("logistic", "large", lax.logistic, np.array([[-720.0, 800.0, 3.0], [0.5, -1000.0, -700.0]]))
case("clamp", "0-d", lambda x: lax.clamp(-0.5, x, 0.5), point((), 142))
case("clamp", "n-d", lambda x: lax.clamp(-0.5, x, 0.5), point((2, 3), 143))
case("clamp", "at-the-bounds", lambda x: lax.clamp(-0.5, x, 0.7), np.array([-0.5, 0.7, 0.1]))
case("clamp", "array-bounds", lambda lo, x: lax.clamp(lo, x, 1.0), *[point((3,), 144)] * 2)
_WINDOWS = {  # (shape, window, strides, padding)
    "1-d": ((6,), (3,), (1,), "VALID"),
    "1-d-strided": ((6,), (2,), (2,), "VALID"),
    "2-d-same": ((3, 4), (2, 2), (1, 2), "SAME"),
}
for _name, _op, _init in (
    ("sum", lax.add, 0.0),
    ("max", lax.max, -np.inf),
    ("min", lax.min, np.inf),
):
    for _cls, (_shape, _w, _st, _pad) in _WINDOWS.items():
        case(
            f"reduce_window_{_name}",
            _cls,
            lambda x, o=_op, i=_init, w=_w, st=_st, p=_pad: lax.reduce_window(x, i, o, w, st, p),
            point(_shape, 145),
        )
    case(  # ties: the first extreme entry of a window takes the derivative, as JAX
        f"reduce_window_{_name}",
        "ties",
        lambda x, o=_op, i=_init: lax.reduce_window(x, i, o, (2, 2), (1, 1), "VALID"),
        _TIES,
    )
for _name, _f in (("reduce_or", jnp.any), ("reduce_and", jnp.all)):
    case(_name, "n-d", lambda x, f=_f: jnp.where(f(x > 0, axis=1), 2.0, 3.0) * x[:, 0], _TIES)
case("top_k", "1-d-ties", lambda x: lax.top_k(x, 3)[0], np.array([0.7, 1.2, 0.7, 0.1, 1.2]))
case("top_k", "n-d", lambda x: lax.top_k(x, 2)[0], point((2, 3), 146))
# its indices a stable descending argsort's first k (the first of equal values first)
case(
    "top_k",
    "indices-ties",
    lambda x: x[lax.top_k(x, 3)[1]] * x[:3],
    np.array([0.7, 1.2, 0.7, 0.1, 1.2]),
)
case(
    "top_k",
    "indices-n-d",
    lambda x: jnp.take_along_axis(x, lax.top_k(x, 2)[1], 1),
    point((2, 3), 147),
)
# totalOrder comparisons, as searchsorted's method="compare_all" writes them (left: lt_to,
# right: le_to); the knots 0.5 and 1.0 are entries of x
_KNOTS = np.array([0.2, 0.5, 0.5, 1.0, 1.3])
for _name, _side in (("lt_to", "left"), ("le_to", "right")):
    case(
        _name,
        "1-d-knots",
        lambda x, s=_side: (
            x**2 * jnp.searchsorted(jnp.array([0.0, 0.5, 1.0]), x, side=s, method="compare_all")
        ),
        _KNOTS,
    )
# max and min pooling's transpose, in a gradient: its Jacobian is pooling's Hessian
for _op, _init in ((lax.max, -jnp.inf), (lax.min, jnp.inf)):
    case(
        "select_and_scatter_add",
        f"{_op.__name__}-same-ties",
        jax.grad(
            lambda x, o=_op, i=_init: jnp.sum(lax.reduce_window(x, i, o, (2,), (1,), "SAME") ** 3)
        ),
        np.array([0.7, 0.7, 0.2, 0.9, 0.9]),
    )


def _larger_pair(a, b):
    """``lax.reduce``'s body over (value, carried) pairs: the pair of the larger value."""
    take = a[0] >= b[0]
    return jnp.where(take, a[0], b[0]), jnp.where(take, a[1], b[1])


# lax.reduce with a body of its own (a pair of operands): JAX's tree reduction
_carried = lambda x: lax.reduce((x, jnp.sin(x)), (-jnp.inf, 0.0), _larger_pair, (0,))[1]  # noqa: E731
case("reduce", "pair-n-d", _carried, point((3, 2), 161))

# positions computed from the inputs: one entry per output at a run-time column
case("take_dynamic", "0-d", lambda x: x * x[jnp.argmax(x)], point((4,), 151))
case("take_dynamic", "1-d-argsort", lambda x: x[jnp.argsort(x)][:3], point((4,), 152))
_along = lambda x: jnp.take_along_axis(x, jnp.argsort(x), axis=0)  # noqa: E731
case("take_dynamic", "take-along-fill", _along, point((4,), 153))
_out = lambda x: x.at[jnp.argsort(x) + 2].get(mode="fill", fill_value=0.0)  # noqa: E731
case("take_dynamic", "fill-out-of-range", _out, point((4,), 154))
_rows = lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)  # noqa: E731
case("take_dynamic", "take-along-n-d", _rows, point((2, 3), 158))
_cols = lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=0)[:2] + 1, axis=0)  # noqa: E731
case("take_dynamic", "take-along-n-d-fill", _cols, point((3, 2), 159))
case("take_dynamic", "n-d-row", lambda x: x[jnp.argmax(x[:, 0])], point((3, 2), 155))
_pairs = lambda x: x[jnp.argsort(x), jnp.array([1, 0])]  # noqa: E731  (the flat take)
case("take_dynamic", "index-pairs", _pairs, point((2, 2), 160))
case("take_dynamic", "n-d-column", lambda x: x[:, jnp.argmin(x[0])] ** 2, point((2, 3), 156))
_win = lambda x: lax.dynamic_slice(x, (jnp.argmax(x[:, 0]), jnp.argmin(x[0])), (2, 2))  # noqa: E731
case("take_dynamic", "window-2-d", _win, point((3, 3), 157))
case(
    "take_dynamic",
    "window-clamped",
    lambda x: lax.dynamic_slice(x, (jnp.argmax(x) + 2,), (2,)),
    np.array([0.1, 0.2, 0.9]),
)
# its transpose (a Hessian through such a take reads it): identity for the base, the
# take's one-hot for the updates
case("scatter_add_dynamic", "0-d", lambda x: x.at[jnp.argmax(x)].add(x[0] * x[1]), point((4,), 160))
_scattered = lambda x: jnp.zeros(4).at[jnp.argsort(x)].add(x**2)  # noqa: E731
case("scatter_add_dynamic", "1-d-argsort", _scattered, point((4,), 161))
_dropped = lambda x: jnp.sin(x).at[jnp.argsort(x)[:3] + 2].add(x[:3] ** 2, mode="drop")  # noqa: E731
case("scatter_add_dynamic", "1-d-drop", _dropped, point((4,), 162))
_up = lambda y: jnp.sum(jnp.take_along_axis(y, jnp.argsort(y, axis=1), axis=1) ** 3)  # noqa: E731
case("scatter_add_dynamic", "n-d-along", jax.grad(_up), point((2, 3), 163))
_spread = lambda x: jnp.zeros((2, 3)).at[:, jnp.argsort(x[0])].add(x**2)  # noqa: E731
case("scatter_add_dynamic", "n-d-column", _spread, point((2, 3), 164))
_Z3 = np.zeros((3, 3))
_put = lambda x: lax.dynamic_update_slice(_Z3, x[:2, :2] ** 2, (jnp.argmax(x[:, 0]), 1))  # noqa: E731
case("scatter_add_dynamic", "window-2-d", _put, point((3, 3), 165))
_set = lambda x: jnp.zeros(4).at[jnp.argsort(x)].set(x**2, unique_indices=True)  # noqa: E731
case("scatter_add_dynamic", "set-into-zeros", _set, point((4,), 166))
# a replacing scatter (param replace): x.at[i].set(u) into x at positions that repeat
# (argsort // 2: two per position; JAX keeps the last), a 0/1 mask for x
_replace = lambda x: jnp.sin(x).at[jnp.argsort(x) // 2].set(x**2)  # noqa: E731
case("scatter_add_dynamic", "set-repeated-into-x", _replace, point((4,), 167))
_row = lambda x: x.at[jnp.argmax(x[:, 0])].set(x[0] ** 2)  # noqa: E731
case("scatter_add_dynamic", "set-n-d-row-into-x", _row, point((3, 2), 168))
_into = lambda x: lax.dynamic_update_slice(x, x[:2] ** 2, (jnp.argmax(x),))  # noqa: E731
case("scatter_add_dynamic", "window-into-x", _into, point((4,), 169))
_SQUARE = _spd(3, 147)
case("linear_solve", "vector", lambda a, b: jnp.linalg.solve(a, b), _SQUARE, point((3,), 148))
case("linear_solve", "matrix", lambda a, b: jnp.linalg.solve(a, b), _SQUARE, point((3, 2), 149))
case("linear_solve", "inv", lambda a: jnp.linalg.inv(a), _SQUARE)
case("linear_solve", "const-matrix", lambda b: jnp.linalg.solve(_SQUARE, b), point((3,), 150))
case("custom_linear_solve", "via-solve", lambda a: jnp.linalg.solve(a, a[0]), _SQUARE)
case(  # JAX's gradient of inv solves x·A = b: rows by Aᵀ
    "custom_linear_solve",
    "x-times-a",
    lambda a: jax.grad(lambda m: jnp.sum(jnp.linalg.inv(m) * _SQUARE))(a),
    _SQUARE,
)
_STACK = np.stack([_SQUARE, _spd(3, 161)])  # vmap'd: one solve per matrix
case("custom_linear_solve", "batched-inv", jax.vmap(jnp.linalg.inv), _STACK)
case("custom_linear_solve", "batched-vector", jax.vmap(jnp.linalg.solve), _STACK, _STACK[:, 0])
# tridiagonal_solve (read as the solve of its dense matrix): every band and the
# right-hand sides traced, one system and a batch of two
_tridiagonal = lambda dl, d, du, b: lax.linalg.tridiagonal_solve(  # noqa: E731
    dl.at[..., 0].set(0.0), d + 3.0, du.at[..., -1].set(0.0), b
)
case("tridiagonal_solve", "one", _tridiagonal, *(point((4,), 170 + k) for k in range(3)),
     point((4, 2), 173))  # fmt: skip
case("tridiagonal_solve", "batch", _tridiagonal, *(point((2, 4), 174 + k) for k in range(3)),
     point((2, 4, 1), 177))  # fmt: skip
# determinants (n >= 4 for det, n >= 2 for slogdet: JAX writes smaller ones out) and
# decompositions: square, tall, wide and 1x1 matrices at points with distinct singular values
_MATRICES = {"n-d": point((3, 3), 151), "tall": point((4, 3), 152), "wide": point((3, 4), 153)}
_MATRICES["size-1"] = point((1, 1), 154)
case("det", "n-d", lambda a: jnp.linalg.det(a), point((4, 4), 155))
case("det", "slogdet-sign", lambda a: jnp.linalg.slogdet(a)[0] * a[0], _MATRICES["n-d"])
case("logabsdet", "n-d", lambda a: jnp.linalg.slogdet(a)[1], _MATRICES["n-d"])
case("logabsdet", "negative-det", lambda a: jnp.linalg.slogdet(a)[1], -_spd(3, 156))
for _cls in ("n-d", "tall", "size-1"):
    case("qr_q", _cls, lambda a: jnp.linalg.qr(a)[0], _MATRICES[_cls])
    case("qr_r", _cls, lambda a: jnp.linalg.qr(a)[1], _MATRICES[_cls])
for _cls, _a in _MATRICES.items():
    case("svd_values", _cls, lambda a: jnp.linalg.svd(a, compute_uv=False), _a)
for _cls in ("n-d", "tall", "wide"):
    for _k, _name in ((0, "svd_u"), (2, "svd_vt")):
        _f = lambda a, k=_k: jnp.linalg.svd(a, full_matrices=False)[k]  # noqa: E731
        case(_name, _cls, _f, _MATRICES[_cls])
# eigenvalues of a nonsymmetric matrix (a complex pair: a rotation added) and the
# principal square root (no JAX rule: its reference is Denman and Beavers' iteration,
# X ← (X + Y⁻¹)/2, Y ← (Y + X⁻¹)/2 from (A, I), differentiated by JAX)
_TURN = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
case("eig_real", "n-d", lambda a: jnp.linalg.eigvals(a).real, point((3, 3), 161) + _TURN)
case("eig_imag", "n-d", lambda a: jnp.linalg.eigvals(a).imag, point((3, 3), 161) + _TURN)
case("eig_real", "size-1", lambda a: jnp.linalg.eigvals(a).real, point((1, 1), 162))
case("eig_imag", "batch", lambda a: jnp.linalg.eigvals(a).imag, point((2, 3, 3), 163) + _TURN)


def _denman_beavers(a, steps: int = 12):
    x, y = a, jnp.eye(a.shape[0])
    for _ in range(steps):
        x, y = (x + jnp.linalg.inv(y)) / 2, (y + jnp.linalg.inv(x)) / 2
    return x


_POSITIVE = _spd(3, 164) / 3 + 0.5 * _TURN  # eigenvalues of positive real part, a pair
case("sqrtm", "n-d", _denman_beavers, _POSITIVE, builder="graph",
     op=ArrayOp("sqrtm", ("x",), (), (3, 3)))  # fmt: skip
case("sqrtm", "size-1", jnp.sqrt, point((1, 1), 165, (0.5, 1.5, False)), builder="graph",
     op=ArrayOp("sqrtm", ("x",), (), (1, 1)))  # fmt: skip


def _logm(a, terms: int = 8):
    """Gregory's series ``log A = 2·Σ z^(2m+1)/(2m+1)``, ``z = (A - I)(A + I)⁻¹`` (JAX has
    no ``logm``; z's spectral radius is 0.1 at this case: the terms left are below 1e-17)."""
    eye = jnp.eye(a.shape[0])
    z = (a - eye) @ jnp.linalg.inv(a + eye)
    z2, s = z @ z, eye / (2 * terms + 1)
    for m in range(terms - 1, -1, -1):
        s = eye / (2 * m + 1) + z2 @ s
    return 2 * z @ s


_NEAR_ONE = np.eye(3) + 0.1 * point((3, 3), 166)  # nonsymmetric, eigenvalues near 1
case("logm", "n-d", _logm, _NEAR_ONE, builder="graph", op=ArrayOp("logm", ("x",), (), (3, 3)))
# lu of a square matrix: one operation (its packed factors; its pivots and permutation
# integers read as data): 3x3, 1x1, a first pivot that swaps rows, 8x8
for _cls in ("n-d", "size-1"):
    case("lu", _cls, lambda a: lax.linalg.lu(a)[0], _MATRICES[_cls])
_SWAPS = point((4, 4), 157) * np.array([[1e-3], [1.0], [1.0], [1.0]])  # rows move
case("lu", "pivoting", lambda a: lax.linalg.lu(a)[0], _SWAPS)
case("lu", "8x8", lambda a: lax.linalg.lu(a)[0], point((8, 8), 159))
case(  # the permutation as data: the rows of a in the factors' order, times the factors
    "lu_permutation",
    "as-data",
    lambda a: a[lax.linalg.lu(a)[2]] * lax.linalg.lu(a)[0],
    _SWAPS,
)
case(  # the pivots as data: rows of a at the pivots, times the factors
    "lu_pivots", "as-data", lambda a: a[lax.linalg.lu(a)[1]] * lax.linalg.lu(a)[0], _SWAPS
)
# lu of a non-square matrix or a batch: JAX's unblocked elimination, unrolled (row swaps
# at argmax positions, take_dynamic)
for _cls in ("tall", "wide"):
    case("take_dynamic", f"lu-{_cls}", lambda a: lax.linalg.lu(a)[0], _MATRICES[_cls])
case("take_dynamic", "lu-batched", lambda a: lax.linalg.lu(a)[0], point((2, 3, 3), 158))

# -- refused in one line -------------------------------------------------------------------

REFUSED: dict[str, tuple[Callable, tuple[int, ...]]] = {
    "empty output": (lambda x: jnp.sin(x[:0]), (3,)),
    "polygamma order": (lambda x: lax.polygamma(x, x + 1), (3,)),
    "incomplete gamma shape": (lambda x: lax.igammac(x * x + 1, x + 1), (3,)),
    "incomplete beta shape": (lambda x: jsps.betainc(2.0, x * x + 1, 0.3), (3,)),
    "zeta exponent": (lambda x: jsps.zeta(x * x + 2, x + 1), (3,)),
    "scatter applying a function at a traced index": (  # JAX has no derivative of it
        lambda x: x.at[jnp.argmax(x)].apply(jnp.sin),
        (3,),
    ),
    "scatter-add at traced index pairs": (
        lambda x: x.at[jnp.argsort(x[0]), jnp.array([1, 0])].add(x[0]),
        (2, 2),
    ),
    "scatter at traced index pairs": (
        lambda x: x.at[jnp.argsort(x[0]), jnp.array([1, 0])].set(x[0]),
        (2, 2),
    ),
    "scatter-add at a traced index": (lambda x: x.at[jnp.argmin(x)].add(x[:1]), (3,)),
    "scatter-mul of traced updates at repeated indices": (
        lambda x: x.at[jnp.array([0, 0])].mul(x[:2]),
        (3,),
    ),
    "gather that fills": (
        lambda x: x.at[jnp.array([0, 1]), jnp.array([1, 5])].get(mode="fill", fill_value=0.0),
        (2, 2),
    ),
    "qr of a wide matrix": (lambda x: jnp.linalg.qr(x)[1], (2, 3)),
    "full svd of a non-square matrix": (lambda x: jnp.linalg.svd(x)[0], (2, 3)),
    "reduce_window with negative padding": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (2,), (1,), ((-1, 0),)),
        (4,),
    ),
}


# -- the checks ----------------------------------------------------------------------------


def _layouts(cases: list[Case]) -> dict[str, tuple[bool, ...]]:
    """The generated code's layouts (``sparse``) each case's test checks: both for an
    operation of one case; else dense and sparse in turn along the operation's cases, the
    first layout alternating from one operation to the next. A block's values are printed
    by one rule whatever the layout (:mod:`dgraph.codegen.tensor.leaves`); the layout is
    how they are assembled, by the block's pattern and shape. So every operation is
    checked in both layouts, every shape class in both (all pairs of operation and layout,
    and of shape class and layout), at half the code generated and loaded."""
    by_key: dict[str, list[Case]] = {}
    for c in cases:
        by_key.setdefault(c.key, []).append(c)
    out = {}
    for k, same in enumerate(by_key.values()):
        for i, c in enumerate(same):
            both = len(same) == 1 or c.id in BOTH_LAYOUTS
            out[c.id] = (False, True) if both else ((i + k) % 2 == 1,)
    return out


BOTH_LAYOUTS = {
    "cholesky-n-d",  # sparse: LAPACK refusing a random point's matrix; a divide by 2
    "take_dynamic-0-d",  # sparse: a bound's vector of one bounded number
    "scatter_add_dynamic-set-repeated-into-x",  # sparse: a divide by a power of two
    "frexp_exponent-n-d",  # sparse: a cancelled entry's placement
    "reduce_window_sum-2-d-same",  # dense: two blocks of one pending pattern compared
}
"""Cases checked in both layouts all the same: the only ones whose code in the layout
named reaches the library's lines named (coverage of each case's code in each layout,
session 56)."""


LAYOUTS = _layouts(CASES)


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def build(c: Case) -> DGraph:
    """The case's graph at the array level."""
    if c.builder == "jax":
        return from_jax(c.f, *c.args, level="array")
    if c.builder == "numpy":
        one, two = (lambda x: c.f(np, x)), (lambda x, y: c.f(np, x, y))
        f = one if len(c.args) == 1 else two
        return from_function(f, sizes=[a.shape for a in c.args], level="array")
    g = DGraph("case")
    for name, a in zip("xy", c.args, strict=False):
        g.add_array_vertex(name, "input", a.shape)
    g.add_array_vertex("out", "output", c.op.shape, c.op)
    return g.validate()


_BUILT: dict[str, DGraph] = {}
_FORWARD: dict[str, object] = {}


def built(c: Case) -> DGraph:
    """:func:`build`, once per case and process: the case's tests read one graph."""
    if c.id not in _BUILT:
        _BUILT[c.id] = build(c)
    return _BUILT[c.id]


def forward(c: Case):
    """Forward elimination's expression set of the case's graph (unverified: the tests
    compare its code with JAX), once per case and process."""
    if c.id not in _FORWARD:
        _FORWARD[c.id] = accumulate(built(c), "forward", verify=False)
    return _FORWARD[c.id]


REFERENCE_CHUNK = 32
"""Cases whose references are computed together, in one program: ``CASES`` in runs of
this many (xdist hands a worker runs of neighbouring cases). One program for many cases
compiles in a fraction of what each case's own (or each primitive run eagerly) does;
past a few dozen cases a program's compile grows faster than its cases. The references
of the 720 cases, traced, lowered, compiled and run, one process, CPU-s (session 52,
three runs each, alternated): 12.6-13.2 in runs of 32, 13.1-14.4 in runs of 128, 15.1
in runs of 256, 18.2 in one run of all; each case's columns by eager ``jax.jvp``
26-29 (an earlier measurement)."""


ENTRYWISE = {*ELEMENTWISE, "integer_pow", *_ROUNDING, *_COMPARE, *_LOGIC}
ENTRYWISE |= {"is_finite", "convert_element_type", "select_n"}
"""Operations whose cases here are functions entry by entry of operands of one shape (the
elementwise functions, and the cases of the rounding, comparing, logical and selecting
operations above): their Jacobian in each operand diagonal."""


def _shape_class(label: str) -> tuple[str, str] | None:
    """``label`` as (prefix, shape class of :data:`SHAPES`): ``"n-d"`` -> ("", "n-d"),
    ``"const-first-1-d"`` -> ("const-first", "1-d"); None for a label of no class."""
    for cls in SHAPES:
        if label == cls:
            return "", cls
        if label.endswith("-" + cls):
            return label[: -len(cls) - 1], cls
    return None


def _shared_ranks(cases: list[Case]) -> tuple[list[Case], dict[str, tuple[Case, int]]]:
    """The cases whose references are computed, and where each case of an elementwise
    operation on operands of one shape class (:data:`SHAPES`) finds its own: the cases of
    one function object (the operation, or its call with the same constants) on the
    classes' points side by side (vectors), whose Jacobian in each operand is diagonal,
    each class's block on its stretch of the diagonal (JAX's derivative entry by entry, as
    on the class's own shape). One traced and compiled ``jax.jacfwd`` per operation and
    variant, not one per shape class: 548 computed for 729 cases (663 when only the unary
    operations read from JAX were shared; the references of the operations JAX has no
    primitive for, quadratures and series, compile longest)."""
    groups: dict[tuple[str, str, int], list[Case]] = {}
    for c in cases:
        found = _shape_class(c.label)
        if (
            found is not None
            and c.builder != "numpy"
            and c.key in ENTRYWISE
            and all(a.shape == SHAPES[found[1]] for a in c.args)
        ):
            groups.setdefault((c.key, found[0], id(c.f)), []).append(c)
    where: dict[str, tuple[Case, int]] = {}
    first: dict[str, Case] = {}
    for (key, prefix, _), members in groups.items():
        if len(members) < 2:
            continue
        flat = zip(*(c.args for c in members), strict=True)  # per operand, the classes'
        args = tuple(np.concatenate([np.ravel(a) for a in same]) for same in flat)
        together = Case(key, f"{prefix}-shape-classes", members[0].f, args)
        first[members[0].id] = together
        offset = 0
        for c in members:
            where[c.id] = (together, offset)
            offset += c.args[0].size
    computed = [first.get(c.id, c) for c in cases if c.id in first or c.id not in where]
    assert len({c.id for c in computed}) == len(computed)  # one reference per id
    return computed, where


_COMPUTED, _SHARED = _shared_ranks(CASES)
_REFERENCES: dict[str, tuple[np.ndarray, ...]] = {}
_INDEX = {c.id: i for i, c in enumerate(_COMPUTED)}


def reference(c: Case) -> list[np.ndarray]:
    """JAX's Jacobian of the case, one (outputs, inputs) matrix per argument:
    ``jax.jacfwd`` of it (or, :func:`_shared_ranks`, its block of its operation's shape
    classes' one), compiled with the other cases of its run of :data:`REFERENCE_CHUNK`
    (:func:`_references`) and kept for the process."""
    if c.id in _SHARED:
        together, at = _SHARED[c.id]
        n = c.args[0].size
        return [whole[at : at + n, at : at + n] for whole in reference(together)]
    if c.id not in _REFERENCES:
        i = _INDEX.get(c.id)
        run = [c] if i is None else _COMPUTED[i - i % REFERENCE_CHUNK :][:REFERENCE_CHUNK]
        _REFERENCES.update(_references(run))
    return list(_REFERENCES[c.id])


def _function(c: Case) -> Callable:
    return (lambda *a: c.f(jnp, *a)) if c.builder == "numpy" else c.f


def _references(cases: list[Case]) -> dict[str, tuple[np.ndarray, ...]]:
    """The cases' Jacobians by ``jax.jacfwd``: stored as data (tests/jax_reference_store.py,
    under a key of their own: these are compiled differently), the others in one jitted
    program, less the cases JAX cannot trace as a program (:func:`_traced`: they need
    concrete values), which get :func:`_eager_reference`. Compiled with the options
    dgraph's own references compile with (``REFERENCE_COMPILE``: LLVM's expensive passes
    off, as tests/peers/harness.py's references: the same IEEE arithmetic, a quicker
    compile of a program run once)."""
    out, keys = {}, {}
    for c in cases:
        key = _STORE.key_of(_STORED, _function(c), c.args, tuple(range(len(c.args))))
        found = None if key is None else _STORE.lookup(_MODULE, key)
        if found is None:
            keys[c.id] = key
        else:
            out[c.id] = tuple(found)
    missed = [c for c in cases if c.id not in out]
    if not missed:
        return out
    traced, alone = _traced(missed)
    out |= {c.id: tuple(_eager_reference(c)) for c in alone}
    if traced is not None:
        together = [c for c in missed if c.id not in out]
        found = compile_reference(traced.lower(), REFERENCE_COMPILE)([c.args for c in together])
        for c, blocks in zip(together, found, strict=True):
            matrices = []
            for block, a in zip(blocks, c.args, strict=True):
                matrix = np.array(block, dtype=np.float64).reshape(-1, a.size)
                matrix.flags.writeable = False
                matrices.append(matrix)
            out[c.id] = tuple(matrices)
    if _STORE.WRITING:
        for c in missed:
            if keys[c.id] is not None:
                _STORE.record(_MODULE, keys[c.id], out[c.id])
    return out


_MODULE, _STORED = "test_rules_vs_jax", "jacfwd (REFERENCE_COMPILE, matrices)"


def _traced(cases: list[Case]):
    """``jax.jit(...).trace`` of the cases' ``jax.jacfwd`` as one program, and the cases
    left out of it: where the run does not trace, the case being traced when it failed is
    left out and the rest traced again (one failed trace and one more, where tracing each
    case alone to find it traced the run twice over); where the failure is in no one case
    (the cases trace apart, not together), every case is left out."""
    left: list[Case] = []
    while cases:
        traced, failed = _program(cases)
        if traced is not None:
            return traced, left
        if failed is None:
            return None, left + cases
        left.append(cases[failed])
        cases = cases[:failed] + cases[failed + 1 :]
    return None, left


def _program(cases: list[Case]):
    """``jax.jit(...).trace`` of the cases' ``jax.jacfwd`` as one program, and None; or,
    where JAX cannot trace it, None and the position of the case whose Jacobian was being
    traced when it failed (None where the failure came after every case's)."""
    jacobians = [jax.jacfwd(_function(c), argnums=tuple(range(len(c.args)))) for c in cases]
    current: list[int | None] = [None]

    def program(args):
        out = []
        for k, (j, a) in enumerate(zip(jacobians, args, strict=True)):
            current[0] = k
            out.append(j(*a))
        current[0] = None
        return out

    try:
        return jax.jit(program).trace([c.args for c in cases]), None
    except Exception:
        return None, current[0]


def _eager_reference(c: Case) -> list[np.ndarray]:
    """The columns of ``jax.jacfwd``, each a ``jax.jvp``, run eagerly: for a case JAX
    cannot trace as a whole."""
    f, args = _function(c), c.args
    columns: list[list[np.ndarray]] = [[] for _ in args]
    for i, a in enumerate(args):
        for j in range(a.size):
            tangents = [np.zeros(b.shape) for b in args]
            tangents[i] = np.eye(a.size)[j].reshape(a.shape)
            columns[i].append(np.ravel(jax.jvp(f, args, tuple(tangents))[1]))
    return [np.stack(col, axis=1) for col in columns]


def _nested(op, name: str) -> bool:
    stack = [op]
    while stack:
        top = stack.pop()
        if top.primitive == name:
            return True
        stack += [x for x in top.operands if isinstance(x, ArrayOp)]
    return False


def _dense(block) -> np.ndarray:
    """A block as a dense array: SciPy's by ``toarray``, JAX's BCOO by
    :func:`~tests.peers.harness.densified` (NumPy, no XLA scatter compiled per shape)."""
    if hasattr(block, "toarray"):
        return np.asarray(block.toarray())
    return densified(block) if hasattr(block, "todense") else np.asarray(block)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_rule_matches_jax(c: Case) -> None:
    """Each edge block of the one operation, the generated code's Jacobian (in the
    layouts of :data:`LAYOUTS`) and the element level's Jacobian equal ``jax.jacfwd`` of
    it (float64, relative 1e-10; one test, so that JAX's reference is computed once per
    case). A Jacobian that is zero by a constant
    (``x**0``) may instead be refused in one line, saying the output does not depend on the
    inputs."""
    try:
        g = built(c)
    except InputError as exc:
        if "does not depend on the inputs" not in str(exc) or any(np.any(r) for r in reference(c)):
            raise
        return
    ops = [g.op(v) for v in g.nx if g.op(v) is not None]
    key = _RENAMES.get(c.key, c.key)
    if c.key in PRIMITIVES:  # the case exercises the operation it is filed under
        assert any(_nested(op, key) for op in ops), [op.primitive for op in ops]
    refs = reference(c)
    _element_level_matches(g, c, refs)
    inputs = dict(zip(g.inputs, c.args, strict=True))
    values = vertex_values(g, inputs)
    (y,) = g.outputs
    if len(ops) == 1:  # one operation: its edges are the Jacobian
        blocks = edge_values(g, values)
        for x, ref in zip(g.inputs, refs, strict=True):
            got = blocks.get((x, y))
            dense = np.zeros_like(ref) if got is None else to_matrix(*got).toarray()
            np.testing.assert_allclose(dense, ref, rtol=1e-10, atol=1e-12, err_msg=f"∂{y}/∂{x}")
    es = forward(c)
    whole = np.hstack(refs)
    for sparse in LAYOUTS[c.id]:
        module = load_python(tensor_module(es, "python", sparse))
        got = module.jacobian(*c.args)  # one output: a block, or a tuple over the inputs
        blocks = got if len(g.inputs) > 1 else (got,)
        assert len(blocks) == len(refs)
        got = np.hstack([_dense(b).reshape(r.shape) for b, r in zip(blocks, refs, strict=True)])
        if sparse:  # and the stacked matrix: the inputs side by side
            stacked = _dense(module.jacobian_stacked(*c.args)).reshape(whole.shape)
            np.testing.assert_array_equal(stacked, got.reshape(whole.shape))
        np.testing.assert_allclose(
            got, whole, rtol=1e-10, atol=1e-12, err_msg=f"code, sparse {sparse}"
        )


def _element_level_matches(g: DGraph, c: Case, refs: list[np.ndarray]) -> None:
    """The case's element level (``g.elements()``): scalars only, an input per entry, no
    more edges of nonzero partial than :func:`~dgraph.core.expand.scalar_edges` counts (a
    zero entry makes no edge; a value only a condition reads has one of partial 0), and
    forward elimination's Jacobian JAX's; refused in one line for :data:`ARRAY_ONLY`."""
    if c.key in ARRAY_ONLY:
        with pytest.raises(InputError, match="has no element level"):
            g.elements()
        return
    graph = g.elements()
    assert not graph.is_tensor and all(graph.shape(v) == () for v in graph.vertices)
    assert len(graph.inputs) == sum(a.size for a in c.args)
    nonzero = [e for e in graph.edges() if graph.partial(*e) != 0]
    assert len(nonzero) <= scalar_edges(g)
    point = np.concatenate([np.ravel(a) for a in c.args])
    jacobian = np.asarray(accumulate(graph, "forward", verify=False).evaluate(point), dtype=float)
    np.testing.assert_allclose(
        jacobian, np.hstack(refs), rtol=1e-10, atol=1e-12, err_msg="the element level"
    )


def test_every_operation_has_cases() -> None:
    """A primitive added to the array level without a case here fails this test."""
    keys = {c.key for c in CASES}
    missing = (set(PRIMITIVES) | READER) - keys
    assert not missing, f"no differential cases for {sorted(missing)}"
    classes = {c.label for c in CASES if c.key == "sin"}
    assert set(SHAPES) <= classes


@pytest.mark.parametrize("what", sorted(REFUSED))
def test_refused_in_one_line(what: str) -> None:
    f, shape = REFUSED[what]
    with pytest.raises(InputError) as raised:
        from_jax(f, point(shape, 80), level="array")
    text = str(raised.value)
    assert text and "\n" not in text and "Traceback" not in text


ISSUE_52 = {  # root cause 1 of issue 52, as its users met it
    "sin(x**2) at 0-d": (lambda x: jnp.sin(x**2), (np.float64(0.7),)),
    "cubic and square of entries": (
        lambda y: (y[0] - 2) ** 3 + (y[1] + 0.5) ** 2 * (y[0] - 2),
        (np.array([0.7, 0.3]),),
    ),
    "where on 0-d": (lambda x: jnp.where(x > 0.5, x * x, jnp.sin(x)), (np.float64(0.7),)),
}


_ISSUE_52: dict[str, tuple[DGraph, np.ndarray]] = {}


def _issue_52(what: str) -> tuple[DGraph, np.ndarray]:
    """The function's array graph and ``jax.jacfwd`` of it (flat), once per function and
    process: both languages' code is made from the same graph, as a user's calls of
    ``make_function`` on one graph."""
    if what not in _ISSUE_52:
        f, args = ISSUE_52[what]
        expected = np.ravel(jref.jacfwd(f)(*args))  # jitted: one compile, not one a primitive
        expected.flags.writeable = False
        _ISSUE_52[what] = (from_jax(f, *args, level="array"), expected)
    return _ISSUE_52[what]


@pytest.mark.parametrize(
    "what, lang",
    [(w, lang) for w in sorted(ISSUE_52) for lang in ("python", "jax")],
)
def test_issue_52_functions_through_make_function(what: str, lang: str) -> None:
    """The checked, generated Jacobian (dense and sparse) equals ``jax.jacfwd``:
    ``sin(x**2)`` at 0.7 is 1.2353 (it was 1.7647, then refused as not verified)."""
    from dgraph import make_function

    _, args = ISSUE_52[what]
    g, expected = _issue_52(what)
    for sparse in (False, True):
        got = make_function(g, lang=lang, sparse=sparse)(*args)  # one input, one output
        np.testing.assert_allclose(np.ravel(_dense(got)), expected, rtol=1e-12)


# JAX has no Bessel j0 … k1e, ellipk, ellipe: their generated code is refused
# (tests/test_bessel.py, tests/test_special_more.py); spence's calls JAX's, lambertw's
# the module's own
_NO_JAX_CODE = NOT_IN_JAX - {"spence", "lambertw"}
JAX_CODE = [
    c for c in CASES if c.key in ELEMENTWISE and c.key not in _NO_JAX_CODE and c.label == "n-d"
]


_JAX_CODE_VALUES: dict[str, object] = {}


def _jax_code_jacobian(c: Case):
    """The case's generated JAX module's ``jacobian`` at its arguments: every case of
    :data:`JAX_CODE` run in one jitted program, compiled once and kept for the process
    (each run eagerly compiled each of its operations: 1.55-1.6 CPU-s for the 47 cases,
    0.75-0.83 as one program; a module run under ``jax.jit``, as a user's JAX code is,
    is the same operations); the cases alone, eagerly, where the program does not trace."""
    if c.id not in _JAX_CODE_VALUES:
        jacobians = [
            load_python(tensor_module(forward(d), "jax", False)).jacobian for d in JAX_CODE
        ]
        arguments = [d.args for d in JAX_CODE]
        try:
            program = jax.jit(lambda args: [j(*a) for j, a in zip(jacobians, args, strict=True)])
            found = program(arguments)
        except Exception:  # each case alone: a failure shows on its own test
            found = [j(*a) for j, a in zip(jacobians, arguments, strict=True)]
        _JAX_CODE_VALUES.update((d.id, got) for d, got in zip(JAX_CODE, found, strict=True))
    return _JAX_CODE_VALUES[c.id]


@pytest.mark.parametrize("c", JAX_CODE, ids=[c.id for c in JAX_CODE])
def test_jax_code_formula_matches_jax(c: Case) -> None:
    """The elementwise derivatives as the generated JAX code prints them (its own
    printer: jax.numpy, jax.scipy.special) equal ``jax.jacfwd``."""
    g = built(c)
    assert len(g.outputs) == 1
    got = _jax_code_jacobian(c)  # one output: a block, or a tuple over the inputs
    got = got if len(g.inputs) > 1 else (got,)
    for block, ref in zip(got, reference(c), strict=True):
        np.testing.assert_allclose(_dense(block).reshape(ref.shape), ref, rtol=1e-10)


def _scatters(x, u):
    """Every gather and scatter in one function (repeated indices, ties aside)."""
    i = jnp.array([0, 2, 0])
    y = jnp.sin(x.at[i].set(u * x[:3])) + x.at[i].add(u) * x.at[i].max(u)
    z = x.at[jnp.array([1, 3])].mul(u[:2], unique_indices=True) - x.at[i].min(u**2)
    return y * z + lax.dynamic_update_slice(x, u[:2], (1,)) + x[jnp.array([3, 3, 0, 1])]


def test_scatters_in_jax_c_and_cuda_equal_the_numpy_module() -> None:
    """One graph of every gather and scatter: the generated JAX code (gathers of constant
    positions under ``where``: no in-place update), the C values and the CUDA kernels (one
    host thread each, where a C++ compiler exists) equal the NumPy module's J, which the
    cases above check against ``jax.jacfwd``."""
    from dgraph.codegen.c import compiler
    from dgraph.codegen.cuda import cxx_compiler
    from dgraph.codegen.tensor.c_values import c_values
    from dgraph.codegen.tensor.module import tensor_program

    x, u = point((4,), 140), point((3,), 141)
    g = from_jax(_scatters, x, u, level="array")
    assert {"scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"} <= {
        g.op(v).primitive for v in g.intermediates
    }
    es = accumulate(g, "forward", verify=False)
    want = load_python(tensor_module(es, "python", True)).jacobian_stacked(x, u)
    jax_code = load_python(tensor_module(es, "jax", True))
    np.testing.assert_allclose(_dense(jax_code.jacobian_stacked(x, u)), want.toarray(), rtol=1e-12)
    if compiler() is None:
        return
    values = c_values(tensor_program(es, "python", True, keep_arrays=True))
    got = values.load()(x, u)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_allclose(got.data, want.data, rtol=1e-13, atol=1e-13)
    if cxx_compiler() is not None:
        cuda = values.load_cuda_host()(x, u)
        np.testing.assert_allclose(cuda.data, want.data, rtol=1e-13, atol=1e-13)


def _sigmoid_of_minus(x):
    return jax.nn.sigmoid(-x)


@pytest.mark.parametrize("lang", ["python", "c", "jax"])
def test_sigmoid_where_exp_overflows_through_make_function(lang: str) -> None:
    """``sigmoid(-x)``'s element-level Jacobian at x = 720 (``exp(720)`` overflows) is
    JAX's -0, not ``exp(x)/(1 + exp(x))**2 = inf/inf`` (NaN), and verified at that point."""
    from dgraph import make_function

    if lang == "c" and shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    f = _sigmoid_of_minus
    x = np.array([720.0, 1.0, -800.0])
    got = make_function(f, "jacobian", lang, point=[x])
    assert got.generated.verified
    want = jref.jacfwd(f)(x)  # jitted, kept for f: one compile for the three languages
    np.testing.assert_allclose(np.asarray(got(x)), want, rtol=1e-12, atol=0)
