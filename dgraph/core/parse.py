"""A restricted parser for the expressions users give as text: trace statements, JSON
vertex expressions and labels.

sympy's ``parse_expr`` evaluates Python, so a trace line such as
``y = x*__import__("os").system(...)`` would run code. This parser evaluates nothing: it
reads numbers, declared names, a whitelist of constants and functions, the arithmetic
operators ``+ - * / ** ^`` and, for piecewise expressions, comparisons and ``& | ~``.
No attribute access, no indexing, no strings, no keyword arguments; calls only to the
functions in :data:`FUNCTIONS`. Operator chains are read with loops and nesting with an
explicit stack, not recursion, so a statement of thousands of terms parses; nesting
(parentheses, calls, unary signs) is limited to :data:`MAX_DEPTH`. Constants must be
finite and real: ``x/0`` and ``I*x`` are refused, as are numbers too large to evaluate.

>>> parse_expression("x0*sin(x1)^2 + 1e-3", {"x0", "x1"})
x0*sin(x1)**2 + 0.001
>>> parse_expression('x*__import__("os")', {"x"})
Traceback (most recent call last):
dgraph.errors.InputError: <expression>: cannot parse 'x*__import__("os")': unexpected character '"'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, KeysView, Mapping, Sequence

import sympy
from sympy.core.parameters import global_parameters
from sympy.printing.str import StrPrinter

from ..blocks.array_extra import SCIPY_NAMED, dawsn, exp1, expi, ndtri
from ..errors import InputError
from . import templates
from .algebra import real_symbol
from .elementary import (
    Logistic,
    RuleValue,
    StopGradient,
    expm1,
    isfinite,
    isinf,
    isnan,
    log1p,
    rint,
)
from .nesting import run_nested

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "RESERVED",
    "Template",
    "format_expression",
    "parse_expression",
    "parse_template",
    "vertex_names",
]

MAX_DEPTH = 100  # nested parentheses, calls and unary signs
MAX_LENGTH = 2_000_000  # characters in one expression
MAX_BITS = 4096  # an exact constant computed while parsing (10**19 is fine, 2**10**10 not)
SHOWN = 60  # characters of the text repeated in an error message

_SYMPY_FUNCTIONS = (
    "sin",
    "cos",
    "tan",
    "cot",
    "sec",
    "csc",
    "asin",
    "acos",
    "atan",
    "acot",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "coth",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "log",
    "sqrt",
    "cbrt",
    "Abs",
    "sign",
    "Max",
    "Min",
    "erf",
    "erfc",
    "gamma",
    "loggamma",
    "floor",
    "ceiling",
    "Mod",
    "Heaviside",
    "besselj",
    "bessely",
    "besseli",
    "besselk",
    "elliptic_k",
    "elliptic_e",
    "Piecewise",
    "Eq",
    "Ne",
    "And",
    "Or",
    "Not",
)
MAX_POLYGAMMA = 100  # the largest order of polygamma the text may name


def _polygamma(order: sympy.Basic, x: sympy.Basic) -> sympy.Basic:
    """``polygamma(n, x)`` of a constant order ``n``, a whole number from 0 to
    :data:`MAX_POLYGAMMA`: the derivatives of ``loggamma`` are written so (a graph's
    labels and its Hessian graph's vertices), and no derivative in ``n`` exists."""
    if not (isinstance(order, sympy.Number) and order.is_integer and 0 <= order <= MAX_POLYGAMMA):
        raise _Fail(f"polygamma's order must be a whole number from 0 to {MAX_POLYGAMMA}")
    return sympy.polygamma(sympy.Integer(int(order)), x)


def _digamma(x: sympy.Basic) -> sympy.Basic:
    """``digamma(x)``, ``polygamma(0, x)``: the derivative of ``loggamma``."""
    return sympy.polygamma(0, x)


FUNCTIONS: dict[str, Callable[..., sympy.Basic]] = {
    **{name: getattr(sympy, name) for name in _SYMPY_FUNCTIONS},
    "abs": sympy.Abs,
    "max": sympy.Max,
    "min": sympy.Min,
    "ln": sympy.log,
    "lgamma": sympy.loggamma,
    "polygamma": _polygamma,
    "digamma": _digamma,
    "stop_gradient": StopGradient,
    "rule_value": RuleValue,
    "expm1": expm1,
    "log1p": log1p,
    "erfinv": sympy.erfinv,
    "ndtri": ndtri,
    "exp1": exp1,
    "expi": expi,
    "dawsn": dawsn,
    **{f.__name__: f for f in SCIPY_NAMED},
    "logistic": Logistic,
    "isfinite": isfinite,
    "isnan": isnan,
    "isinf": isinf,
    "rint": rint,
}
CONSTANTS: dict[str, sympy.Basic] = {
    "pi": sympy.pi,
    "E": sympy.E,
    "True": sympy.true,
    "False": sympy.false,
}
# names that cannot be vertex names: they would read back as constants
RESERVED = frozenset(CONSTANTS)


def vertex_names(names: Sequence[str]) -> dict[str, str]:
    """A function's parameter names as the vertex names its graph gives them: each its
    own, a reserved one (``E``, ``pi``: they would read back as constants) with ``_``
    appended until no other parameter has that name."""
    taken = set(names)
    renamed = {}
    for name in names:
        vertex = name
        if name in RESERVED:
            while vertex in taken:
                vertex += "_"
            taken.add(vertex)
        renamed[name] = vertex
    return renamed


_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>\*\*|<=|>=|==|!=|[-+*/^(),<>&|~]))"
)
_COMPARE = {
    "<": sympy.StrictLessThan,
    "<=": sympy.LessThan,
    ">": sympy.StrictGreaterThan,
    ">=": sympy.GreaterThan,
    "==": sympy.Eq,
    "!=": sympy.Ne,
}


