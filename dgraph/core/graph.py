"""The differentiation graph: the one graph model every builder returns and every method reads.

Stored in data-flow direction (Naumann's c-graph): an edge ``u -> v`` means that ``v`` uses
``u``; its label is the local partial derivative ``c_vu = d phi_v / d u``.  Zhou's
differentiation graph is the same DAG read the other way (``v`` depends on ``u``); use
:meth:`DGraph.dependence` for that orientation.

Every edge has a *symbol*, the noncommutative sympy symbol ``d_<target>_<source>`` that
stands for its label in expression sets, and, when known, its *partial*: the actual local
derivative as a commutative sympy expression over vertex symbols.
"""

from __future__ import annotations

import functools
import keyword
import pickle
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Literal

import networkx as nx
import numpy as np
import sympy

from ..blocks import CONSTANT, GENERAL, ONES, Block, scalar_block
from ..blocks import add as add_blocks
from ..blocks.array_json import op_to_json
from ..blocks.arrays import ArrayOp, operand_block
from ..errors import GraphError
from . import extremes
from .algebra import nc_symbol, real_symbol
from .display import Printable
from .expand import EDGE_LIMIT, expand
from .parse import RESERVED, format_expression, parse_expression

__all__ = ["DGraph", "Role", "edge_symbol", "local_derivative", "vertex_symbol"]

Role = Literal["input", "intermediate", "output"]
ROLES: tuple[Role, ...] = ("input", "intermediate", "output")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def edge_symbol(source: str, target: str) -> sympy.Symbol:
    """The noncommutative symbol ``d_<target>_<source>`` naming the label of an edge."""
    return nc_symbol(f"d_{target}_{source}")


def vertex_symbol(vertex: str) -> sympy.Symbol:
    """The real symbol standing for a vertex's value in local expressions."""
    return real_symbol(vertex)


def local_derivative(expr: sympy.Expr, vertex: str) -> sympy.Expr:
    """d expr / d vertex as AD takes it: step functions (sign, Heaviside, floor, ceiling)
    have derivative zero, which holds everywhere but at their jumps; ``Mod(a, b)`` is
    ``a − b·floor(a/b)``."""
    x = vertex_symbol(vertex)
    if extremes.holds(
        expr, sympy.Mod
    ):  # a − b·floor(a/b), Python's modulo: derivatives 1 and −floor(a/b)
        expr = expr.replace(sympy.Mod, lambda a, b: a - b * sympy.floor(a / b))
    held = extremes.exponents_held(expr, (x,))
    if held is not expr:  # JAX's rule for a power's exponent at a zero base
        return extremes.powers_released(local_derivative(held, vertex))
    d = _elemental_derivative(expr, x)
    if d is None:
        d = _term_derivative(expr, x)
    if d is not None:
        return d
    d = _unary_derivative(expr, x)
    if d is None:
        d = _power_factor_derivative(expr, x)
    if d is None:
        d = _extreme_derivative(expr, x)
    if d is None:
        d = extremes.derivative(expr, x)
    d = extremes.steps_zeroed(d)
    if extremes.holds(
        d, sympy.Derivative
    ):  # a function sympy cannot differentiate (Mod of a product)
        left = next(e for e in sympy.preorder_traversal(d) if isinstance(e, sympy.Derivative))
        what = sympy.sstr(left.expr)
        raise GraphError(
            f"no derivative of {what[:80]} with respect to {vertex!r}: sympy leaves it"
            " unevaluated (write it with functions it differentiates, or read the function"
            " at the array level)"
        )
    return d


