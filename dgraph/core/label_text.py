"""Labels as text and LaTeX at any depth.

An expression set's labels are sums and products of edge symbols and references. On a
chain of 10⁴ statements a Horner-like sum nests as deep as the chain, and sympy's
printers recurse per level (with ``sort_key`` inside): 1,000 statements exceeded
Python's recursion limit in ``dgraph accumulate``. Labels up to :data:`SHALLOW` levels
deep are printed by sympy as before; deeper ones by the loop below, which prints sums,
products, powers and numbers the way sympy's printers do, bottom up with no recursion.
Where sympy must work on the labels themselves (code generation substitutes into them),
:func:`split_deep` names their deep parts first.

>>> from dgraph.core.algebra import nc_product, nc_sum, nc_symbol
>>> a, b, c = (nc_symbol(n) for n in "abc")
>>> e = nc_sum(a, nc_product(b, nc_sum(c, -a)))
>>> label_str(e) == sympy.sstr(e), flat_str(e)
(True, 'a + b*(c - a)')
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping

import sympy

from .algebra import nc_rebuilt, nc_symbol

__all__ = [
    "SHALLOW",
    "depth",
    "flat_latex",
    "flat_str",
    "label_latex",
    "label_str",
    "split_deep",
]

SHALLOW = 60  # levels sympy's printers take safely (some 15 frames a level)

_ADD, _MUL, _POW, _ATOM = 40, 50, 60, 1000  # sympy's precedences


def depth(expr: sympy.Basic) -> int:
    """Levels of ``expr``'s tree (an atom: 1), without recursion, each shared
    subexpression walked once."""
    levels: dict[int, int] = {}
    stack = [(expr, False)]
    while stack:
        e, done = stack.pop()
        if id(e) in levels:
            continue
        if done or not e.args:
            levels[id(e)] = 1 + max((levels[id(a)] for a in e.args), default=0)
        else:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if id(a) not in levels)
    return levels[id(expr)]


def label_str(expr: sympy.Basic) -> str:
    """``sympy.sstr(expr)``, or :func:`flat_str` where ``expr`` is too deep for it."""
    return sympy.sstr(expr) if depth(expr) <= SHALLOW else flat_str(expr)


def label_latex(expr: sympy.Basic, symbol_names: Mapping[sympy.Basic, str]) -> str:
    """``sympy.latex(expr, symbol_names=...)``, or :func:`flat_latex` where too deep."""
    if depth(expr) <= SHALLOW:
        return sympy.latex(expr, symbol_names=symbol_names)
    return flat_latex(expr, symbol_names)


def flat_str(expr: sympy.Basic) -> str:
    """``expr`` as sympy's ``sstr`` prints a noncommutative label (terms and factors in
    the order held), without recursion."""
    return _printed(expr, sympy.sstr, "*", "-", "(", ")", lambda b, e: _Rope((b, "**", e)))


def flat_latex(expr: sympy.Basic, symbol_names: Mapping[sympy.Basic, str]) -> str:
    """``expr`` as ``sympy.latex`` prints a noncommutative label, without recursion."""

    def atom(e: sympy.Basic) -> str:
        return symbol_names.get(e) or sympy.latex(e)

    def power(b: _Text, e: _Text) -> _Rope:
        return _Rope((b, "^{", e, "}"))

    return _printed(expr, atom, " ", "- ", r"\left(", r"\right)", power)


class _Rope:
    """A text made of pieces, each a string or a rope, written out once at the end: a
    label nested n deep held as strings copies each level's text into the next (n²
    characters: 47 of 290 s of ``accumulate`` of a sum of 8,000 terms). ``head``: its
    first two characters, all a sign test or the dropping of a sign needs."""

    __slots__ = ("head", "parts")

    def __init__(self, parts: Iterable[_Text]) -> None:
        self.parts = tuple(p for p in parts if p != "")
        head = ""
        for p in self.parts:
            head += _head(p)
            if len(head) >= 2:
                break
        self.head = head[:2]


_Text = str | _Rope


def _head(t: _Text) -> str:
    return t[:2] if isinstance(t, str) else t.head


def _joined(sep: str, texts: list[_Text]) -> _Rope:
    return _Rope(
        itertools.chain.from_iterable((sep, t) if k else (t,) for k, t in enumerate(texts))
    )


def _dropped(t: _Text, k: int) -> _Text:
    """``t`` without its first ``k`` (at most two) characters."""
    if isinstance(t, str):
        return t[k:]
    parts = list(t.parts)
    while k and parts:
        first = parts.pop(0)
        if isinstance(first, str):
            parts[0:0] = [first[k:]] if len(first) > k else []
            k -= min(k, len(first))
        else:
            parts[0:0] = first.parts
    return _Rope(parts)


def _written(t: _Text) -> str:
    """The rope's text, without recursion."""
    out, stack = [], [t]
    while stack:
        p = stack.pop()
        if isinstance(p, str):
            out.append(p)
        else:
            stack.extend(reversed(p.parts))
    return "".join(out)