class _Fail(Exception):
    """A parse error; the message says what, :func:`parse_expression` says where."""


class _Unknown(_Fail):
    """A name or function outside what the text may use (said without echoing it)."""


class _Tuple(tuple):
    """A parenthesized tuple: only an argument of Piecewise, never a value."""


def parse_expression(
    text: str, names: Collection[str] | None = None, where: str = "<expression>"
) -> sympy.Expr:
    """The sympy expression ``text`` denotes, over the real symbols ``names`` (any
    identifier when ``names`` is None); one-line :class:`InputError` otherwise."""
    if names is not None:
        lookup = names if isinstance(names, (set, frozenset, dict, KeysView)) else set(names)
        found = _template(text, lookup, {})
        if found is not None:
            template, symbols = found
            return template.instantiate([real_symbol(name) for name in symbols])
    return _parse_slowly(text, names, where)


def _parse_slowly(text: str, names: Collection[str] | None, where: str) -> sympy.Expr:
    """:func:`parse_expression` without templates: it says what is wrong with ``text``."""
    shown = text.strip() if len(text.strip()) <= SHOWN else text.strip()[:SHOWN] + "…"
    if len(text) > MAX_LENGTH:
        raise InputError(f"{where}: expression of {len(text)} characters is too long")
    try:
        expr = _parse(_tokens(text), names)
    except _Unknown as exc:
        raise InputError(f"{where}: {exc}") from None
    except _Fail as exc:
        raise InputError(f"{where}: cannot parse {shown!r}: {exc}") from None
    problem = _unusable(expr)
    if problem:
        raise InputError(f"{where}: {shown!r} {problem}")
    return expr


def _parse(
    tokens: list[tuple[str, str]],
    names: Collection[str] | None,
    symbols: Mapping[str, sympy.Symbol] | None = None,
) -> sympy.Basic:
    return _Parser(tokens, names, symbols).parse()


class Template:
    """A parsed expression as a template: canonical over the rank symbols of
    :mod:`dgraph.core.templates`, ``RANK[k]`` standing for the ``k``-th smallest of the
    names the text uses (names bound to constants already replaced by their values)."""

    __slots__ = ("_recipe", "expr", "free", "program")

    def __init__(self, expr: sympy.Expr) -> None:
        self.expr = expr
        self.free = templates.rank_symbols_of(expr)
        self.program = None  # the elemental builder's walk, kept here by it
        self._recipe: templates.Recipe | None = None

    def instantiate(self, symbols: list[sympy.Symbol]) -> sympy.Expr:
        """The expression with ``RANK[k]`` read as ``symbols[k]``, without evaluating."""
        if self._recipe is None:
            self._recipe = templates.recipe(self.expr)
        return self._recipe(symbols)


_TEMPLATES: dict[tuple, Template] = {}
templates.CACHES.append(_TEMPLATES)


