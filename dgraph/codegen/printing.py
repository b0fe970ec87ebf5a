"""What both printers share: powers printed the way they are counted, constants printed as
the doubles they stand for, and one error for what cannot be printed.

sympy's printers emit ``x**3`` or ``pow(x, 3)``; the counting rule of
:mod:`dgraph.codegen.counting` charges an integer power its multiplications, so the
printers of both languages emit exactly those multiplications. sympy also prints
``10**19`` as an integer literal, which C reads as a (wrapped) 64-bit integer and NumPy
cannot convert beyond 2**63; every number is printed here as an int only while it fits a
32-bit int, otherwise as the shortest literal that round-trips to its nearest double.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import sympy

from ..blocks.array_extra import SCIPY_NAMED, SPECIAL_CALLS
from ..blocks.arrays import exact_power, is_matmul
from ..core.numeric import PlainConditions
from ..errors import DGraphError
from .counting import LARGEST_PRODUCT_POWER
from .ir import ArrayStatement, Cond, Const, Loop, Node, While

__all__ = [
    "BINARY",
    "CALLS",
    "IEEE_TESTS",
    "SCIPY_ONLY",
    "TERNARY",
    "ArrayFunctions",
    "ArrayPrinter",
    "NumbersAsDoubles",
    "PolygammaOrders",
    "PowersAsProducts",
    "call_operands",
    "double",
    "double_literal",
    "printed",
    "printed_code",
]

# The elementwise functions printed as calls, by lax name: (the array function, the C99
# function, or dgraph's where C99 has none (dgraph.codegen.c_special); None where the C
# printer writes it out)
CALLS: dict[str, tuple[str, str | None]] = {
    "exp": ("exp", "exp"), "exp2": ("exp2", "exp2"), "log": ("log", "log"),
    "log1p": ("log1p", "log1p"), "expm1": ("expm1", "expm1"), "sin": ("sin", "sin"),
    "cos": ("cos", "cos"), "tan": ("tan", "tan"), "asin": ("arcsin", "asin"),
    "acos": ("arccos", "acos"), "atan": ("arctan", "atan"), "sinh": ("sinh", "sinh"),
    "cosh": ("cosh", "cosh"), "tanh": ("tanh", "tanh"), "asinh": ("arcsinh", "asinh"),
    "acosh": ("arccosh", "acosh"), "atanh": ("arctanh", "atanh"), "sqrt": ("sqrt", "sqrt"),
    "cbrt": ("cbrt", "cbrt"), "abs": ("abs", "fabs"), "floor": ("floor", "floor"),
    "ceil": ("ceil", "ceil"), "round": ("round", "nearbyint"), "erf": ("special.erf", "erf"),
    "erfc": ("special.erfc", "erfc"), "square": ("square", None), "sign": ("sign", None),
    "not": ("logical_not", None), "is_finite": ("isfinite", None),
    "pow": ("power", "pow"), "atan2": ("arctan2", "atan2"), "max": ("maximum", "fmax"),
    "min": ("minimum", "fmin"), "and": ("logical_and", None), "or": ("logical_or", None),
    "erf_inv": ("special.erfinv", "dgraph_erfinv"), "lgamma": ("special.gammaln", "lgamma"),
    "digamma": ("special.digamma", "dgraph_digamma"),
    "polygamma": ("special.polygamma", "dgraph_polygamma"),
    "bessel_i0e": ("special.i0e", "dgraph_i0e"), "bessel_i1e": ("special.i1e", "dgraph_i1e"),
    "rem": ("fmod", "fmod"), "igamma": ("special.gammainc", "dgraph_gammainc"),
    "igammac": ("special.gammaincc", "dgraph_gammaincc"), "zeta": ("special.zeta", "dgraph_zeta"),
    "ndtri": ("special.ndtri", "dgraph_ndtri"), "exp1": ("special.exp1", "dgraph_exp1"),
    "expi": ("special.expi", "dgraph_expi"), "dawsn": ("special.dawsn", "dgraph_dawsn"),
    "expn": ("special.expn", "dgraph_expn"), "betainc": ("special.betainc", "dgraph_betainc"),
    **{f.__name__: (f"special.{f.__name__}", f"dgraph_{f.__name__}") for f in SCIPY_NAMED},
    "lambertw": ("_lambertw", "dgraph_lambertw"),  # a helper the module defines
}  # fmt: skip
# IEEE's tests, undefined functions in dgraph.core.expand's expressions: the same names in
# NumPy, JAX and C99
IEEE_TESTS = frozenset({"isfinite", "isnan", "isinf"})
BINARY = frozenset(
    {"pow", "atan2", "max", "min", "and", "or", "polygamma", "rem", "igamma", "igammac", "zeta"}
    | {"expn"}
)
TERNARY = frozenset({"betainc"})


def call_operands(name: str) -> int:
    """How many operands the call :data:`CALLS` prints for the operation ``name`` takes:
    3 (:data:`TERNARY`), 2 (:data:`BINARY`) or 1."""
    return 3 if name in TERNARY else 2 if name in BINARY else 1


INT_LIMIT = 2**31  # integer literals below this magnitude are exact ints in C and Python


def double(value: sympy.Number) -> float:
    """The double nearest to ``value`` (correctly rounded: Python's int and int/int
    conversions are); a DGraphError when it is beyond the range of a double.

    >>> double(sympy.Rational(10**30 + 1, 3)), double(sympy.Integer(2) ** 70)
    (3.333333333333333e+29, 1.1805916207174113e+21)
    >>> double(sympy.Float(0.0))  # zero, though sympy's Float(0.0) != 0
    0.0
    """
    try:
        if value.is_Integer:
            result = float(int(value))
        elif value.is_Rational:
            result = int(value.p) / int(value.q)
        elif value.is_Float:
            sign, mantissa, exponent, _ = value._mpf_
            if not mantissa:  # zero, or one of mpmath's special values
                result = float(value)
            elif exponent >= 0:
                result = float(mantissa << exponent)
            else:
                result = mantissa / (1 << -exponent)
            result = -result if sign else result
        else:
            result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result) or (result == 0 and not value.is_zero):  # Float(0.0) != 0
        text = str(value)
        text = text if len(text) <= 30 else f"{text[:12]}...{text[-6:]} ({len(text)} digits)"
        raise DGraphError(f"constant {text} is beyond the range of a double")
    return result


def double_literal(value: sympy.Number) -> str:
    """An integer literal while ``value`` is an integer that fits a 32-bit int, else the
    shortest literal that round-trips to the nearest double (always with ``.`` or ``e``).

    >>> double_literal(sympy.Integer(10) ** 19), double_literal(sympy.Integer(7))
    ('1e+19', '7')
    """
    if value.is_Integer and abs(int(value)) < INT_LIMIT:
        return str(int(value))
    return repr(double(value))


class NumbersAsDoubles:
    """Mixin for a sympy code printer: every number as :func:`double_literal` prints it."""

    def _print_Integer(self, expr: sympy.Integer) -> str:
        return double_literal(expr)

    def _print_Rational(self, expr: sympy.Rational) -> str:
        return double_literal(expr)

    def _print_Float(self, expr: sympy.Float) -> str:
        return double_literal(expr)

    def _print_Half(self, expr: sympy.Rational) -> str:
        return "0.5"


class PolygammaOrders:
    """Mixin for a sympy printer with ``_print_polygamma``: ``digamma`` and ``trigamma``
    as its orders 0 and 1."""

    def _print_digamma(self, expr: sympy.Expr) -> str:
        return self._print_polygamma(sympy.polygamma(0, expr.args[0], evaluate=False))  # type: ignore[attr-defined]

    def _print_trigamma(self, expr: sympy.Expr) -> str:
        return self._print_polygamma(sympy.polygamma(1, expr.args[0], evaluate=False))  # type: ignore[attr-defined]


# sympy functions only SciPy computes (neither NumPy, math, JAX nor C99): scipy.special's
# name and the number of arguments it takes (Bessel functions of any real order, the
# complete elliptic integrals of the parameter m)
SCIPY_ONLY: dict[str, tuple[str, int]] = {
    "besselj": ("jv", 2),
    "bessely": ("yv", 2),
    "besseli": ("iv", 2),
    "besselk": ("kv", 2),
    "elliptic_k": ("ellipk", 1),
    "elliptic_e": ("ellipe", 1),
}


class SpecialFunctions(PolygammaOrders):
    """Mixin for a NumPy-like sympy printer: ``isfinite``, ``isnan`` and ``isinf`` (IEEE's
    tests as :mod:`dgraph.core.expand` writes them) from ``array_module``, and
    ``polygamma``/``digamma`` as
    ``math.polygamma(n, x)`` with an integer order, and ``erfinv``, ``ndtri``, ``exp1``,
    ``expi``, ``dawsn`` and the Bessel functions ``j0`` … ``k1e`` as ``math.<name>(x)``,
    which the target maps to its special functions (SciPy's, JAX's)."""

    array_module = "numpy"

    def _print_Function(self, expr: sympy.Expr) -> str:
        """``isfinite``, ``isnan``, ``isinf``: undefined functions to sympy (its printers
        skip ``_print_<name>`` for those); the functions of :data:`SCIPY_ONLY` as
        ``math.<name>(...)``, which the NumPy target calls through SciPy's ufunc (JAX's
        refuses them in one line)."""
        name = expr.func.__name__
        if name in IEEE_TESTS and len(expr.args) == 1:
            return f"{self.array_module}.{name}({self._print(expr.args[0])})"  # type: ignore[attr-defined]
        if SCIPY_ONLY.get(name, (None, -1))[1] == len(expr.args):
            self.module_imports["math"].add(name)  # type: ignore[attr-defined]
            return f"math.{name}({', '.join(self._print(a) for a in expr.args)})"  # type: ignore[attr-defined]
        return super()._print_Function(expr)  # type: ignore[misc]

    def _print_polygamma(self, expr: sympy.Expr) -> str:
        order = expr.args[0]
        if not (order.is_Integer and order >= 0):
            raise DGraphError(f"cannot print polygamma of order {order}")
        self.module_imports["math"].add("polygamma")  # type: ignore[attr-defined]
        return f"math.polygamma({int(order)}, {self._print(expr.args[1])})"  # type: ignore[attr-defined]

    def _special_call(self, expr: sympy.Expr) -> str:
        """``math.<name>(x)`` of a one-argument special function (its class's name)."""
        name = type(expr).__name__
        self.module_imports["math"].add(name)  # type: ignore[attr-defined]
        return f"math.{name}({self._print(expr.args[0])})"  # type: ignore[attr-defined]

    _print_erfinv = _print_ndtri = _special_call
    _print_exp1 = _print_expi = _print_dawsn = _special_call
    _print_j0 = _print_j1 = _print_y0 = _print_y1 = _special_call
    _print_k0 = _print_k1 = _print_k0e = _print_k1e = _special_call
    _print_spence = _print_ellipk = _print_ellipe = _print_lambertw = _special_call


class PowersAsProducts:
    """Mixin for a sympy code printer: integer powers as products, x**(±1/2) via sqrt.

    >>> from sympy.printing.c import C99CodePrinter
    >>> class P(PowersAsProducts, C99CodePrinter):
    ...     one, sqrt = "1.0", "sqrt"
    >>> x, y = sympy.symbols("x y")
    >>> P().doprint(x**3 / (x + y) ** 2)
    '(x*x*x)/((x + y)*(x + y))'
    """

    one = "1"
    sqrt = "sqrt"

    def _print_Pow(self, expr: sympy.Pow, rational: bool = False) -> str:
        base, exp = expr.base, expr.exp
        text = self._print(base)  # type: ignore[attr-defined]
        if not (base.is_Atom or base.is_Function):
            text = f"({text})"
        if exp.is_Integer and exp != 0 and abs(exp) <= LARGEST_PRODUCT_POWER:
            k = abs(int(exp))
            product = "*".join([text] * k)
            if exp > 0:
                return f"({product})" if k > 1 else text
            return f"({self.one}/{product if k == 1 else f'({product})'})"
        if exp.is_Integer and exact_power(int(exp))[1]:  # odd past 2**53: x*x**(exp - 1)
            rest = self._print(sympy.Pow(base, exp - 1, evaluate=False))  # type: ignore[attr-defined]
            return f"({text}*{rest})"
        if exp == sympy.S.Half:
            return f"{self.sqrt}({self._print(base)})"  # type: ignore[attr-defined]
        if exp == -sympy.S.Half:
            return f"({self.one}/{self.sqrt}({self._print(base)}))"  # type: ignore[attr-defined]
        return super()._print_Pow(expr)  # type: ignore[misc]


class ArrayFunctions(PlainConditions):
    """Mixin for a NumPy-like printer: ``Max``/``Min`` as nested element-wise
    ``maximum``/``minimum``, ``Heaviside`` with sympy's H(0), from ``array_module``, and
    a Piecewise's ``ITE`` conditions as :class:`~dgraph.core.numeric.PlainConditions`."""

    array_module = "numpy"

    def _nested(self, function: str, args: tuple[sympy.Expr, ...]) -> str:
        text = self._print(args[-1])  # type: ignore[attr-defined]
        for arg in reversed(args[:-1]):
            text = f"{function}({self._print(arg)}, {text})"  # type: ignore[attr-defined]
        return text

    def _print_Max(self, expr: sympy.Expr) -> str:
        return self._nested(f"{self.array_module}.maximum", expr.args)

    def _print_Min(self, expr: sympy.Expr) -> str:
        return self._nested(f"{self.array_module}.minimum", expr.args)

    def _print_Heaviside(self, expr: sympy.Expr) -> str:
        """H(0) is sympy's second argument (1/2 unless given)."""
        show = self._print  # type: ignore[attr-defined]
        at_zero = show(expr.args[1]) if len(expr.args) > 1 else "0.5"
        return f"{self.array_module}.heaviside({show(expr.args[0])}, {at_zero})"


def printed_code(printer, expr: sympy.Expr, where: str, modules: set[str] | None = None) -> str:
    """:func:`printed` with a sympy code printer, and a one-line DGraphError for what it
    does not support or, given the ``modules`` the generated file imports, for a function
    that needs another module."""
    imports = getattr(printer, "module_imports", {})  # C's printer imports no modules
    before = set(imports)
    text = printed(printer.doprint, expr, where)
    if printer._not_supported:
        culprit = sorted(map(str, printer._not_supported))[0]
        printer._not_supported.clear()
        raise DGraphError(f"{where}: cannot print {culprit}")
    other = set(imports) - before - (modules or set())
    if modules is not None and other:
        shown = str(expr) if len(str(expr)) <= 60 else str(expr)[:57] + "..."
        raise DGraphError(f"{where}: cannot print {shown} (it needs {sorted(other)[0]})")
    return text


def printed(doprint: Callable[[sympy.Expr], str], expr: sympy.Expr, where: str) -> str:
    """``doprint(expr)``, or a one-line DGraphError naming ``where`` (the generated
    function and language) and the innermost subexpression that cannot be printed."""
    try:
        return doprint(expr)
    except DGraphError as exc:
        raise DGraphError(f"{where}: {exc}") from None
    except Exception:  # sympy's printers raise several kinds; find the culprit
        culprit = expr
        for node in sympy.postorder_traversal(expr):
            if node.is_Atom:
                continue
            try:
                doprint(node)
            except Exception:
                culprit = node
                break
        text = str(culprit)
        text = text if len(text) <= 60 else text[:57] + "..."
        raise DGraphError(f"{where}: cannot print {type(culprit).__name__} ({text})") from None


# Python's binding strength of what an array printer writes (higher binds tighter).
_PRECEDENCE = {
    "<": 3, "<=": 3, ">": 3, ">=": 3, "==": 3, "!=": 3,
    "+": 4, "-": 4, "*": 5, "/": 5, "**": 7,
}  # fmt: skip
_ATOM = 9


class ArrayPrinter:
    """The array statements of :mod:`dgraph.codegen.ir` as Python-syntax text, one
    ``_print_<Kind>`` per node kind (sympy's printers are the model); a target says how
    it names its array module (``xp``), its special functions and what is its own
    (:class:`~dgraph.codegen.ir.Formula`, scatters, segment sums, sparse results)."""

    xp = "numpy"
    special = "scipy.special"

    def __init__(self, function: str = "jacobian", module: bool = False) -> None:
        self.function = function  # the generated function, named in errors
        self.module = module  # inside a generated module: its helpers are defined

    def doprint(self, node: Node) -> str:
        return self._print(node)[0]

    def special_function(self, name: str) -> str:
        """The printed name of SciPy's ``special.<name>`` in the target's module."""
        return f"{self.special}.{name}"

    def statement(self, s: ArrayStatement) -> str:
        if isinstance(s.value, Loop) and not s.at:
            return "\n".join(self.loop(s.target, s.value))
        if isinstance(s.value, While) and not s.at:
            return "\n".join(self.while_loop(s.target, s.value))
        if isinstance(s.value, Cond) and not s.at:
            return "\n".join(self.cond(s.target, s.value))
        if s.at:
            return f"    {s.target}[{self._arguments(s.at)}] = {self.doprint(s.value)}"
        return f"    {s.target} = {self.doprint(s.value)}"

    def _print(self, node: Node) -> tuple[str, int]:
        """``node``'s text and its binding strength."""
        return getattr(self, f"_print_{type(node).__name__}")(node)

    def _wrapped(self, node: Node, below: int) -> str:
        text, strength = self._print(node)
        return f"({text})" if strength < below else text

    def _print_Name(self, node) -> tuple[str, int]:
        return node.id, _ATOM

    def _print_Const(self, node) -> tuple[str, int]:
        value = node.value
        if isinstance(value, type):  # a dtype: float, int
            return value.__name__, _ATOM
        if value is Ellipsis:
            return "...", _ATOM
        if isinstance(value, float) and not math.isfinite(value):
            text = f"{self.xp}.nan" if math.isnan(value) else f"{self.xp}.inf"
            return (text, _ATOM) if math.isnan(value) or value > 0 else (f"-{text}", 6)
        text = repr(value)
        negative = isinstance(value, (int, float)) and value < 0
        return text, 6 if negative else _ATOM

    def _print_BinOp(self, node) -> tuple[str, int]:
        strength = _PRECEDENCE[node.op]
        left = self._wrapped(node.left, strength + (node.op == "**" or strength == 3))
        right = self._wrapped(node.right, strength + 1)
        return f"{left} {node.op} {right}", strength

    def _print_UnaryOp(self, node) -> tuple[str, int]:
        return f"{node.op}{self._wrapped(node.operand, 6)}", 6

    def _arguments(self, args, keywords=()) -> str:
        parts = [self.doprint(a) for a in args]
        parts += [f"{k}={self.doprint(v)}" for k, v in keywords]
        return ", ".join(parts)

    def _print_Call(self, node) -> tuple[str, int]:
        if node.func.startswith("_"):  # a helper the module defines
            return f"{node.func}({self._arguments(node.args, node.keywords)})", _ATOM
        _, special, name = node.func.rpartition("special.")
        func = self.special_function(name) if special else f"{self.xp}.{name}"
        if name == "einsum" and self.xp == "numpy" and _matmul(node):  # BLAS's sums, as X @ b
            return f"{self.xp}.matmul({self._arguments(node.args[1:])})", _ATOM
        return f"{func}({self._arguments(node.args, node.keywords)})", _ATOM

    def _print_AsType(self, node) -> tuple[str, int]:
        return f"{self._wrapped(node.operand, _ATOM)}.astype({node.dtype})", _ATOM

    def _print_Slice(self, node) -> tuple[str, int]:
        parts = ["" if v is None else str(v) for v in (node.lower, node.upper)]
        if node.step is not None:
            parts.append(str(node.step))
        return ":".join(parts), _ATOM

    def _print_Index(self, node) -> tuple[str, int]:
        items = [self.doprint(i) for i in node.items]
        inside = ", ".join(items) + ("," if len(items) == 1 and _is_slice(node.items[0]) else "")
        return f"{self._wrapped(node.value, _ATOM)}[{inside}]", _ATOM

    def _print_Seq(self, node) -> tuple[str, int]:
        return f"[{self._arguments(node.items)}]", _ATOM

    def _print_Dict(self, node) -> tuple[str, int]:
        return "{" + ", ".join(f"{k!r}: {self.doprint(v)}" for k, v in node.items) + "}", _ATOM

    def _print_Formula(self, node) -> tuple[str, int]:
        expr = node.expr
        names = {}
        for symbol, operand in node.operands:
            text, strength = self._print(operand)
            if text != symbol.name:
                names[symbol] = sympy.Symbol(text if strength == _ATOM else f"({text})", real=True)
        expr = expr.xreplace(names) if names else expr
        specials = () if self.module else _special_atoms(expr)  # a module: the scalar printer
        for inner in sorted(specials, key=sympy.count_ops):  # inner first
            name = SPECIAL_CALLS[type(inner).__name__]
            args = [self.formula(a) for a in inner.args]
            if name in ("polygamma", "expn"):  # JAX's take an integer order only
                args[0] = f"{self.xp}.asarray({args[0]}).astype(int)"
            args = ", ".join(args)
            func = name if name.startswith("_") else self.special_function(name)  # or a helper
            call = sympy.Symbol(f"{func}({args})", real=True)
            expr = expr.xreplace({inner: call})
        return self.formula(expr), 0

    def _print_Entries(self, node) -> tuple[str, int]:
        xp = self.xp
        return f"{xp}.reshape({xp}.array([{self._arguments(node.items)}]), {node.shape!r})", _ATOM

    def _print_Item(self, node) -> tuple[str, int]:
        return f"{self._wrapped(node.value, _ATOM)}[{node.index}]", _ATOM

    def _print_Loop(self, node) -> tuple[str, int]:
        raise DGraphError(
            f"the generated {self.function}(): a loop is a statement's whole value, not part"
            " of an expression"
        )

    def loop(self, target: str, node: Loop) -> list[str]:
        """The lines of ``target = node`` (a loop: the target's own, one per printer)."""
        raise NotImplementedError

    _print_While = _print_Loop

    def while_loop(self, target: str, node: While) -> list[str]:
        """The lines of ``target = node`` (a while loop, one per printer)."""
        raise NotImplementedError

    _print_Cond = _print_Loop

    def cond(self, target: str, node: Cond) -> list[str]:
        """The lines of ``target = node``: each branch a nested function, the taken one
        called (NumPy: an ``if`` / ``elif`` chain on the clamped index)."""
        lines: list[str] = []
        for b, part in enumerate(node.branches):
            lines += self._function(f"_{target}_branch{b}", part)
        last = len(node.branches) - 1
        index = f"{self.xp}.reshape({self.doprint(node.index)}, (-1,))[0]"
        lines.append(f"    _{target}_index = min(max(int({index}), 0), {last})")
        lines.append(f"    _{target}_operands = ({self._tuple(node.operands)})")
        for b in range(len(node.branches)):
            test = "else:" if b == last else f"{'if' if b == 0 else 'elif'} _{target}_index == {b}:"
            lines.append(f"    {test}")
            lines.append(f"        {target} = _{target}_branch{b}(*_{target}_operands)")
        return lines

    def _function(self, name: str, part) -> list[str]:
        """A loop's program as a nested function returning the tuple of its results."""
        lines = [f"    def {name}({', '.join(part.arguments)}):"]
        for inner in part.statements:
            lines += ["    " + line for line in self.statement(inner).split("\n")]
        lines.append(f"        return ({_listed(part.results)})")
        return lines

    def _loop_body(self, target: str, node: Loop) -> tuple[str, list[str]]:
        """The body as a nested function ``_<target>_body(arguments...)`` returning the
        tuple of its results, and the lines that define it and bind the loop's xs and
        invariants (each evaluated once, before the loop)."""
        name = f"_{target}_body"
        lines = self._function(name, node.body)
        lines.append(f"    _{target}_xs = ({self._tuple(node.xs)})")
        lines.append(self._invariants(target, node.invariants))
        return name, lines

    def _invariants(self, target: str, nodes) -> str:
        """The line binding a loop's invariants (evaluated once, before the loop)."""
        return f"    _{target}_invariants = ({self._tuple(nodes)})"

    def _tuple(self, nodes) -> str:
        """The items of a Python tuple display (``a, b``; one: ``a,``; none: empty)."""
        return _listed([self.doprint(n) for n in nodes])

    def formula(self, expr: sympy.Expr) -> str:
        """A scalar sympy expression applied elementwise (the target's sympy printer)."""
        raise NotImplementedError


def _listed(texts) -> str:
    texts = list(texts)
    return f"{texts[0]}," if len(texts) == 1 else ", ".join(texts)


def _special_atoms(expr: sympy.Expr) -> set[sympy.Expr]:
    """The special functions in ``expr`` the array printers call from their special
    module (:data:`~dgraph.blocks.array_extra.SPECIAL_CALLS`)."""
    return {f for f in expr.atoms(sympy.Function) if type(f).__name__ in SPECIAL_CALLS}


def _matmul(node: Node) -> bool:
    """An ``einsum`` of two operands, no keywords but ``optimize``, whose subscripts are
    ``numpy.matmul``'s (:func:`~dgraph.blocks.arrays.is_matmul`)."""
    args = node.args  # type: ignore[attr-defined]
    if len(args) != 3 or not isinstance(args[0], Const) or not isinstance(args[0].value, str):
        return False
    if any(k != "optimize" for k, _ in node.keywords):  # type: ignore[attr-defined]
        return False
    return is_matmul(args[0].value)


def _is_slice(node: Node) -> bool:
    return type(node).__name__ == "Slice"
