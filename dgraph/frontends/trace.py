"""Evaluation traces: one assignment per line in sympy syntax.

    inputs: x0, x1
    outputs: y
    v1 = sin(x1)
    v2 = x0*v1
    y = v2*v1

``#`` starts a comment. A variable may be assigned more than once (each assignment is a
new value, as in single-assignment form). Granularity ``elemental`` makes every sympy
operation node a vertex (n-ary sums and products stay n-ary); ``binary`` splits those
into two-operand vertices, as an operator-overloading tape records them; ``statement``
makes every assignment one vertex.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable
from typing import Literal

from ..core.algebra import real_symbol
from ..core.graph import DGraph
from ..core.parse import RESERVED, parse_template
from ..errors import InputError
from .elemental import ExprGraphBuilder, Value, gc_paused

__all__ = ["GRANULARITIES", "Granularity", "from_trace"]

Granularity = Literal["elemental", "binary", "statement"]
GRANULARITIES = ("elemental", "binary", "statement")
_HEADER = re.compile(r"\s*(inputs|outputs|parameters)\s*:(.*)\Z")
_ASSIGN = re.compile(r"\s*([A-Za-z_]\w*)\s*=(?!=)(.*)\Z")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# a statement whose name is not one (non-ASCII letters, a digit first): named in the error
_ANY_ASSIGN = re.compile(r"\s*([^\s=]+)\s*=(?!=)")


def _names(text: str, where: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        _check_name(n, where)
    if len(set(names)) != len(names):
        raise InputError(f"{where}: a name is listed twice")
    return names


def _check_name(name: str, where: str) -> None:
    shown = name if len(name) <= 40 else name[:40] + "…"
    if not _NAME.match(name):
        raise InputError(
            f"{where}: {shown!r} is not a valid variable name (ASCII letters, digits and _,"
            " not a digit first)"
        )
    if keyword.iskeyword(name) or name in RESERVED:
        raise InputError(f"{where}: {name!r} is reserved and cannot name a variable")


def from_trace(
    text: str,
    granularity: Granularity = "elemental",
    source: str = "<trace>",
    name: str = "",
    params: Iterable[str] = (),
) -> DGraph:
    """Build a differentiation graph from an evaluation trace: ``inputs:`` and
    ``outputs:`` lines, then one assignment per line.

    Parameters
    ----------
    text
        The trace.
    granularity
        ``"elemental"``: a vertex per elemental operation; ``"statement"``: a vertex per
        line, its partials differentiated from the whole right-hand side.
    source
        Named in error messages.
    name
        The graph's name.
    params
        Names the statements use without assigning them that are parameters (values fixed
        when the function runs; the Jacobian has no column for them), beside those of a
        ``parameters:`` line.

    Returns
    -------
    DGraph

    Raises
    ------
    InputError
        A line outside the grammar (statements are parsed, never evaluated), an unknown
        name, or an output never assigned; one line naming the line.

    Examples
    --------
    >>> g = from_trace("inputs: x0, x1\\noutputs: y\\nv1 = sin(x1)\\nv2 = x0*v1\\ny = v2*v1")
    >>> g.intermediates, g.n_edges
    (['v1', 'v2'], 5)
    """
    if granularity not in GRANULARITIES:
        raise InputError(f"unknown granularity {granularity!r}: use elemental, binary or statement")
    with gc_paused():
        return _from_trace(text, granularity, source, name, list(params))


def _from_trace(
    text: str, granularity: Granularity, source: str, name: str, params: list[str]
) -> DGraph:
    inputs: list[str] | None = None
    outputs: list[str] | None = None
    parameters = list(params)
    builder: ExprGraphBuilder | None = None
    env: dict[str, Value] = {}  # the symbol table: what each name stands for now
    assigned: set[str] = set()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        where = f"{source}:{lineno}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        header = _HEADER.match(line)
        if header:
            key, names = header.group(1), _names(header.group(2), where)
            if key == "parameters":
                if builder is not None:
                    raise InputError(f"{where}: 'parameters:' must come before 'inputs:'")
                parameters += names
                continue
            if (inputs if key == "inputs" else outputs) is not None:
                raise InputError(f"{where}: '{key}:' is given twice")
            if key == "inputs":
                if builder is not None:
                    raise InputError(f"{where}: 'inputs:' must come before the first assignment")
                inputs = names
                clash = set(inputs) & set(parameters)
                if clash or len(set(parameters)) != len(parameters):
                    twice = sorted(clash) or [p for p in parameters if parameters.count(p) > 1]
                    raise InputError(f"{where}: {twice[0]!r} is given twice (input or parameter)")
                builder = ExprGraphBuilder(
                    inputs, source, granularity == "binary", tuple(parameters)
                )
                env = dict(zip(inputs, builder.inputs, strict=True))
                env.update((p, real_symbol(p)) for p in parameters)
            else:
                outputs = names
            continue
        assign = _ASSIGN.match(line)
        if not assign:
            named = _ANY_ASSIGN.match(line)
            if named:
                _check_name(named.group(1), where)
            raise InputError(f"{where}: expected 'name = expression', got {line!r}")
        if builder is None:
            raise InputError(f"{where}: 'inputs:' must come before the first assignment")
        var, rhs = assign.group(1), assign.group(2)
        _check_name(var, where)
        template, bound = parse_template(rhs, env, where)
        builder.where = where
        if granularity == "statement":
            value = builder.statement_of(template, bound)
        else:
            value = builder.elemental_of(template, bound)
        builder.prefer_name(value, var)
        env[var] = value
        assigned.add(var)
    if inputs is None:
        raise InputError(f"{source}: no 'inputs:' line")
    if not outputs:
        raise InputError(f"{source}: no 'outputs:' line")
    assert builder is not None
    builder.where = source
    for y in outputs:
        if y not in assigned and y in inputs:
            raise InputError(
                f"{source}: output {y!r} is an input: an output is computed (assign a copy,"
                f" e.g. '{y}_out = {y}', and list that)"
            )
        if y not in assigned:
            raise InputError(f"{source}: output {y!r} is never assigned")
    return builder.build([(y, env[y]) for y in outputs], name)