def parse_template(
    text: str, bindings: Mapping[str, object], where: str
) -> tuple[Template, list[object]]:
    """``text`` as a :class:`Template` over the names ``bindings`` holds, and per rank the
    object the name is bound to. A name bound to a sympy expression is a constant: its
    value is put in (as ``xreplace`` would). One-line :class:`InputError` otherwise.

    >>> t, bound = parse_template("sin(b)*a + 0.5*b", {"a": 0, "b": 1}, "<line>")
    >>> t.expr.subs(dict(zip(t.free, sympy.symbols("a b", real=True)))), bound
    (a*sin(b) + 0.5*b, [0, 1])
    """
    found = _template(text, bindings, bindings, where)
    if found is None:  # the text has a fault: say it as parse_expression does
        expr = _parse_slowly(text, bindings, where)
        # no fault after all: sympy built it over the names but not over rank symbols
        names = sorted(s.name for s in expr.free_symbols)
        order = range(len(names))
        expr = expr.xreplace(
            {real_symbol(v): templates.rank_symbol(r) for r, v in enumerate(names)}
        )
        constants = tuple(
            (r, bindings[v])
            for r, v in zip(order, names, strict=True)
            if isinstance(bindings[v], sympy.Basic)
        )
        if constants:
            expr = _put_constants(expr, constants, text, where)
        found = Template(expr), names
    template, names = found
    return template, [bindings[name] for name in names]


def _template(
    text: str,
    lookup: Collection[str],
    bindings: Mapping[str, object],
    where: str = "",
) -> tuple[Template, list[str]] | None:
    """The template of ``text`` and its names in rank order; None when the text has a
    fault (the caller parses it slowly to say which)."""
    if len(text) > MAX_LENGTH:
        return None
    shape, variables = _shape(text, lookup)
    if shape is None:
        return None
    order = templates.ranks(variables) if variables else ()
    constants = tuple(
        (r, bindings[v])
        for v, r in zip(variables, order, strict=True)
        if isinstance(bindings.get(v), sympy.Basic)
    )
    key = (shape, order, constants, global_parameters.evaluate)
    template = _TEMPLATES.get(key)
    if template is None:
        table = {v: templates.rank_symbol(r) for v, r in zip(variables, order, strict=True)}
        try:
            expr = _parse(_tokens(text), None, table)
        except _Fail:
            return None
        if _unusable(expr):
            return None
        if constants:
            expr = _put_constants(expr, constants, text, where)
        if len(_TEMPLATES) >= templates.CACHE_LIMIT:
            _TEMPLATES.clear()
        template = _TEMPLATES[key] = Template(expr)
    by_rank = [""] * len(variables)
    for v, r in zip(variables, order, strict=True):
        by_rank[r] = v
    return template, by_rank


def _put_constants(expr: sympy.Basic, constants: tuple, text: str, where: str) -> sympy.Expr:
    """``expr`` with the rank symbols of names bound to constants replaced by the values."""
    shown = text.strip() if len(text.strip()) <= SHOWN else text.strip()[:SHOWN] + "…"
    try:
        expr = expr.xreplace({templates.rank_symbol(r): value for r, value in constants})
    except Exception as exc:  # sympy raises ValueError, TypeError, ... for bad arguments
        detail = str(exc).splitlines()[0][:SHOWN] if str(exc) else type(exc).__name__
        raise InputError(f"{where}: {shown!r} with its names' constant values: {detail}") from None
    problem = _unusable(expr)
    if problem:
        raise InputError(f"{where}: {shown!r} with its names' constant values {problem}")
    return expr


