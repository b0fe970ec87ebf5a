"""The expression set: the one result type of every accumulation method.

A set of algebraic expressions connected by reference variables (Zhou): named references
``r1 = ...`` in the order they are computed, and Jacobian entries ``(output, input) ->
expression``, all noncommutative sums and products of edge symbols and earlier
references, written in matrix order (output end first). It also carries the steps that
produced it, its costs, and, once checked, its verification against Bauer's formula.

A set is immutable once built: what a verification checked cannot change under it, and
a verification holds only while the graph it was checked against is unchanged.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np
import sympy

from ..errors import GraphError, InputError
from .algebra import nc_substitute, nc_symbol
from .block_costs import block_cost
from .block_values import dense_jacobian
from .collector import collector_paused
from .costs import Cost, constant_values, expression_cost, expression_set_cost
from .display import Printable
from .graph import DGraph, vertex_symbol
from .label_text import flat_str, label_str
from .provenance import Bound, Provenance
from .verify import Verification, verify

__all__ = [
    "ExpressionSet",
    "Price",
    "Recipe",
    "Step",
    "StepKind",
    "as_factor",
    "cheapest_inlined",
    "comparable",
    "has_scaling_constants",
    "make_expression_set",
    "new_reference",
    "price",
    "reference_symbol",
]


def reference_symbol(k: int) -> sympy.Symbol:
    """The k-th reference variable ``r<k>``."""
    return nc_symbol(f"r{k}")


def new_reference(references: dict[sympy.Symbol, sympy.Expr], value: sympy.Expr) -> sympy.Symbol:
    """A new reference variable defined as ``value``, numbered after those in
    ``references`` (which several working graphs may share)."""
    name = reference_symbol(len(references) + 1)
    references[name] = value
    return name


def as_factor(references: dict[sympy.Symbol, sympy.Expr], label: sympy.Expr) -> sympy.Expr:
    """``label`` for use in a product: a symbol or number as it is, a compound label as a
    new reference, so that the expression set computes it once, as the method does."""
    return label if label.is_Symbol or label.is_Number else new_reference(references, label)


class StepKind(str, Enum):
    """What one step of an accumulation did."""

    VERTEX = "vertex"  # vertex elimination (Naumann)
    FORWARD = "forward"  # front-edge elimination (Naumann)
    BACKWARD = "backward"  # back-edge elimination (Naumann)
    FACE = "face"  # face elimination on the line graph (Naumann)
    MERGE = "merge"  # two line-graph vertices with the same neighbours made one
    SPLIT = "split"  # a vertex eliminated to split a block (Zhou), or a line-graph vertex
    CHAIN = "chain"  # a link of a simple chain or block eliminated (Zhou)
    LAYER = "layer"  # a vertex inside a layer eliminated for its local Jacobian
    UMBRELLA = "umbrella"  # a vertex inside an umbrella eliminated (Murota-Kubota)
    PRODUCT = "product"  # two local Jacobians multiplied (bracketing)
    FACTOR = "factor"  # a D* factor subgraph accumulated (Guenter)
    PATHS = "paths"  # products along paths listed (Bauer's formula)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Step:
    """One step of an accumulation: what was done (:class:`StepKind`) to which vertex or
    edge, within which ``region`` (an umbrella's output, a layer's number) if any, at
    what cost.

    Parameters
    ----------
    op
        The step's kind, a :class:`StepKind` or its value (``"vertex"``, ``"edge"``,
        ``"face"``, ``"chain"``, ``"umbrella"``, ...); an unknown kind raises ValueError.
    target
        The vertex eliminated, or the edge ``(tail, head)``.
    mults
        The multiplications the step cost.
    region
        The umbrella's output or the layer's number the step belongs to, if any.

    Examples
    --------
    >>> str(Step("umbrella", "v1", 2, region="y"))
    'umbrella y v1 (2)'
    """

    op: StepKind
    target: str | tuple[str, str]
    mults: int
    region: str | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "op", StepKind(self.op))
        except ValueError:
            known = ", ".join(k.value for k in StepKind)
            raise ValueError(f"unknown step kind {self.op!r}; known: {known}") from None

    @property
    def label(self) -> str:
        """The kind, with its region: ``umbrella y``, ``layer 2``, ``vertex``."""
        return self.op.value if self.region is None else f"{self.op.value} {self.region}"

    def to_dict(self) -> dict[str, Any]:
        target = list(self.target) if isinstance(self.target, tuple) else self.target
        data: dict[str, Any] = {"op": self.label, "target": target}
        if self.region is not None:
            data["region"] = self.region
        data["mults"] = self.mults
        return data

    def __str__(self) -> str:
        target = " -> ".join(self.target) if isinstance(self.target, tuple) else self.target
        return f"{self.label} {target} ({self.mults})"


@dataclass(frozen=True)
class Recipe:
    """How to rebuild a set's as-computed form when it is asked for: ``build(graph,
    *args)``. A method that inlines while it builds (vertex elimination) leaves one,
    so that only the face check pays for the form it alone reads."""

    build: Callable[..., ExpressionSet]
    args: tuple = ()

    def __call__(self, graph: DGraph) -> ExpressionSet:
        return self.build(graph, *self.args)


@dataclass(frozen=True)
class ExpressionSet(Printable):
    """References and Jacobian entries over edge symbols, with steps, costs and checks:
    the noncommutative expression set every method returns (Zhou 2020, arXiv 2012.15034:
    a graph's accumulation as products of its local partials).

    Immutable: the mappings are read-only copies, ``steps`` and ``pairs`` tuples, ``info``
    read-only all the way down. A verification is never a constructor argument: only
    :meth:`verify` sets it, and ``dataclasses.replace`` gives an unverified copy.

    Parameters
    ----------
    graph
        The graph whose edge symbols the expressions are written in.
    references
        Named intermediate products, each an expression over edge symbols and earlier
        references.
    jacobian
        The Jacobian's entries, keyed ``(output, input)``.
    steps
        The accumulation's steps in order (:class:`Step`), with their costs.
    method
        The method that built the set.
    info
        What the method reports (its order, bounds, the search that found it, ...).
    pairs
        The ``(output, input)`` entries computed; None: all of them.
    computed
        The set as the method grouped its products, before single-use references were
        inlined (what the face check reads), or a recipe for it.

    See Also
    --------
    dgraph.methods.accumulate : builds one by a named method.
    ExpressionSet.verify : checks it against the graph's values.
    """

    # LaTeX only: front ends show HTML first when both are offered (to_html() gives it)
    rich_formats = ("latex",)

    graph: DGraph
    references: Mapping[sympy.Symbol, sympy.Expr]
    jacobian: Mapping[tuple[str, str], sympy.Expr]
    steps: tuple[Step, ...] = ()
    method: str = ""
    info: Mapping[str, Any] = field(default_factory=dict)
    pairs: tuple[tuple[str, str], ...] | None = None  # the entries it computes; None: all
    # the same set before single-use references were inlined: every product grouped as
    # the method computed it (inlining makes products of several factors, whose
    # association is then free), or a recipe for it; the face check reads it
    computed: ExpressionSet | Recipe | None = field(default=None, repr=False, compare=False)
    # what verify() found, and the graph's version it checked against
    _verification: Verification | None = field(default=None, init=False, repr=False, compare=False)
    _verified_version: int | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pairs = None if self.pairs is None else tuple((y, x) for y, x in self.pairs)
        for name, value in (
            ("references", MappingProxyType(dict(self.references))),
            ("jacobian", MappingProxyType(dict(self.jacobian))),
            ("steps", tuple(self.steps)),
            ("info", _read_only(self.info)),
            ("pairs", pairs),
        ):
            object.__setattr__(self, name, value)

    def __getstate__(self) -> dict[str, Any]:
        """Pickling (``best`` and ``compare`` run methods in child processes): read-only
        mappings sent as dicts, read-only again on arrival, and the expressions as one
        shared table that is rebuilt without evaluating (sympy's own unpickling rebuilds
        every product and sum through its constructors, slowly on large sets)."""
        state = dict(self.__dict__)
        state.pop("as_computed", None)  # rebuilt from ``computed`` on arrival, if asked for
        state["info"] = _dicts(state["info"])
        refs, jac = list(self.references.items()), list(self.jacobian.items())
        with collector_paused(builds=False):
            table, roots = _pack(
                [*(n for n, _ in refs), *(d for _, d in refs), *(e for _, e in jac)]
            )
        state["references"] = None
        state["jacobian"] = [k for k, _ in jac]
        state["_packed"] = (table, roots, len(refs))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        table, roots, n_refs = state.pop("_packed")
        with collector_paused():
            exprs = _unpack(table, roots)
        names, definitions = exprs[:n_refs], exprs[n_refs : 2 * n_refs]
        state["references"] = dict(zip(names, definitions, strict=True))
        state["jacobian"] = dict(zip(state["jacobian"], exprs[2 * n_refs :], strict=True))
        self.__dict__.update(state)
        for name in ("references", "jacobian", "info"):
            object.__setattr__(self, name, _read_only(state[name]))

    @cached_property
    def as_computed(self) -> ExpressionSet | None:
        """The set before single-use references were inlined (None: this one), built
        from its recipe the first time it is asked for."""
        if isinstance(self.computed, Recipe):
            return self.computed(self.graph)
        return self.computed

    # -- costs -------------------------------------------------------------------------

    @cached_property
    def cost(self) -> Cost:
        """Counted over scalar labels, or over Jacobian blocks on a tensor graph."""
        if self.graph.is_tensor:
            return block_cost(self)
        return expression_set_cost(self)

    @property
    def mults(self) -> int:
        """Structural multiplications: every label a general value."""
        return self.cost.mults

    @property
    def adds(self) -> int:
        return self.cost.adds

    @property
    def mults_effective(self) -> int:
        """Multiplications with +-1 labels free and constants folded."""
        return self.cost.mults_effective

    # -- verification ------------------------------------------------------------------

    def verify(self, mode: str = "auto") -> Verification:
        """Check against Bauer's formula (see :mod:`dgraph.core.verify`) and remember it,
        with the version of the graph it checked."""
        version = _version(self.graph)
        with collector_paused(builds=False):
            check = verify(self, mode)
        object.__setattr__(self, "_verification", check)
        object.__setattr__(self, "_verified_version", version)
        return check

    @property
    def verification(self) -> Verification | None:
        """The last check, while the graph is as it was then; None otherwise."""
        if self._verification is None or self._verified_version != _version(self.graph):
            return None
        return self._verification

    @property
    def verified(self) -> bool:
        """True only when a verification has run and matched, and the graph has not
        changed since."""
        return bool(self.verification)

    def moved_to(self, graph: DGraph) -> ExpressionSet:
        """The same set over ``graph``, which must be an equal graph (a child process sent
        this set back with its own copy): its verification kept only if it checked the
        version ``graph`` still has."""
        computed = self.computed
        if isinstance(computed, ExpressionSet):
            computed = computed.moved_to(graph)
        out = dataclasses.replace(self, graph=graph, computed=computed)
        if self._verification is not None and self._verified_version == _version(graph):
            object.__setattr__(out, "_verification", self._verification)
            object.__setattr__(out, "_verified_version", self._verified_version)
        if "cost" in self.__dict__:
            out.__dict__["cost"] = self.__dict__["cost"]
        return out

    def _relabeled(self, method: str, info: Mapping[str, Any]) -> ExpressionSet:
        """The same expressions under another name and info, keeping a verification that
        still holds (it checked exactly these expressions); for results handed on
        unchanged, such as ``best``'s winner and :func:`dgraph.methods.accumulate`."""
        out = dataclasses.replace(self, method=method, info=info)
        if self.verification is not None:
            object.__setattr__(out, "_verification", self._verification)
            object.__setattr__(out, "_verified_version", self._verified_version)
        if "cost" in self.__dict__:  # the same expressions cost the same
            out.__dict__["cost"] = self.__dict__["cost"]
        return out

    # -- rewriting ---------------------------------------------------------------------

    def inline_single_use(self) -> ExpressionSet:
        """Substitute references used exactly once; the costs do not change. Inlining a
        product into a product could fold their constants together (``c·(d·x)`` with
        c = 2, d = 3 is ``6·x``, one multiplication less than was computed), so where
        that would change the count, a product with a constant factor other than ±1 is
        not inlined into a product, nor a product into one with such a factor."""
        inline = self.single_use_references()
        out = self._inlined(inline)
        if inline and has_scaling_constants(self.graph) and out.cost != self.cost:
            out = self._inlined(inline - self._scaled_products(inline))
        return out

    def single_use_references(self) -> set[sympy.Symbol]:
        """The references that occur exactly once in the other expressions."""
        uses: Counter[sympy.Symbol] = Counter()
        for expr in [*self.references.values(), *self.jacobian.values()]:
            for s in _symbols_in_order(expr):
                if s in self.references:
                    uses[s] += 1
        return {r for r in self.references if uses[r] == 1}

    def _inlined(self, inline: set[sympy.Symbol]) -> ExpressionSet:
        kept = [r for r in self.references if r not in inline]
        # one substitution per expression: kept references renumbered, inlined ones
        # replaced by their (already substituted) definitions
        mapping: dict[sympy.Symbol, sympy.Expr] = {
            old: reference_symbol(k) for k, old in enumerate(kept, start=1)
        }
        references: dict[sympy.Symbol, sympy.Expr] = {}
        memo: dict = {}  # mapping only grows, and an expression is seen after its references
        for name, definition in self.references.items():
            definition = nc_substitute(definition, mapping, memo)
            if name in inline:
                mapping[name] = definition
            else:
                references[mapping[name]] = definition
        return ExpressionSet(
            self.graph,
            references,
            {k: nc_substitute(e, mapping, memo) for k, e in self.jacobian.items()},
            self.steps,
            self.method,
            self.info,
            self.pairs,
            computed=self.computed or self,
        )

    def _scaled_products(self, among: set[sympy.Symbol]) -> set[sympy.Symbol]:
        """The references of ``among`` used as a factor of a product that, or whose own
        product, has a constant factor other than ±1 (zero included)."""
        constants = constant_values(self)

        def scaled(product: sympy.Expr) -> bool:
            for f in product.args:
                value = constants.get(f) if f.is_Symbol else expression_cost(f, constants).value
                if value is not None and value not in (1, -1):
                    return True
            return False

        found = set()
        for expr in [*self.references.values(), *self.jacobian.values()]:
            for product in expr.atoms(sympy.Mul):
                for r in among.intersection(product.args):
                    definition = self.references[r]
                    if scaled(product) or (definition.is_Mul and scaled(definition)):
                        found.add(r)
        return found

    def resolved(self) -> dict[tuple[str, str], sympy.Expr]:
        """Jacobian entries with every reference substituted (noncommutative)."""
        resolved: dict[sympy.Symbol, sympy.Expr] = {}
        for name, definition in self.references.items():
            resolved[name] = definition.xreplace(resolved)
        return {k: e.xreplace(resolved) for k, e in self.jacobian.items()}

    def as_matrix(self, values: bool = False) -> sympy.Matrix:
        """The Jacobian as an m×n sympy Matrix (outputs × inputs, in the graph's order,
        zeros where no path runs): noncommutative products of edge labels with the
        references substituted, or with ``values`` ordinary expressions of the inputs.

        >>> import dgraph
        >>> es = dgraph.accumulate(dgraph.bundled("naumann_sin.trace"), "reverse")
        >>> es.as_matrix().shape, es.as_matrix(values=True)
        ((1, 2), Matrix([[sin(x1)**2, 2*x0*sin(x1)*cos(x1)]]))
        """
        entries = self.substitute() if values else self.resolved()
        rows, cols = self.graph.outputs, self.graph.inputs
        return sympy.Matrix(
            len(rows),
            len(cols),
            lambda i, j: entries.get((rows[i], cols[j]), sympy.Integer(0)),
        )

    # -- values ------------------------------------------------------------------------

    def substitute(self) -> dict[tuple[str, str], sympy.Expr]:
        """Jacobian entries as ordinary sympy expressions of the inputs (scalar labels)."""
        values = self.graph.values()
        labels: dict[sympy.Symbol, sympy.Expr] = {}
        for sym, (u, v) in self.graph.edge_symbols.items():
            partial = self.graph.partial(u, v)
            if partial is None:
                raise GraphError(f"edge {u} -> {v} has no known local partial")
            labels[sym] = partial.xreplace({vertex_symbol(w): values[w] for w in values})
        for name, definition in self.references.items():
            labels[name] = definition.xreplace(labels)
        return {k: e.xreplace(labels) for k, e in self.jacobian.items()}

    def evaluate(self, point: Iterable[float], params: Iterable[float] | None = None):
        """The Jacobian as a NumPy array at ``point`` (shape (n,) -> (m, n); (B, n) ->
        (B, m, n)); ``params``: the values of the graph's parameters, if it has any. On a
        tensor graph ``point`` has one number per input entry (the inputs in order,
        arrays flattened in C order, as ``--at``), and the rows and columns are the
        outputs' and inputs' entries in the same order."""
        if self.graph.is_tensor:
            if params is not None:
                raise InputError("a tensor graph has no parameters: give no params")
            return dense_jacobian(self, np.asarray(list(point), dtype=float))
        from .numeric import evaluate_expression_set

        return evaluate_expression_set(self, point, params)

    @property
    def provenance(self) -> Provenance:
        """Which search found it, whether proven optimal, the lower bounds known (typed),
        its time and budget note (:class:`dgraph.core.provenance.Provenance`)."""
        return Provenance.of(self.method, self.info)

    def summary(self) -> dict[str, Any]:
        """The costs and checks, without expressions (``compare`` rows)."""
        data: dict[str, Any] = {
            "method": self.method,
            "mults": self.mults,
            "adds": self.adds,
            "mults_effective": self.mults_effective,
            "verified": self.verified,
        }
        if self.verification is not None:  # verified, not verified or wrong, and how
            data["verification"] = self.verification.status
            data["verification_mode"] = self.verification.mode
            data["verification_detail"] = self.verification.detail
        data.update((k, v) for k, v in self.info.items() if not isinstance(v, (tuple, Mapping)))
        return data

    def to_dict(self) -> dict[str, Any]:
        """The ``accumulate --json`` object (docs/interface.md)."""
        data = self.summary()
        data.update(_plain(self.info))
        data["steps"] = [s.to_dict() for s in self.steps]
        data["references"] = [[str(n), label_str(d)] for n, d in self.references.items()]
        data["jacobian"] = [[y, x, label_str(e)] for (y, x), e in self.jacobian.items()]
        if self.graph.fixed_parameters:  # a function's integer parameters, closed over
            data["fixed_parameters"] = dict(self.graph.fixed_parameters)
        return data

    def __repr__(self) -> str:
        check = "unverified" if self.verification is None else self.verification.status
        return (
            f"<ExpressionSet {self.method or '?'}: {len(self.references)} references,"
            f" {len(self.jacobian)} entries, {self.mults} mults, {check}>"
        )


class Price(NamedTuple):
    """A result's price, compared as a tuple: effective multiplications, then structural."""

    effective: int
    structural: int


def price(es: ExpressionSet) -> Price:
    """What makes one result cheaper than another, everywhere (``best``, ``compare``).

    Parameters
    ----------
    es
        A built expression set.

    Returns
    -------
    Price
        Its effective and structural multiplications; fewer effective is cheaper, then
        fewer structural. Among equals the first met wins (``min`` and ``sorted`` keep
        it), the earliest in a comparison's table.
    """
    return Price(es.mults_effective, es.mults)


def _version(graph: DGraph) -> int:
    """The graph's change counter (0 where a graph does not count its changes)."""
    return getattr(graph, "version", 0)


def _read_only(value: Any) -> Any:
    """``value`` with every mapping made a read-only copy and every list a tuple."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _read_only(v) for k, v in value.items()})
    if isinstance(value, list) or type(value) is tuple:
        return tuple(_read_only(v) for v in value)
    if isinstance(value, set):
        return frozenset(value)
    return value


_NC_FACTS = nc_symbol("_")._assumptions0  # every noncommutative symbol's facts


def _pack(exprs: list[sympy.Expr]) -> tuple[list[tuple], list[int]]:
    """``exprs`` as a table of nodes, each once (children before parents), and the
    positions of ``exprs`` in it: noncommutative symbols by name, products and sums by
    their arguments' positions, anything else as itself."""
    table: list[tuple] = []
    index: dict[int, int] = {}  # id -> position; ``alive`` keeps every id's node
    alive: list[sympy.Basic] = []
    nc_facts = _NC_FACTS
    roots = []
    for root in exprs:
        stack: list[tuple[sympy.Basic, bool]] = [(root, False)]
        while stack:
            e, ready = stack.pop()  # ready: its arguments are in the table
            if id(e) in index:
                continue
            if e.is_Mul or e.is_Add:
                if not ready:
                    stack.append((e, True))
                    stack.extend((a, False) for a in e.args if id(a) not in index)
                    continue
                kind = "m" if e.is_Mul else "a"
                entry: tuple = (kind, tuple(index[id(a)] for a in e.args), e.is_commutative)
            elif type(e) is sympy.Symbol and e._assumptions0 == nc_facts:
                entry = ("s", e.name)
            else:
                entry = ("o", e)
            index[id(e)] = len(table)
            alive.append(e)
            table.append(entry)
        roots.append(index[id(root)])
    return table, roots


def _unpack(table: list[tuple], roots: list[int]) -> list[sympy.Expr]:
    """The expressions :func:`_pack` packed, rebuilt from their arguments as they were
    (they were canonical when packed: nothing to evaluate again)."""
    nodes: list[sympy.Basic] = []
    for entry in table:
        kind = entry[0]
        if kind == "s":
            nodes.append(nc_symbol(entry[1]))
        elif kind == "o":
            nodes.append(entry[1])
        else:
            cls = sympy.Mul if kind == "m" else sympy.Add
            nodes.append(cls._from_args(tuple(nodes[i] for i in entry[1]), entry[2]))
    return [nodes[i] for i in roots]


def _dicts(value: Any) -> Any:
    """``value`` with every read-only mapping a dict again (pickle cannot send those)."""
    if isinstance(value, Mapping):
        return {k: _dicts(v) for k, v in value.items()}
    if type(value) is tuple:
        return tuple(_dicts(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """The inverse of :func:`_read_only` for output: dicts and lists (JSON's shapes)."""
    if isinstance(value, Bound):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if type(value) is tuple:
        return [_plain(v) for v in value]
    return value


def comparable(candidates: Iterable[ExpressionSet]) -> list[ExpressionSet]:
    """Candidate sets of one graph as their counts compare: as they are where inlining
    keeps every count (no constant labels), else inlined (products of ±1 fold, (−a)(−b)
    is a·b, so inlining can lower a count)."""
    candidates = list(candidates)
    graph = candidates[0].graph
    if any(graph.constant_label(u, v) is not None for u, v in graph.edges()):
        inlined: dict[tuple, ExpressionSet] = {}  # by expressions: inlining reads no more
        out = []
        for es in candidates:
            if es.computed is not None:  # inlined already
                out.append(es)
                continue
            # by the expressions' text: sympy's hash and equality recurse per level, and
            # a running value's labels nest as deep as the program
            key = (
                tuple((n, flat_str(d)) for n, d in es.references.items()),
                tuple((k, flat_str(e)) for k, e in es.jacobian.items()),
            )
            if key in inlined:  # the same expressions: a copy with es's own history
                out.append(_with_history(inlined[key], es))
            else:
                out.append(inlined.setdefault(key, _inlined_once(es)))
        return out
    return candidates


def _with_history(inlined: ExpressionSet, source: ExpressionSet) -> ExpressionSet:
    """``inlined`` (``source``'s expressions, inlined) with ``source``'s steps, method,
    info and entries: what inlining ``source`` itself gives."""
    out = dataclasses.replace(
        inlined,
        steps=source.steps,
        method=source.method,
        info=source.info,
        pairs=source.pairs,
        computed=source,
    )
    if "cost" in inlined.__dict__:  # the same expressions cost the same
        out.__dict__["cost"] = inlined.__dict__["cost"]
    return out


def cheapest_inlined(candidates: Iterable[ExpressionSet]) -> ExpressionSet:
    """The cheapest of ``candidates`` by (mults, adds), first on ties, inlined: compared
    as :func:`comparable` has them, so that only the winner need be inlined."""
    return _inlined_once(min(comparable(candidates), key=lambda es: (es.mults, es.adds)))


def _inlined_once(es: ExpressionSet) -> ExpressionSet:
    return es.inline_single_use() if es.computed is None else es  # None: not inlined yet


def has_scaling_constants(graph: DGraph) -> bool:
    """Whether a label of ``graph`` is a constant other than ±1 (zero included)."""
    return any(
        graph.constant_label(u, v) is not None and abs(graph.constant_label(u, v)) != 1
        for u, v in graph.edges()
    )


def _symbols_in_order(expr: sympy.Expr) -> list[sympy.Symbol]:
    """Every symbol occurrence (with multiplicity) in ``expr``."""
    out: list[sympy.Symbol] = []
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Symbol:
            out.append(e)
        elif e.is_Pow and e.exp.is_Integer:
            stack.extend([e.base] * int(e.exp))
        else:
            stack.extend(e.args)
    return out


def make_expression_set(
    graph: DGraph,
    references: Mapping[sympy.Symbol, sympy.Expr],
    jacobian: Mapping[tuple[str, str], sympy.Expr],
    steps: Iterable[Step] = (),
    method: str = "",
    info: Mapping[str, Any] | None = None,
    pairs: Iterable[tuple[str, str]] | None = None,
    inline: bool = False,
    computed: ExpressionSet | Recipe | None = None,
) -> ExpressionSet:
    """An expression set with its Jacobian entries in row-major order of the graph; with
    ``inline``, as every method finishes one: references used once inlined
    (:meth:`ExpressionSet.inline_single_use`); ``computed``: what it was inlined from."""
    rows = {y: i for i, y in enumerate(graph.outputs)}
    cols = {x: i for i, x in enumerate(graph.inputs)}
    ordered = dict(sorted(jacobian.items(), key=lambda kv: (rows[kv[0][0]], cols[kv[0][1]])))
    es = ExpressionSet(
        graph, references, ordered, tuple(steps), method, info or {}, pairs, computed
    )
    return es.inline_single_use() if inline else es