def _elemental_derivative(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """The derivative where ``x`` is one argument of a sum or product that no other
    argument contains (an elemental vertex): 1 or the other factors, as ``diff`` gives
    them, without its general machinery (the slow part of deriving a large graph's
    labels); else None."""
    if not (expr.is_Add or expr.is_Mul):
        return None
    direct, anywhere = _occurrences(expr)
    if direct.get(x) != 1 or anywhere.get(x) != 1:
        return None
    if expr.is_Add:
        return sympy.S.One
    k = expr.args.index(x)
    others = expr.args[:k] + expr.args[k + 1 :]
    return _product_of_others(others) if expr.is_commutative else sympy.Mul(*others)


def _product_of_others(others: tuple) -> sympy.Expr:
    """``Mul(*others)``, the arguments of a product but one, in sympy's canonical order:
    where they are symbols (after at most a leading coefficient) they combine with
    nothing, so they are the product's arguments as they stand (``Mul`` sorted and
    flattened them again: the partials of a 600-factor product took seconds, n²)."""
    if len(others) > 1 and all(a.is_Symbol for a in others[1 if others[0].is_Number else 0 :]):
        return sympy.Mul._from_args(others, True)
    return sympy.Mul(*others)


def _only_holder(args: tuple, x: sympy.Symbol) -> sympy.Expr | None:
    """The one of ``args`` that contains ``x``; None where none or several do."""
    found = None
    for a in args:
        if x in a.free_symbols:
            if found is not None:
                return None
            found = a
    return found


def _term_derivative(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """The derivative where ``x`` is a factor, once, of one term of a sum that no other
    term contains, the term's other factors symbols and numbers (an entry of a product
    with a matrix, ``w0*x0 + w1*x1``, as the element level expands it): the product of
    those factors, as ``diff`` gives it (the other terms' derivatives are zero, the
    product rule's other terms too), without its general machinery (most of the
    derivatives the element level of tests/peers/ leaves to ``diff``); else None."""
    if not expr.is_Add:
        return None
    found = _only_holder(expr.args, x)
    if found is None or not found.is_Mul:
        return None
    others = [f for f in found.args if f != x]
    if len(others) != len(found.args) - 1 or not all(f.is_Symbol or f.is_Number for f in others):
        return None
    return sympy.Mul(*others)


def _unary_derivative(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """The derivative of a function of ``x`` itself (``sin(x)``, ``x**3``) by the rule
    ``diff`` itself applies (the function's ``fdiff``; ``Pow``'s product), without its
    general machinery and the assumptions it asks of the result (a trace's elementary
    operations are mostly these); else None."""
    kind = type(expr)
    if expr.is_Pow:
        if expr.base != x or x in expr.exp.free_symbols:
            return None
        if expr.exp.is_Number:
            return expr * (expr.exp / expr.base)
        # a parameter's or another vertex's exponent: p*x**(p - 1), the array level's
        # rule, finite at x = 0 where diff's x**p*p/x is 0/0 (L-BFGS-B's x**p at x0 = 0)
        return expr.exp * sympy.Pow(x, expr.exp - 1)
    if (
        isinstance(expr, sympy.Function)
        and expr.args == (x,)
        and kind._eval_derivative is sympy.Function._eval_derivative
        and kind.fdiff is not sympy.Function.fdiff
    ):
        return expr.fdiff(1)
    return None


def _power_factor_derivative(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """The derivative of a product where ``x`` is in one factor only, that factor a power
    of ``x`` itself with a number for exponent (a quotient ``a/x``, ``1/(2*x)``): the
    other factors times ``n*x**(n-1)``, the product rule's one term as ``diff`` gives it,
    without its general machinery (most of what the element level of tests/peers/ left
    to ``diff``: a tenth of its labels' derivation time); else None."""
    if not expr.is_Mul:
        return None
    found = _only_holder(expr.args, x)
    if found is None or not found.is_Pow or found.base != x or not found.exp.is_Number:
        return None
    others = [a for a in expr.args if a is not found]
    if any(a.has(sympy.Max, sympy.Min) for a in others):  # diff rebuilds them: left to it
        return None
    n = found.exp
    return sympy.Mul(*others, n, sympy.Pow(x, n - 1))


def _extreme_derivative(expr: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """The derivative of a Max or Min of vertex symbols and numbers by ``x``, one of them,
    its ties shared as JAX shares them (:func:`dgraph.core.extremes.share`), with the Max
    or Min of the others built unevaluated, as evaluating leaves it (distinct real
    symbols are incomparable) after comparing every pair (quadratic in the arguments,
    seconds for a max over 15); else None."""
    if not isinstance(expr, (sympy.Max, sympy.Min)) or x not in expr.args:
        return None
    if not all(
        a.is_Number or (a.is_Symbol and a.assumptions0 == x.assumptions0) for a in expr.args
    ):
        return None
    return extremes.share(type(expr), expr.args, expr.args.index(x))


@functools.lru_cache(maxsize=64)
def _occurrences(expr: sympy.Expr) -> tuple[dict, dict]:
    """How many arguments of ``expr`` are each symbol, and how many contain it: counted
    once per expression, where a check per argument made a statement of n terms cost
    n² (one derivative per term, each scanning every argument)."""
    direct: dict = {}
    anywhere: dict = {}
    for a in expr.args:
        if a.is_Symbol:
            direct[a] = direct.get(a, 0) + 1
        for s in a.free_symbols:
            anywhere[s] = anywhere.get(s, 0) + 1
    return direct, anywhere


def as_vertex_expr(expr: object, where: str) -> sympy.Expr:
    """``expr`` with every symbol read as the real vertex symbol of its name; text goes
    through the restricted parser (:mod:`dgraph.core.parse`), never ``sympify``."""
    if isinstance(expr, str):
        return parse_expression(expr, None, where)
    if isinstance(expr, bool) or not isinstance(expr, (int, float, sympy.Basic)):
        raise GraphError(f"{where}: {type(expr).__name__} is not an expression")
    expr = sympy.sympify(expr)  # numbers and sympy objects only: nothing is evaluated
    if not isinstance(expr, sympy.Expr):
        raise GraphError(f"{where}: {expr} is not an arithmetic expression")
    swap = {
        s: vertex_symbol(s.name)
        for s in expr.free_symbols
        if isinstance(s, sympy.Symbol) and s.is_commutative and s != vertex_symbol(s.name)
    }
    return expr.xreplace(swap) if swap else expr


# derived entries not pickled: compiled functions, path words (large; rebuilt where needed),
# and a tensor graph's code generation choice (its expression set and the reference it was
# checked against: dgraph.codegen.tensor.function)
_PROCESS_LOCAL = frozenset({"numeric", "numeric_magnitudes", "path_words", "tensor_codegen_choice"})


def _picklable(value: object) -> bool:
    try:
        pickle.dumps(value)
    except Exception:  # pickling raises many kinds (PicklingError, AttributeError, TypeError)
        return False
    return True


class DGraph(Printable):
    """A differentiation graph with input, intermediate and output roles.

    The one graph model of every reader and method: a vertex is a tensor of a shape
    (``()`` for a scalar), an edge carries the local partial of its head by its tail —
    a sympy expression on a scalar graph, a structured Jacobian block on a tensor graph
    (Naumann's c-graph, Zhou's differentiation graph).

    Parameters
    ----------
    name
        Shown in drawings, tables and generated code.

    Attributes
    ----------
    name : str
        The graph's name.
    derived : dict
        Analyses' cached results (topological order, compiled evaluators, ...); cleared
        whenever the graph changes.
    notes : list of str
        What a reader did silently (passive vertices folded, constants taken), shown by
        the command line.
    traced_with : str
        How a Python function became the graph: ``"jax"``, ``"numpy"`` or ``"sympy"``;
        ``""`` for a file or a graph built by hand.
    fixed_parameters : dict
        A Python function's integer parameters read closed over at these values (name:
        value), as they fix its structure (a trip count, a shape, a branch:
        :mod:`dgraph.frontends.fixed_parameters`); empty where none was.

    See Also
    --------
    dgraph.frontends : the readers that build it (sympy, NumPy-style code, jaxprs, JSON).
    DGraph.elements : the element-level graph of a tensor graph.

    References
    ----------
    .. [1] U. Naumann, *Optimizing the Accumulation of Jacobians by Edge Elimination in
       the Computational Graph*, INRIA RR-3659, 1999.
    .. [2] Y. Zhou, *Notes on Computational Graph and Jacobian Accumulation*, 2020
       (arXiv 2012.15034).

    Examples
    --------
    >>> g = DGraph("demo")
    >>> g.add_vertex("x", "input")
    >>> g.add_vertex("y", "output", expr=sympy.sin(sympy.Symbol("x")))
    >>> g.add_edge("x", "y")
    >>> g.partial("x", "y")
    cos(x)
    >>> g.symbol("x", "y")
    d_y_x
    """

    rich_formats = ("svg", "png")
    _solved: tuple[str, ...] = ()  # graphs pickled before solved values existed
    # how a Python function became the graph: "jax" (its jaxpr), "numpy" (the NumPy-style
    # tracer) or "sympy" (called with sympy symbols); "" for a file or a built graph
    traced_with: str = ""
    # a function's integer parameters closed over at these values (they fix its structure)
    fixed_parameters: Mapping[str, int | bool] = MappingProxyType({})
    _tensor: bool = False  # set by the first tensor vertex
    _point: dict | None = None  # the inputs' values the user gave (graphs pickled before)
    _reference: tuple | None = None  # (jvp callable, graph version it holds for)
    _parameter_shapes: dict | None = None  # a tensor graph's parameter arrays: their shapes
    _parameter_point: dict | None = None  # their values at the point

    def __init__(self, name: str = "") -> None:
        self.name = name
        self._g = nx.DiGraph()
        # edge symbol names -> edges; the symbols themselves are made on first use (a
        # noncommutative symbol costs more to make than the rest of an edge)
        self._symbols: dict[str, tuple[str, str]] = {}
        self._order: list[str] | None = None
        self._by_role: dict[str, list[str]] | None = None  # the vertices of each role, in order
        self.derived: dict[str, object] = {}  # analyses' cached results; cleared on change
        self.notes: list[str] = []  # what a builder did silently (passive vertices folded)
        self._parameters: tuple[str, ...] = ()
        self._solved: tuple[str, ...] = ()
        self._version = 0

    def __getstate__(self) -> dict:
        """The graph without its process-local caches (compiled functions cannot be pickled,
        and a search's result comes back from its child process pickled)."""
        state = self.__dict__.copy()
        state["derived"] = {k: v for k, v in self.derived.items() if k not in _PROCESS_LOCAL}
        if state.get("_reference") is not None and not _picklable(state["_reference"][0]):
            state["_reference"] = None  # a lambda or closure: the check falls back to differences
        return state

    # -- the user's point and an exact derivative to check against ------------------------

    @property
    def point(self) -> dict[str, np.ndarray] | None:
        """The inputs' values the user gave first (``from_jax``'s example arguments, a
        point given to a tracer): where values are checked first. Read-only copies; None
        where none was given or the inputs have changed since."""
        point = self._point
        if point is None or list(point) != self.inputs:
            return None
        if self._tensor and any(point[x].shape != self.shape(x) for x in self.inputs):
            return None
        return point

    def set_point(self, values: Mapping[str, object] | None) -> None:
        """Keep ``values`` (one array per input, by name) as :attr:`point`, by copy (None:
        no point)."""
        if values is None:
            self._point = None
            return
        point = {}
        for x in self.inputs:
            if x not in values:
                raise GraphError(f"the point gives no value for the input {x!r}")
            value = np.array(values[x], dtype=float)
            if self._tensor and value.shape != self.shape(x):
                raise GraphError(
                    f"the point gives {x!r} the shape {value.shape}, not {self.shape(x)}"
                )
            value.flags.writeable = False
            point[x] = value
        self._point = point

    def point_from(self, numbers: Iterable[float], what: str = "the point") -> dict:
        """``numbers`` (one per input entry, the inputs in order, arrays flattened in C
        order) cut into one array per input, for :meth:`set_point`; one clear line where
        the count is not the inputs' entries."""
        flat = np.asarray(list(numbers), dtype=float).reshape(-1)
        shapes = [self.shape(x) if self._tensor else () for x in self.inputs]
        sizes = [int(np.prod(s)) for s in shapes]
        if flat.size != sum(sizes):
            shown = ", ".join(self.inputs[:6]) + (", ..." if len(self.inputs) > 6 else "")
            raise GraphError(
                f"{what} has {flat.size} number{'s' if flat.size != 1 else ''}; it needs"
                f" {sum(sizes)}, one per input entry ({shown})"
            )
        out, start = {}, 0
        for x, shape, n in zip(self.inputs, shapes, sizes, strict=True):
            out[x] = flat[start : start + n].reshape(shape)
            start += n
        return out

    @property
    def jvp_reference(self) -> Callable[[dict, dict], dict] | None:
        """An exact ``J·v`` of the program the graph was built from (JAX's ``jvp`` of the
        user's function), ``(inputs, tangents) -> {output: J·v}`` by name; None where there
        is none, or the graph has changed since it was built."""
        if self._reference is None or self._reference[1] != self._version:
            return None
        return self._reference[0]

    def set_jvp_reference(self, jvp: Callable[[dict, dict], dict] | None) -> None:
        """Set :attr:`jvp_reference` for the graph as it is now (a later change drops it).
        Not pickled where it cannot be (a lambda): a graph sent to another process is
        then checked against differences."""
        self._reference = None if jvp is None else (jvp, self._version)

    def _changed(self) -> None:
        self._order = None
        self._by_role = None
        self.derived.clear()
        self._version += 1

    @property
    def version(self) -> int:
        """A counter that every change of the graph increments (verification remembers it)."""
        return self._version

    # -- construction ------------------------------------------------------------------

    @property
    def parameters(self) -> tuple[str, ...]:
        """Names that vertex expressions and labels may use besides their in-edges' vertices:
        values known when the function runs (masses, lengths, ``g``) that the Jacobian is
        not taken with respect to."""
        return self._parameters

    def add_parameter(self, name: str, shape: tuple[int, ...] | None = None) -> None:
        """Declare a parameter: an identifier that is no vertex's name. With ``shape``, an
        array parameter of a tensor graph: operations read it as an operand, no edge
        leaves it (the Jacobian has no column for it), its value is given with the
        inputs'."""
        if not isinstance(name, str) or not _IDENT.match(name):
            shown = repr(name) if len(repr(name)) < 60 else repr(name)[:60] + "…"
            raise GraphError(f"parameter {shown}: names must be identifiers (letters, digits, _)")
        if keyword.iskeyword(name) or name in RESERVED:
            raise GraphError(f"parameter {name!r}: the name is reserved (a keyword or a constant)")
        if name in self._g or name in self._parameters:
            raise GraphError(f"parameter {name!r} is defined twice (or is also a vertex)")
        self._parameters += (name,)
        if shape is not None:
            shape = tuple(int(n) for n in shape)
            self._parameter_shapes = {**(self._parameter_shapes or {}), name: shape}
        self._changed()

    @property
    def parameter_shapes(self) -> dict[str, tuple[int, ...]]:
        """A tensor graph's array parameters and their shapes (empty where none)."""
        return dict(self._parameter_shapes or {})

    @property
    def parameter_point(self) -> dict[str, np.ndarray]:
        """The parameters' values given with :attr:`point` (empty where none): a tensor
        graph's arrays, a scalar graph's numbers."""
        return dict(self._parameter_point or {})

    def set_parameter_point(self, values: Mapping[str, object]) -> None:
        """Keep the parameters' values (by name; a tensor graph's array parameters, a
        scalar graph's free parameters, shape ``()``), by copy."""
        free = [p for p in self._parameters if p not in self.solved]
        shapes = self.parameter_shapes if self._tensor else dict.fromkeys(free, ())
        point = {}
        for p, shape in shapes.items():
            if p not in values:
                raise GraphError(f"the point gives no value for the parameter {p!r}")
            value = np.array(values[p], dtype=float)
            if value.shape != shape:
                raise GraphError(f"the point gives {p!r} the shape {value.shape}, not {shape}")
            value.flags.writeable = False
            point[p] = value
        self._parameter_point = point

    @property
    def solved(self) -> tuple[str, ...]:
        """Parameters the function returns instead of the outputs: the outputs are residuals
        h(x, s), affine in these ``s``, and the function is the ``s`` with h = 0 (a linear
        system such as a mass-matrix form M(q) u' = F(q, u)); empty for an explicit graph."""
        return self._solved

    def solve_for(self, names: Iterable[str]) -> None:
        """Declare the parameters ``names``, one per output, the values the function solves
        the outputs = 0 for (see :attr:`solved`)."""
        names = tuple(names)
        for name in names:
            if name not in self._parameters:
                raise GraphError(f"solved value {name!r} is not a parameter of the graph")
        if len(set(names)) != len(names):
            raise GraphError("a solved value is given twice")
        if names and len(names) != len(self.outputs):
            raise GraphError(
                f"{len(names)} solved value{'s' * (len(names) != 1)} for"
                f" {len(self.outputs)} output{'s' * (len(self.outputs) != 1)}: a linear system"
                " has one unknown per equation"
            )
        self._solved = names
        self._changed()

    def add_vertex(self, vertex: str, role: Role = "intermediate", expr: sympy.Expr | None = None):
        """Add a vertex; ``expr`` is its elemental function over predecessor symbols."""
        if expr is not None:
            expr = as_vertex_expr(expr, f"vertex {vertex!r}")
        self._add_vertex(vertex, role, expr)

    def _add_vertex(self, vertex: str, role: Role, expr: sympy.Expr | None) -> None:
        """:meth:`add_vertex` for an expression already over real vertex symbols (builders
        make them so; reading each one's free symbols again is most of a vertex's cost)."""
        if not isinstance(vertex, str) or not _IDENT.match(vertex):
            shown = repr(vertex) if len(repr(vertex)) < 60 else repr(vertex)[:60] + "…"
            raise GraphError(f"vertex {shown}: ids must be ASCII identifiers (A-Z, a-z, 0-9, _)")
        if keyword.iskeyword(vertex) or vertex in RESERVED:
            raise GraphError(f"vertex {vertex!r}: the name is reserved (a keyword or a constant)")
        if vertex in self._g:
            raise GraphError(f"vertex {vertex!r} is defined twice")
        if vertex in self._parameters:
            raise GraphError(f"vertex {vertex!r} has the name of a parameter")
        if role not in ROLES:
            raise GraphError(f"vertex {vertex!r}: unknown role {role!r}")
        self._g.add_node(vertex, role=role, expr=expr, index=len(self._g))
        self._changed()

    def add_edge(self, source: str, target: str, partial: sympy.Expr | None = None) -> None:
        """Add the edge ``source -> target`` (``target`` uses ``source``)."""
        for v in (source, target):
            if v not in self._g:
                raise GraphError(f"edge {source} -> {target}: unknown vertex {v!r}")
        if self._g.has_edge(source, target):
            raise GraphError(f"edge {source} -> {target} is given twice")
        if source == target:
            raise GraphError(f"cycle: {source} -> {source}")
        sym = f"d_{target}_{source}"  # the name of edge_symbol(source, target)
        if sym in self._symbols:
            other = self._symbols[sym]
            raise GraphError(
                f"edges {other[0]} -> {other[1]} and {source} -> {target} share the symbol {sym};"
                " rename a vertex"
            )
        self._symbols[sym] = (source, target)
        if partial is not None:
            partial = as_vertex_expr(partial, f"edge {source} -> {target}")
        self._g.add_edge(source, target, symbol=None, partial=partial, given=partial is not None)
        self._changed()

    def _add_edges(self, edges: list[tuple[str, str]]) -> None:
        """:meth:`add_edge` for many unlabelled edges between vertices already added (the
        builders'); a fault is reported by :meth:`add_edge` itself."""
        symbols, g = self._symbols, self._g
        for source, target in edges:
            name = f"d_{target}_{source}"
            if name in symbols or source == target or source not in g or target not in g:
                self._g.add_edges_from(edges[: edges.index((source, target))])
                self.add_edge(source, target)  # raises, saying why
            symbols[name] = (source, target)
        g.add_edges_from(edges, symbol=None, partial=None, given=False)
        self._changed()

    def _remove_vertices(self, vertices: Iterable[str]) -> None:
        """Remove vertices and their edges (dead code: :func:`dgraph.core.activity.drop_dead`;
        no vertex left may use them)."""
        vertices = set(vertices)
        for sym, (source, target) in list(self._symbols.items()):
            if source in vertices or target in vertices:
                del self._symbols[sym]
        self._g.remove_nodes_from(vertices)
        self._changed()

    def set_expr(self, vertex: str, expr: sympy.Expr | None) -> None:
        """Set a vertex's elemental function (over its predecessors' symbols)."""
        if expr is not None:
            expr = as_vertex_expr(expr, f"vertex {vertex!r}")
        self._g.nodes[vertex]["expr"] = expr
        for u in self._g.predecessors(vertex):  # partials derived from the old expr are stale
            data = self._g.edges[u, vertex]
            if not data["given"]:
                data["partial"] = None
        self._changed()

    # -- tensor vertices -----------------------------------------------------------------

    def add_array_vertex(
        self, vertex: str, role: Role, shape: tuple[int, ...], op: ArrayOp | None = None
    ) -> None:
        """Add a tensor vertex of ``shape`` computing ``op`` (None for an input), with an
        edge from every vertex a derivative flows from (Naumann's vector c-graph, seed
        000): its label is the Jacobian block :meth:`block` gives."""
        shape = tuple(int(n) for n in shape)
        if any(n < 1 for n in shape):
            raise GraphError(f"vertex {vertex!r}: shape {shape} has an empty axis")
        if op is not None and tuple(op.shape) != shape:
            raise GraphError(f"vertex {vertex!r}: its operation gives {op.shape}, not {shape}")
        arrays = self._parameter_shapes or {}
        for u in op.vertices() if op is not None else ():
            if u not in self._g and u not in arrays:
                raise GraphError(f"vertex {vertex!r}: unknown operand {u!r}")
        self._add_vertex(vertex, role, None)
        self._g.nodes[vertex]["shape"] = shape
        self._g.nodes[vertex]["op"] = op
        self._tensor = True
        if op is not None:
            sources = dict.fromkeys(op.operands[k] for k in op.differentiable())
            self._add_edges([(u, vertex) for u in sources if u not in arrays])

    def add_block_edge(self, source: str, target: str, block: Block) -> None:
        """An edge of a tensor graph with its block given (a part of a graph, or a graph
        read from its structure alone): no operation computes it."""
        if not self._tensor:
            raise GraphError(f"edge {source} -> {target}: a block edge needs tensor vertices")
        self.add_edge(source, target)
        self._g.edges[source, target]["block"] = block

    def as_tensor(self) -> DGraph:
        """This scalar graph as a tensor graph whose shapes are all ``()``: each edge a
        1 x 1 block, of kind ONES for a ±1 label, CONSTANT for another constant, else
        GENERAL (Naumann's unit and constant labels), so that block prices are the
        effective counts."""
        if self._tensor:
            return self
        other = DGraph(self.name)
        for v in self.order():
            other.add_array_vertex(v, self.role(v), ())
        for u, v in self.edges():
            label = self.constant_label(u, v)
            kind = GENERAL if label is None else ONES if abs(label) == 1 else CONSTANT
            other.add_block_edge(u, v, scalar_block(kind))
        return other

    def elements(self, limit: int | None = EDGE_LIMIT) -> DGraph:
        """The element-level graph: each array vertex of shape ``s`` as ``prod(s)`` scalar
        vertices, each block as the scalar edges of its nonzero entries with their symbolic
        partials (:func:`dgraph.core.expand.expand`); a scalar graph is itself. Refused in
        one line (InputError, naming ``level="array"``) above ``limit`` scalar edges."""
        return expand(self, limit)

    @property
    def is_tensor(self) -> bool:
        """Whether the graph has tensor vertices (array operations, Jacobian blocks)."""
        return self._tensor

    def shape(self, v: str) -> tuple[int, ...]:
        """The vertex's (or array parameter's) shape; ``()`` for a scalar."""
        if self._parameter_shapes and v in self._parameter_shapes:
            return self._parameter_shapes[v]
        return self._g.nodes[v].get("shape", ())

    def op(self, v: str) -> ArrayOp | None:
        """The array operation a tensor vertex computes (None: an input, or a scalar graph)."""
        return self._g.nodes[v].get("op")

    def block(self, source: str, target: str) -> Block:
        """The structure of the Jacobian block ∂target/∂source (:mod:`dgraph.blocks`):
        the sum over the operand positions ``source`` fills."""
        data = self._g.edges[source, target]
        if data.get("block") is None:
            if not self._tensor:
                data["block"] = scalar_block()
            else:
                op = self.op(target)
                shapes = [self._operand_shape(x) for x in op.operands]
                found = None
                for k in op.differentiable():
                    if op.operands[k] == source:
                        part = operand_block(op, k, shapes)
                        found = part if found is None else add_blocks(found, part)
                data["block"] = found
        return data["block"]

    def _operand_shape(self, x: object) -> tuple[int, ...]:
        if isinstance(x, str):
            return self.shape(x)
        return tuple(x.shape)  # a Const or a nested ArrayOp

    # -- roles and order ---------------------------------------------------------------

    @property
    def nx(self) -> nx.DiGraph:
        """The underlying networkx graph, data-flow direction; treat it as read-only."""
        return self._g

    def dependence(self) -> nx.DiGraph:
        """A reversed view: Zhou's orientation, outputs (roots) to inputs (terminals)."""
        return self._g.reverse(copy=False)

    def order(self) -> list[str]:
        """Evaluation order: a topological order that keeps the order vertices were added."""
        if self._order is None:
            index = nx.get_node_attributes(self._g, "index")
            if all(index[u] < index[v] for u, v in self._g.edges):
                # the order of addition is topological: it is the smallest such order
                self._order = sorted(self._g, key=index.__getitem__)
                return self._order
            try:
                self._order = list(nx.lexicographical_topological_sort(self._g, key=index.get))
            except nx.NetworkXUnfeasible:
                cycle = nx.find_cycle(self._g)
                path = " -> ".join([u for u, _ in cycle] + [cycle[0][0]])
                raise GraphError(f"cycle: {path}") from None
        return self._order

    def _with_role(self, role: Role) -> list[str]:
        return [v for v in self.order() if self._g.nodes[v]["role"] == role]

    def _declared(self, role: Role) -> list[str]:
        """The vertices of ``role`` in the order they were added: one pass over the graph
        per change for all roles (the inputs and outputs are asked for in loops), copied
        out."""
        found = self.__dict__.get("_by_role")
        if found is None:
            nodes = self._g.nodes
            found = {}
            for v in sorted(self._g, key=lambda v: nodes[v]["index"]):
                found.setdefault(nodes[v]["role"], []).append(v)
            self._by_role = found
        return list(found.get(role, ()))

    @property
    def inputs(self) -> list[str]:
        """Independent variables X, in the order they were declared (Jacobian columns)."""
        return self._declared("input")

    @property
    def outputs(self) -> list[str]:
        """Dependent variables Y, in the order they were declared (Jacobian rows)."""
        return self._declared("output")

    @property
    def intermediates(self) -> list[str]:
        """Intermediate vertices Z, in evaluation order."""
        return self._with_role("intermediate")

    @property
    def vertices(self) -> list[str]:
        return self.order()

    def edges(self) -> list[tuple[str, str]]:
        """All edges, grouped by target in evaluation order."""
        return [(u, v) for v in self.order() for u in self.predecessors(v)]

    def predecessors(self, v: str) -> list[str]:
        index = self._g.nodes
        return sorted(self._g.predecessors(v), key=lambda u: index[u]["index"])

    def successors(self, v: str) -> list[str]:
        index = self._g.nodes
        return sorted(self._g.successors(v), key=lambda u: index[u]["index"])

    def role(self, v: str) -> Role:
        return self._g.nodes[v]["role"]

    def __contains__(self, v: object) -> bool:
        return v in self._g

    def __iter__(self) -> Iterator[str]:
        return iter(self.order())

    def __len__(self) -> int:
        return len(self._g)

    @property
    def n_edges(self) -> int:
        return self._g.number_of_edges()

    # -- labels ------------------------------------------------------------------------

    def expr(self, v: str) -> sympy.Expr | None:
        """The elemental function of ``v`` over its predecessors' symbols, if known."""
        return self._g.nodes[v]["expr"]

    def symbol(self, source: str, target: str) -> sympy.Symbol:
        data = self._g.edges[source, target]
        if data["symbol"] is None:
            data["symbol"] = edge_symbol(source, target)
        return data["symbol"]

    def edge_of(self, symbol: sympy.Symbol) -> tuple[str, str]:
        """The edge an edge symbol names; KeyError if it names none."""
        edge = self._symbols.get(symbol.name) if isinstance(symbol, sympy.Symbol) else None
        if edge is None or self.symbol(*edge) != symbol:
            raise KeyError(symbol)
        return edge

    @property
    def edge_symbols(self) -> dict[sympy.Symbol, tuple[str, str]]:
        return {self.symbol(u, v): (u, v) for u, v in self._symbols.values()}

    def partial(self, source: str, target: str) -> sympy.Expr | None:
        """The local partial derivative on an edge: given, or derived from the target's expr."""
        data = self._g.edges[source, target]
        if data["partial"] is None:
            expr = self.expr(target)
            if expr is not None:
                data["partial"] = local_derivative(expr, source)
        return data["partial"]

    def has_partials(self) -> bool:
        return all(self.partial(u, v) is not None for u, v in self._g.edges)

    def constant_label(self, source: str, target: str) -> sympy.Number | None:
        """The label's value when the local partial is a known number, else None."""
        p = self.partial(source, target)
        return p if p is not None and p.is_Number else None

    def values(self) -> dict[str, sympy.Expr]:
        """Every vertex's value as a sympy expression of the input symbols."""
        values: dict[str, sympy.Expr] = {}
        for v in self.order():
            if self.role(v) == "input":
                values[v] = vertex_symbol(v)
                continue
            expr = self.expr(v)
            if expr is None:
                raise GraphError(f"vertex {v!r} has no expression; its value is unknown")
            mapping = {vertex_symbol(u): values[u] for u in self.predecessors(v)}
            values[v] = extremes.substituted(expr, mapping)  # a Max of a Max not evaluated
        return values

    # -- checks ------------------------------------------------------------------------

    def validate(self) -> DGraph:
        """Check the roles and acyclicity; raise GraphError naming the first fault."""
        return self._validate(expressions=True)

    def _validate(self, expressions: bool) -> DGraph:
        """:meth:`validate`; without ``expressions``, expressions and given labels are not
        checked against the in-edges (a builder that made them from the edges knows)."""
        if not self.inputs:
            raise GraphError("graph has no inputs")
        if not self.outputs:
            raise GraphError("graph has no outputs")
        self.order()  # raises on a cycle
        g = self._g
        for v in self.inputs:
            if g.in_degree(v):
                u = self.predecessors(v)[0]
                raise GraphError(f"input {v!r} has an in-edge from {u!r}; inputs must be minimal")
        for v in self.outputs:
            if g.out_degree(v):
                w = self.successors(v)[0]
                raise GraphError(f"output {v!r} has an out-edge to {w!r}; outputs must be maximal")
        for v in self.intermediates:
            if not g.in_degree(v):
                raise GraphError(f"vertex {v!r} is dangling: no input reaches it")
        reaches_output = set(self.outputs)
        for v in reversed(self.order()):
            if any(w in reaches_output for w in g.successors(v)):
                reaches_output.add(v)
        for v in self.intermediates:
            if v not in reaches_output:
                raise GraphError(f"vertex {v!r} is dangling: it has no path to an output")
        parameters = {vertex_symbol(p) for p in self._parameters}
        for v in self.order() if expressions else ():
            preds = {vertex_symbol(u) for u in self.predecessors(v)} | parameters
            expr = self.expr(v)
            extra = set() if expr is None else expr.free_symbols - preds
            if extra:
                name = sorted(map(str, extra))[0]
                raise GraphError(f"vertex {v!r}: expression uses {name!r}, which is not an in-edge")
            for u in self.predecessors(v):
                data = self._g.edges[u, v]
                extra = data["partial"].free_symbols - preds if data["given"] else set()
                if extra:
                    name = sorted(map(str, extra))[0]
                    raise GraphError(
                        f"edge {u} -> {v}: the label uses {name!r}, which is not an argument of"
                        f" {v!r} (a vertex with an edge into it)"
                    )
        return self

    # -- comparison and copies -----------------------------------------------------------

    def copy(self) -> DGraph:
        if self._tensor:
            index = nx.get_node_attributes(self._g, "index")
            order = sorted(self._g, key=index.__getitem__)
            return self.with_array_vertices(
                [(v, self.role(v), self.shape(v), self.op(v)) for v in order]
            )
        other = DGraph(self.name)
        for p in self._parameters:
            other.add_parameter(p, (self._parameter_shapes or {}).get(p))
        for v in self.order():
            other.add_vertex(v, self.role(v), self.expr(v))
        for u, v in self.edges():
            data = self._g.edges[u, v]
            other.add_edge(u, v, data["partial"] if data["given"] else None)
        return self._carried_to(other)

    def with_array_vertices(
        self, vertices: Iterable[tuple[str, Role, tuple[int, ...], ArrayOp | None]]
    ) -> DGraph:
        """This tensor graph with ``vertices`` (name, role, shape, operation; each after
        the vertices it reads) in place of its own: its parameters, notes and points kept,
        and each block edge given without an operation kept where both ends are."""
        other = DGraph(self.name)
        for p in self._parameters:
            other.add_parameter(p, (self._parameter_shapes or {}).get(p))
        for v, role, shape, op in vertices:
            other.add_array_vertex(v, role, shape, op)
        for u, v in self.edges():
            op = self.op(v)
            if op is not None and u in (op.operands[k] for k in op.differentiable()):
                continue  # its operation's, there or gone
            if u in other._g and v in other._g and not other._g.has_edge(u, v):
                other.add_block_edge(u, v, self.block(u, v))
        return self._carried_to(other)

    def _carried_to(self, other: DGraph) -> DGraph:
        """``other`` given this graph's notes, reader, solved outputs and points."""
        other.notes = list(self.notes)
        other.traced_with = self.traced_with
        other.fixed_parameters = dict(self.fixed_parameters)
        if self._solved:
            other.solve_for(self._solved)
        other._point = self._point  # read-only arrays: shared
        other._parameter_point = self._parameter_point
        if self.jvp_reference is not None:
            other.set_jvp_reference(self.jvp_reference)
        return other

    def given_partial(self, source: str, target: str) -> sympy.Expr | None:
        """The label given for an edge (JSON ``label``, ``add_edge(partial=)``), if any."""
        data = self._g.edges[source, target]
        return data["partial"] if data["given"] else None

    def __eq__(self, other: object) -> bool:
        """Same vertices, roles, edges, expressions and partials (names matter)."""
        if not isinstance(other, DGraph):
            return NotImplemented
        if set(self._g) != set(other._g) or set(self._g.edges) != set(other._g.edges):
            return False
        if self._parameters != other._parameters or self.solved != other.solved:
            return False
        if self.parameter_shapes != other.parameter_shapes:
            return False
        for v in self._g:
            if self.role(v) != other.role(v) or _neq(self.expr(v), other.expr(v)):
                return False
            if self.shape(v) != other.shape(v) or self.op(v) != other.op(v):
                return False
        return not any(_neq(self.partial(u, v), other.partial(u, v)) for u, v in self._g.edges)

    __hash__ = None  # type: ignore[assignment]

    def content_key(self) -> tuple:
        """A scalar graph's content as one hashable tuple, for caches keyed by it (compare
        the whole key, never a hash alone): equal keys, the same graph to every method and
        to code generation. The name, the vertices in the order they were added and in
        evaluation order (which order predecessors and successors) with their roles and
        expressions, every edge with its partial (given or derived from its target's
        expression), symbol and whether it was given, the parameters, the solved values
        and the point. Expressions by :func:`sympy.srepr`: Floats of other precisions,
        symbols of other assumptions and other argument orders give other keys (stricter
        than ``==``, which simplifies). A tensor graph has none: TypeError."""
        if self._tensor:
            raise TypeError("a tensor graph has no content key")
        nodes, data = self._g.nodes, self._g.edges
        added = tuple(sorted(self._g, key=lambda v: nodes[v]["index"]))
        vertices = tuple((v, self.role(v), _srepr(self.expr(v))) for v in self.order())
        edges = tuple(
            (u, v, _srepr(self.partial(u, v)), self.symbol(u, v).name, data[u, v]["given"])
            for u, v in self.edges()
        )
        point = tuple(
            (name, value.dtype.str, value.shape, value.tobytes())
            for values in (self.point or {}, self.parameter_point)
            for name, value in values.items()
        )
        return (self.name, added, vertices, edges, self._parameters, self.solved, point)

    def __repr__(self) -> str:
        name = f" {self.name!r}" if self.name else ""
        return (
            f"<DGraph{name}: {len(self.inputs)} inputs, {len(self.intermediates)} intermediates,"
            f" {len(self.outputs)} outputs, {self.n_edges} edges>"
        )

    # -- interchange ---------------------------------------------------------------------

    def to_dict(self) -> dict:
        """The dgraph/1 interchange form (data-flow direction); a tensor graph lists every
        vertex, inputs too, in evaluation order with its ``shape`` and ``op``."""
        if self._tensor:
            return self._tensor_dict()
        vertices = []
        for v in self.order():
            if self.role(v) == "input":
                continue
            entry = {"id": v}
            if self.expr(v) is not None:
                entry["expr"] = format_expression(self.expr(v))
            vertices.append(entry)
        edges = []
        for u, v in self.edges():
            entry = {"source": u, "target": v}
            p, expr = self._g.edges[u, v]["partial"], self.expr(v)
            if p is not None and (expr is None or p != local_derivative(expr, u)):
                entry["label"] = format_expression(p)
            edges.append(entry)
        data = {"format": "dgraph/1"}
        if self.name:
            data["name"] = self.name
        data.update(inputs=self.inputs, outputs=self.outputs)
        if self._parameters:
            data["parameters"] = list(self._parameters)
        if self._solved:
            data["solved"] = list(self._solved)
        data.update(vertices=vertices, edges=edges)
        return self._with_point(data)

    POINT_LIMIT = 10_000  # input entries up to which the point is written to JSON

    def _with_point(self, data: dict) -> dict:
        """``data`` with the user's point, where there is one and it is small."""
        point = self.point
        if point is not None and len(self.parameter_point) == len(self.parameter_shapes):
            point = {**point, **self.parameter_point}  # a tensor graph's array parameters
        if point is not None and sum(v.size for v in point.values()) <= self.POINT_LIMIT:
            data["point"] = {x: v.tolist() for x, v in point.items()}
        return data

    def _tensor_dict(self) -> dict:
        index = nx.get_node_attributes(self._g, "index")
        vertices = []
        for v in sorted(self._g, key=index.__getitem__):
            entry: dict = {"id": v, "shape": list(self.shape(v))}
            if self.op(v) is not None:
                entry["op"] = op_to_json(self.op(v))
            vertices.append(entry)
        data: dict = {"format": "dgraph/1"}
        if self.name:
            data["name"] = self.name
        data.update(inputs=self.inputs, outputs=self.outputs)
        if self._parameter_shapes:
            data["parameters"] = list(self._parameter_shapes)
            data["parameter_shapes"] = {p: list(s) for p, s in self._parameter_shapes.items()}
        edges = [
            {"source": u, "target": v, "block": self.block(u, v).type_name} for u, v in self.edges()
        ]
        data.update(vertices=vertices, edges=edges)
        return self._with_point(data)

    def to_json(self, indent: int | None = 1) -> str:
        import json

        return json.dumps(self.to_dict(), indent=indent)


def _srepr(expr: sympy.Expr | None) -> tuple | None:
    """``expr``'s structure: each distinct subexpression once, in the order first met, as
    ``sympy.srepr`` of an atom or (type, the places of its arguments). What ``srepr``
    tells (Float precisions, symbol assumptions, argument orders) without its text of
    every shared subexpression again: a maximum's n partials each hold its value n times
    (n² nodes each, minutes of ``srepr`` at n = 160). The same for a tree as for a DAG."""
    if expr is None:
        return None
    rows: dict = {}
    place: dict[int, int] = {}  # by id: a subexpression met again is not walked again
    kept = []  # the nodes whose ids ``place`` holds stay alive while it does
    stack: list[tuple[object, bool]] = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in place:
            continue
        args = e.args if isinstance(e, sympy.Basic) else ()
        if args and not ready:
            stack.append((e, True))
            stack.extend((a, False) for a in reversed(args) if id(a) not in place)
            continue
        row = (type(e), tuple(place[id(a)] for a in args)) if args else sympy.srepr(e)
        place[id(e)] = rows.setdefault(row, len(rows))
        kept.append(e)
    return tuple(rows)


def _neq(a: sympy.Expr | None, b: sympy.Expr | None) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return a != b and sympy.simplify(a - b) != 0