# numbers and names, as the tokenizer reads them (a number first: 1e5 is no name e5)
_WORD = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|([A-Za-z_]\w*)(\s*\(?)")


def _shape(text: str, lookup: Collection[str]) -> tuple[tuple | None, list[str]]:
    """The key of ``text``'s template: the text with each name read as a variable replaced
    by its first occurrence's index, and those names; None for an unknown name. Texts with
    one key are the same tokens but for the variables' names (whatever they are: a text
    that does not parse gets no template, and is parsed alone to say why)."""
    key: list[str | int] = []
    variables: list[str] = []
    slot: dict[str, int] = {}
    pos = 0
    for match in _WORD.finditer(text):
        name, call = match.group(1, 2)
        if name is None or call.endswith("("):  # a number, or a function's name
            continue
        if name in lookup:
            k = slot.get(name)
            if k is None:
                k = slot[name] = len(variables)
                variables.append(name)
            key.append(text[pos : match.start()])
            key.append(k)
            pos = match.end(1)
        elif name not in CONSTANTS:
            return None, variables
    key.append(text[pos:])
    return tuple(key), variables


class _RoundTripPrinter(StrPrinter):
    """sympy's str printer, with doubles in the shortest form that reads back exactly."""

    def _print_Float(self, expr: sympy.Float) -> str:
        if expr._prec == 53:  # a double: Python's repr round-trips it
            text = repr(float(expr))
            return text if any(c in text for c in ".en") else text + ".0"
        return super()._print_Float(expr)


def format_expression(expr: sympy.Expr) -> str:
    """Text that :func:`parse_expression` reads back as ``expr`` (doubles exactly).

    sympy's printer orders terms and factors by comparing names, so an expression prints
    like any other of the same shape whose names sort the same way, renamed: the text is
    printed once per shape and name order and then only renamed (sympy's printer is the
    slow part of writing a graph's JSON).

    >>> x = sympy.Symbol("x", real=True)
    >>> format_expression(sympy.Float(0.1) * x + sympy.Float(1 / 3))
    '0.1*x + 0.3333333333333333'
    """
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    if not symbols or not all(
        s.assumptions0 == _REAL_ASSUMPTIONS
        and _IDENTIFIER.fullmatch(s.name)
        and s.name not in _PRINTED_CONSTANTS
        for s in symbols
    ):
        return _RoundTripPrinter().doprint(expr)
    rank = {s: k for k, s in enumerate(symbols)}
    key = _printed_shape(expr, rank)
    template = _PRINTED.get(key)
    if template is None:
        text = _RoundTripPrinter().doprint(expr)
        number = {s.name: k for s, k in rank.items()}
        template = _NAME.sub(
            lambda m: f"\0{number[m.group()]}\0" if m.group() in number else m.group(), text
        )
        if _PLACEHOLDER.sub(lambda m: symbols[int(m.group(1))].name, template) != text:
            return text  # a name the renaming cannot find again: printed each time
        if len(_PRINTED) >= _PRINTED_LIMIT:
            _PRINTED.clear()
        _PRINTED[key] = template
    return _PLACEHOLDER.sub(lambda m: symbols[int(m.group(1))].name, template)


_REAL_ASSUMPTIONS = sympy.Symbol("x", real=True).assumptions0
_PRINTED: dict[tuple, str] = {}  # shape -> text with \0k\0 for the k-th name in order
_PRINTED_LIMIT = 50_000
# names sympy prints for its own constants: a symbol so named is printed each time
_PRINTED_CONSTANTS = frozenset({"E", "I", "pi", "oo", "zoo", "nan", "EulerGamma", "Catalan"})
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*", re.ASCII)
# a name as printed: not inside a number (1e-05), not a function's (followed by "(")
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?![\w(])", re.ASCII)
_PLACEHOLDER = re.compile("\0(\\d+)\0")


def _printed_shape(expr: sympy.Basic, rank: dict[sympy.Symbol, int]) -> tuple:
    """The expression with every symbol replaced by its rank among the expression's names,
    numbers by their exact content: equal shapes print alike up to renaming."""
    if not isinstance(expr, sympy.Basic):  # a raw argument (a function class's name)
        return ("raw", expr)
    if expr.is_Symbol:
        return ("s", rank[expr])
    if not expr.args:
        return (type(expr), expr._hashable_content())
    return (type(expr), tuple(_printed_shape(a, rank) for a in expr.args))


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    for match in _TOKEN.finditer(text):  # the common case, at the regex engine's pace
        if match.start() != pos:
            break
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    if pos == len(text.rstrip()):
        return tokens
    tokens, pos = [], 0  # again, to say where it goes wrong
    end = len(text.rstrip())
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise _Fail(f"unexpected character {text[pos + _skip(text, pos)]!r}")
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


def _skip(text: str, pos: int) -> int:
    """Offset of the first non-blank character at or after ``pos``."""
    return len(text[pos:]) - len(text[pos:].lstrip())


def _unusable(expr: sympy.Basic) -> str | None:
    """Why ``expr`` cannot be a real-valued vertex function, or None."""
    if not isinstance(expr, sympy.Expr):
        return "is not an arithmetic expression"
    if expr.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):
        return "is not finite (a division by zero, or an infinite or undefined constant)"
    if expr.has(sympy.I):
        return "is complex; dgraph's variables are real"
    for number in expr.atoms(sympy.Number):
        if not _fits_double(number):
            return f"has the constant {_short(number)}, beyond a double's range"
    return None


def _fits_double(number: sympy.Number) -> bool:
    try:
        return math.isfinite(float(number))
    except (OverflowError, ValueError):
        return False