def _printed(
    expr: sympy.Basic,
    atom: Callable[[sympy.Basic], str],
    times: str,
    minus: str,
    left: str,
    right: str,
    power: Callable[[_Text, _Text], _Text],
) -> str:
    """Bottom up: each node's text (a :class:`_Rope` past an atom), its precedence, and
    whether it is a sum (``minus``: the sign of a negative product, sympy's ``-`` in
    text, ``- `` in LaTeX)."""
    done: dict[int, tuple[_Text, int, bool]] = {}

    def inner(a: sympy.Basic, level: int) -> _Text:
        text, prec, _ = done[id(a)]
        return text if prec >= level else _Rope((left, text, right))

    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in done:
            continue
        if not ready and e.args and (e.is_Add or e.is_Mul or e.is_Pow):
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if id(a) not in done)
            continue
        if e.is_Add:
            out: list[_Text] = []
            for i, a in enumerate(e.args):
                text, _, is_sum = done[id(a)]
                # a first term -(b + c) is the product's own text (sympy's LaTeX: "- (")
                if i and a.is_Mul and len(a.args) == 2 and a.args[0] == -1 and a.args[1].is_Add:
                    out += ["-", _Rope((left, done[id(a.args[1])][0], right))]  # a - (b + c)
                    continue
                sign = "+"
                if _head(text).startswith("-") and not is_sum:
                    sign = "-"
                    text = _dropped(text, len(minus) if _head(text).startswith(minus) else 1)
                out += [sign, text]
            first = out.pop(0)
            done[id(e)] = (_Rope((minus if first == "-" else "", _joined(" ", out))), _ADD, True)
        elif e.is_Mul:
            coefficient, factors = e.args[0], list(e.args[1:])
            if not coefficient.is_Number:
                coefficient, factors = sympy.S.One, list(e.args)
            sign = minus if coefficient.is_negative else ""
            coefficient = -coefficient if sign else coefficient
            texts: list[_Text] = [] if coefficient is sympy.S.One else [atom(coefficient)]
            if sign and not texts and len(factors) == 1 and factors[0].is_Add:
                texts = [_Rope(("(", done[id(factors[0])][0], ")"))]  # -(a + b), LaTeX too
            else:
                texts += [inner(f, _MUL) for f in factors]
            done[id(e)] = (_Rope((sign, _joined(times, texts))), _MUL, False)
        elif e.is_Pow:
            done[id(e)] = (power(inner(e.base, _POW), inner(e.exp, _POW)), _POW, False)
        else:
            text = atom(e)
            prec = _ADD if text.startswith("-") else _MUL if "/" in text else _ATOM
            done[id(e)] = (text, prec, False)
    return _written(done[id(expr)][0])


def split_deep(
    references: Mapping[sympy.Symbol, sympy.Expr],
    entries: Mapping[tuple[str, str], sympy.Expr],
    most: int = 40,
) -> tuple[dict[sympy.Symbol, sympy.Expr], dict[tuple[str, str], sympy.Expr]]:
    """The same references and entries, no label deeper than ``most`` levels: each
    subexpression that reaches it is named as a new reference (``rd1``, ``rd2``, ...,
    before its first user), bottom up without recursion. What sympy does to a label
    (substitution, common subexpressions, printing code) recurses per level; the
    computation is the same, its temporaries named."""
    taken = {str(r) for r in references}
    fresh = (f"rd{k}" for k in itertools.count(1))
    out: dict[sympy.Symbol, sympy.Expr] = {}

    def shallow(expr: sympy.Expr) -> sympy.Expr:
        done: dict[int, tuple[sympy.Expr, int]] = {}
        stack = [(expr, False)]
        while stack:
            e, ready = stack.pop()
            if id(e) in done:
                continue
            if not e.args or not (e.is_Add or e.is_Mul or e.is_Pow):
                done[id(e)] = (e, 1)
                continue
            if not ready:
                stack.append((e, True))
                stack.extend((a, False) for a in reversed(e.args) if id(a) not in done)
                continue
            new = nc_rebuilt(e, [done[id(a)][0] for a in e.args])
            level = 1 + max(done[id(a)][1] for a in e.args)
            if level >= most and e is not expr:
                name = nc_symbol(next(n for n in fresh if n not in taken))
                out[name] = new
                new, level = name, 1
            done[id(e)] = (new, level)
        return done[id(expr)][0]

    for r, definition in references.items():
        out[r] = shallow(definition)
    return out, {k: shallow(e) for k, e in entries.items()}