def _short(number: sympy.Number) -> str:
    text = str(number)
    return text if len(text) <= 24 else f"{text[:10]}…({len(text)} digits)"


class _Parser:
    """Precedence climbing over the tokens; binary chains are loops, and each rule is a
    generator run by :func:`~dgraph.core.nesting.run_nested` (``value = yield rule()``
    reads a nested rule)."""

    def __init__(
        self,
        tokens: list[tuple[str, str]],
        names: Collection[str] | None,
        symbols: Mapping[str, sympy.Symbol] | None = None,
    ) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.trailing_comma = False
        if names is None or isinstance(names, (set, frozenset, dict, KeysView)):
            self.names = names
        else:
            self.names = set(names)
        self.symbols = symbols  # names read as given symbols (templates), not by name

    # -- tokens ---------------------------------------------------------------------

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, op: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise _Fail("unexpected end" + (f"; expected {op!r}" if op else ""))
        if op is not None and token != ("op", op):
            raise _Fail(f"expected {op!r}, got {token[1]!r}")
        self.pos += 1
        return token

    def at(self, *ops: str) -> str | None:
        token = self.peek()
        return token[1] if token is not None and token[0] == "op" and token[1] in ops else None

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail(f"nested more than {MAX_DEPTH} levels deep")

    # -- grammar, loosest first ---------------------------------------------------------

    def parse(self) -> sympy.Basic:
        if not self.tokens:
            raise _Fail("empty expression")
        value = run_nested(self.disjunction())
        if self.peek() is not None:
            raise _Fail(f"unexpected {self.peek()[1]!r}")
        if isinstance(value, _Tuple):
            raise _Fail("a tuple is not an expression")
        return value

    def disjunction(self):
        terms = [(yield self.conjunction())]
        while self.at("|"):
            self.take()
            terms.append((yield self.conjunction()))
        return terms[0] if len(terms) == 1 else _build(sympy.Or, terms)

    def conjunction(self):
        terms = [(yield self.negation())]
        while self.at("&"):
            self.take()
            terms.append((yield self.negation()))
        return terms[0] if len(terms) == 1 else _build(sympy.And, terms)

    def negation(self):
        if self.at("~"):
            self.take()
            self.nest()
            value = _build(sympy.Not, [(yield self.negation())])
            self.depth -= 1
            return value
        return (yield self.comparison())

    def comparison(self):
        left = yield self.sum()
        op = self.at(*_COMPARE)
        if op is None:
            return left
        self.take()
        right = yield self.sum()
        if self.at(*_COMPARE):
            raise _Fail("chained comparisons are not supported; use &")
        return _build(_COMPARE[op], [left, right])

    def sum(self):
        terms = [(yield self.product())]
        while (op := self.at("+", "-")) is not None:
            self.take()
            term = yield self.product()
            terms.append(term if op == "+" else _build(sympy.Mul, [sympy.S.NegativeOne, term]))
        return terms[0] if len(terms) == 1 else _build(sympy.Add, terms)

    def product(self):
        leaf = self._leaf(power=False)
        factors = [leaf if leaf is not None else (yield self.unary())]
        while (op := self.at("*", "/")) is not None:
            self.take()
            leaf = self._leaf(power=False)
            factor = leaf if leaf is not None else (yield self.unary())
            factors.append(factor if op == "*" else _power(factor, sympy.S.NegativeOne))
        return factors[0] if len(factors) == 1 else _build(sympy.Mul, factors)

    def unary(self):
        op = self.at("+", "-")
        if op is None:
            return (yield self.power())
        self.take()
        self.nest()
        value = yield self.unary()
        self.depth -= 1
        return value if op == "+" else _build(sympy.Mul, [sympy.S.NegativeOne, value])

    def _leaf(self, power: bool = True):
        """A number or a name not called (nor, unless ``power``, raised to a power), taken;
        else None. Most factors are such leaves: they need no nested rule."""
        token = self.peek()
        if token is None or token[0] == "op":
            return None
        following = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
        if following is not None and following[0] == "op":
            if following[1] == "(" and token[0] == "name":
                return None
            if not power and following[1] in ("**", "^"):
                return None
        self.pos += 1
        return _number(token[1]) if token[0] == "number" else self.name(token[1])

    def power(self):
        leaf = self._leaf()
        operands = [leaf if leaf is not None else (yield self.atom())]
        while self.at("**", "^"):
            self.take()
            if self.at("+", "-"):  # x**-2: the exponent's own sign
                op = self.take()[1]
                self.nest()
                exponent = yield self.power()
                self.depth -= 1
                operands.append(
                    exponent if op == "+" else _build(sympy.Mul, [sympy.S.NegativeOne, exponent])
                )
                break
            leaf = self._leaf()
            operands.append(leaf if leaf is not None else (yield self.atom()))
        value = operands[-1]
        for base in reversed(operands[:-1]):  # right-associative
            value = _power(base, value)
        return value

    def atom(self):
        token = self.take()
        kind, text = token
        if kind == "number":
            return _number(text)
        if kind == "name":
            if self.at("("):
                return (yield self.call(text))
            return self.name(text)
        if text == "(":
            self.nest()
            items = yield self.items(")")
            self.depth -= 1
            if len(items) == 1 and not self.trailing_comma:
                return items[0]
            return _Tuple(items)
        raise _Fail(f"unexpected {text!r}")

    def items(self, close: str) -> list:
        """Comma-separated expressions up to ``close`` (taken)."""
        items: list = []
        self.trailing_comma = False
        while not self.at(close):
            items.append((yield self.disjunction()))
            self.trailing_comma = False
            if self.at(","):
                self.take()
                self.trailing_comma = True
            elif not self.at(close):
                token = self.peek()
                raise _Fail(
                    f"expected ',' or {close!r}, got {token[1]!r}"
                    if token
                    else f"unexpected end; expected {close!r}"
                )
        self.take(close)
        return items

    def name(self, text: str):
        if self.symbols is not None:
            if text in self.symbols:
                return self.symbols[text]
        elif self.names is None or text in self.names:
            return real_symbol(text)
        if text in CONSTANTS:
            return CONSTANTS[text]
        if text in FUNCTIONS:
            raise _Unknown(  # y0, k1, … name functions too: a parameter so named is declared
                f"{text!r} is a function; call it as {text}(...), or declare a parameter of"
                " that name (--params, 'parameters:')"
            )
        raise _Unknown(f"unknown name {text!r} (a parameter? declare it: --params, 'parameters:')")

    def call(self, text: str):
        function = FUNCTIONS.get(text)
        if function is None:
            raise _Unknown(f"unknown function {text!r}")
        self.take("(")
        self.nest()
        args = yield self.items(")")
        self.depth -= 1
        if function is sympy.Piecewise:
            pieces = []
            for a in args:
                if not isinstance(a, _Tuple) or len(a) != 2:
                    raise _Fail("Piecewise takes (expression, condition) pairs")
                pieces.append(tuple(a))
            args = pieces
        elif any(isinstance(a, _Tuple) for a in args):
            raise _Fail(f"{text}() takes no tuples")
        if not args:
            raise _Fail(f"{text}() needs arguments")
        return _build(function, args, text)


def _number(text: str) -> sympy.Number:
    if re.fullmatch(r"\d+", text):
        if len(text) > MAX_BITS // 3:
            raise _Fail(f"the integer of {len(text)} digits is too large")
        return sympy.Integer(int(text))
    value = float(text)
    if not math.isfinite(value):
        raise _Fail(f"the number {text} is beyond a double's range")
    return sympy.Float(value)


def _power(base, exponent):
    """``base**exponent``, refusing exact constants too large to compute."""
    if isinstance(base, sympy.Rational) and isinstance(exponent, sympy.Rational):
        magnitude = max(abs(base.p), abs(base.q))
        if magnitude > 1 and abs(exponent) * math.log2(magnitude) > MAX_BITS:
            raise _Fail(f"the constant {base}**{exponent} is too large")
    # a Float power beyond a double's range is refused afterwards; keep mpmath quick
    floating = isinstance(base, sympy.Float) and isinstance(exponent, sympy.Number)
    if floating and abs(float(exponent)) > 1e6:
        raise _Fail(f"the constant {base}**{exponent} is too large")
    return _build(sympy.Pow, [base, exponent])


def _build(function, args, name: str | None = None):
    """``function(*args)``, with any failure of sympy's as one parse error."""
    if any(isinstance(a, _Tuple) for a in args) and function is not sympy.Piecewise:
        raise _Fail("a tuple is not an expression")
    try:
        return function(*args)
    except _Fail:
        raise
    except Exception as exc:  # sympy raises TypeError, ValueError, ... for bad arguments
        what = name or getattr(function, "__name__", "operation")
        detail = str(exc).splitlines()[0][:SHOWN] if str(exc) else type(exc).__name__
        raise _Fail(f"cannot apply {what} to these arguments ({detail})") from None
