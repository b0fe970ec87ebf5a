"""A NumPy Hessian body's leading elementwise run done block by block (strip-mining).

Most Hessian bodies start with a run of elementwise statements on vectors of one length
n: slices of a 1-D input and the arithmetic and ufuncs made of them. Printed as they are
(:func:`.numpy_form.numpy_body`), each is a pass over n entries; at n = 10⁶ the run's
vectors outgrow the cache and every statement goes to memory. Here the run, and the
assembly of its vectors into the values right after it, is a kernel over the entries
``[_lo, _hi)`` of one block (:data:`BLOCK` entries) called block after block (the
module's ``_strips``): each statement reads the block's entries while they are still in
cache, and only the vectors read after the run are whole arrays, written by blocks.
Strip-mining, as in Wolfe, *High Performance Compilers for Parallel Computing* (1996),
§9.2.

The pass reads what ``numpy_body`` printed, as structures (:class:`Printed`: each
statement's value node, the assembly's :class:`.numpy_assembly.Write` pieces), never its
text. Only nodes whose entry k reads entry k of their operands alone are taken in
(arithmetic, ufuncs that map entries one by one, slices, ``ravel``), so each entry is
computed by the same ufunc calls on the same doubles in whatever block it lies: the
values are bitwise those of the body without blocks. The blocks are independent, so
``_strips`` may run them over threads (``DGRAPH_NUM_THREADS``, docs/hessians.md); their
split is fixed by n and :data:`BLOCK`, and no entry's value depends on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir import BinOp, Call, Index, Name, Node, UnaryOp
from ..python import NumPyArrayPrinter
from .numpy_assembly import Write, plain_write, within

__all__ = ["BLOCK", "FROM", "LOCAL", "STRIPS_HELPER", "Assembly", "Printed", "stripped"]

BLOCK = 1 << 14
"""Entries per block: 128 KiB a vector, a run's few live ones within a core's L2 cache
(Rosenbrock's Hessian at 10⁶ entries: 2¹³ to 2¹⁵ tried, 2¹⁴ the fastest; thread9)."""

FROM = 1 << 17
"""Entries from which a run is done by blocks (below, the plain body's vectors fit in
cache and each block's Python calls would cost more than they save)."""

LOCAL = 3
"""The fewest computing statements whose vectors stay in the kernel (each a pass over
memory saved) for a run to be done by blocks: at 10⁶ entries Rosenbrock's (6, the
assembly taken in) went from 9.2 to 6.0 CPU ms a call, the Lagrangian's (1: an ``exp``
into a vector read after the run) from 10.1 to 10.8 (thread9's measurements)."""

_UFUNCS = frozenset(
    {"add", "subtract", "multiply", "divide", "true_divide", "negative", "positive"}
    | {"square", "sqrt", "absolute", "exp", "expm1", "log", "log1p", "sin", "cos", "tan"}
    | {"tanh", "sinh", "cosh", "arctan", "reciprocal", "power"}
)  # ufuncs mapping entries one by one (entry k of the result reads entry k alone)
_ARITHMETIC = ("+", "-", "*", "/")

STRIPS_HELPER = [
    "def _strips(kernel, n, block):",
    '    """kernel(lo, hi) for the blocks [lo, hi) of [0, n), block entries each (the last',
    "    shorter), in order; where DGRAPH_NUM_THREADS is above 1, that many threads (this",
    "    one included) take equal shares of them in order: a split fixed by n and block,",
    '    and each entry computed alike in any block (dgraph/codegen/tensor/numpy_strips.py)."""',
    "    import os",
    "",
    "    blocks = range(0, n, block)",
    '    asked = os.environ.get("DGRAPH_NUM_THREADS", "").strip() or "1"',
    "    if not asked.isdigit():",
    "        raise ValueError(",
    '            f"DGRAPH_NUM_THREADS is {asked!r}: a count of threads, 1 or more, is expected"',
    "        )",
    "    threads = min(int(asked), len(blocks))",
    "    if threads <= 1:",
    "        for lo in blocks:",
    "            kernel(lo, min(lo + block, n))",
    "        return",
    "",
    "    def share(t):",
    "        for lo in blocks[len(blocks) * t // threads : len(blocks) * (t + 1) // threads]:",
    "            kernel(lo, min(lo + block, n))",
    "",
    "    from concurrent.futures import ThreadPoolExecutor",
    "",
    "    with ThreadPoolExecutor(threads - 1) as pool:",
    "        others = [pool.submit(share, t) for t in range(1, threads)]",
    "        share(0)",
    "        for other in others:",
    "            other.result()",
]


@dataclass(frozen=True)
class Span(Node):
    """The part of a block a slice takes, as printed inside brackets
    (``1 + 3 * _lo:1 + 3 * _hi:3``): made here, printed as it is."""

    text: str


class _Printer(NumPyArrayPrinter):
    def _print_Span(self, node: Span) -> tuple[str, int]:
        return node.text, 9


@dataclass
class Assembly:
    """The assembly ``numpy_body`` printed for a statement: ``target`` (a new vector of
    ``size`` entries) gets the ``writes`` (a string: a line of its own), then the
    ``rest`` lines (the base's values where no part lands); ``mirror``: the runs
    ``(to, from)`` of entries it copies from others (where it does), else None."""

    target: str
    size: int
    writes: list[Write | str]
    rest: list[str]
    mirror: list[tuple[slice, slice]] | None


@dataclass
class Printed:
    """One statement of a body as ``numpy_body`` printed it: its ``lines``, the names
    deleted after it (``dead``) and the names it reads; ``value``: the node printed as
    ``target = value`` (None: printed otherwise); ``assembly``: where it was one."""

    target: str
    value: Node | None
    lines: list[str]
    dead: list[str]
    reads: set[str]
    assembly: Assembly | None = None


def stripped(body: list[Printed], ends: set[str], shapes: dict) -> list[str] | None:
    """The lines of ``body`` with its first elementwise run of :data:`FROM` entries or
    more (and :data:`LOCAL` vectors kept in the kernel) done block by block, with the
    assembly right after it where its pieces are the run's vectors (module docstring);
    ``ends``: the names read after the body; ``shapes``: each name's shape. None where
    there is no such run."""
    k = 0
    while k < len(body):
        end, n, computing = _run(body, k, shapes)
        if n is not None and n < FROM:  # so is every run starting inside it (_run)
            k = end
            continue
        if n is None or computing < 2:
            k += 1
            continue
        lines = _Region(body, k, end, n, ends, shapes).lines()
        if lines is not None:
            return lines
        k = end
    return None


def _length(node: Node, vectors: set[str], shapes: dict) -> int | None:
    """The length of the vector ``node`` computes entry by entry (0: a number, or a 0-d
    array), from the run's ``vectors``, slices and 1-D arrays made before; None where
    entry k of it reads more than entry k of its operands."""
    if ir.number(node) is not None:
        return 0
    if isinstance(node, Name):
        shape = shapes.get(node.id)
        if shape == () or (isinstance(shape, tuple) and len(shape) == 1 and shape[0] > 1):
            return shape[0] if shape else 0
        return None
    if isinstance(node, Index):  # a slice of an array made before the run
        inside = isinstance(node.value, Name) and node.value.id in vectors
        return None if inside else _sliced(node, shapes)
    if isinstance(node, BinOp) and node.op in _ARITHMETIC:
        parts = [node.left, node.right]
    elif isinstance(node, BinOp) and node.op == "**" and ir.number(node.right) is not None:
        parts = [node.left]
    elif isinstance(node, UnaryOp) and node.op == "-":
        parts = [node.operand]
    elif isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1:
        parts = [node.args[0]] if isinstance(node.args[0], Name) else [node]
        if parts[0] is node or node.keywords:
            return None
    elif isinstance(node, ir.Formula):  # a scalar expression of entries, by entries
        parts = [operand for _, operand in node.operands]
    elif isinstance(node, Call) and node.func in _UFUNCS:
        parts = list(node.args)
        for key, value in node.keywords:
            ok = key == "out" and isinstance(value, Name) and value.id in vectors
            if not (ok or (key == "dtype" and value == ir.Const(float))):
                return None
    else:
        return None
    sizes = {_length(p, vectors, shapes) for p in parts}
    if None in sizes or len(sizes - {0}) != 1:
        return None  # numbers alone, or vectors of two lengths
    return (sizes - {0}).pop()


def _sliced(node: Index, shapes: dict) -> int | None:
    """``v[a:b]`` of a 1-D array ``v``: its length; None for any other index."""
    if not (isinstance(node.value, Name) and len(node.items) == 1):
        return None
    s, shape = node.items[0], shapes.get(node.value.id)
    if not (isinstance(s, ir.Slice) and s.step in (None, 1) and isinstance(shape, tuple)):
        return None
    a = 0 if s.lower is None else s.lower
    b = shape[0] if s.upper is None else s.upper
    return b - a if len(shape) == 1 and 0 <= a < b <= shape[0] else None


def _run(body: list[Printed], k: int, shapes: dict) -> tuple[int, int | None, int]:
    """The end of the elementwise run from statement ``k``, its vectors' length (None
    where there is no run) and its computing statements. A run from a later statement
    inside it has the same length: with fewer vectors taken in, a statement's length is
    the same or None (:func:`_length`)."""
    vectors: set[str] = set()
    n, computing, end = None, 0, k
    while end < len(body):
        p = body[end]
        size = None if p.value is None else _length(p.value, vectors, shapes)
        if not size or size != (n or size) or p.target in vectors:
            break
        n = size
        vectors.add(p.target)
        computing += _computes(p.value)
        end += 1
    return end, n, computing


def _computes(node: Node) -> bool:
    """Whether ``node`` computes its entries (not a name, a slice, a ravel of a name)."""
    if isinstance(node, Call) and node.func == "ravel":
        return False
    return not isinstance(node, (Name, Index))


def _plus(k: int, term: str) -> str:
    return term if k == 0 else f"{k} + {term}"


def _span(start: int, step: int = 1, lo: str = "_lo", hi: str = "_hi") -> Span:
    """``start + step * lo:start + step * hi:step`` (no ``0 +``, ``1 *`` or ``:1``)."""
    times = "" if step == 1 else f"{step} * "
    tail = "" if step == 1 else f":{step}"
    return Span(f"{_plus(start, times + lo)}:{_plus(start, times + hi)}{tail}")


def _count(s: slice) -> int:
    return len(range(s.start, s.stop, s.step))


class _Region:
    """The run ``body[k:end]`` of vectors of n entries, and the assembly after it where
    it can be taken in, as a kernel over blocks."""

    def __init__(
        self, body: list[Printed], k: int, end: int, n: int, ends: set[str], shapes: dict
    ) -> None:
        self.body, self.k, self.n, self.shapes = body, k, n, shapes
        self.printer = _Printer()
        self.run = body[k:end]
        self.vectors = {p.target for p in self.run}
        nxt = body[end] if end < len(body) else None
        self.assembly = nxt.assembly if nxt is not None and self._fits(nxt) else None
        self.end = end + (self.assembly is not None)
        after = set(ends).union(*(p.reads for p in body[self.end :]))
        self.kept = {p.target for p in self.run if p.target in after}

    def lines(self) -> list[str] | None:
        """The region's lines (module docstring); None where fewer than :data:`LOCAL`
        computing statements' vectors stay in the kernel."""
        local = [p for p in self.run if p.target not in self.kept]
        if sum(_computes(p.value) for p in local) < LOCAL:  # type: ignore[arg-type]
            return None
        out = [line for p in self.body[: self.k] for line in _with_dead(p)]
        views = {p.target for p in self.run if isinstance(p.value, Index)}
        whole = {p.target for p in self.run if p.target in self.kept - views}
        a = self.assembly
        if a is not None:
            out.append(f"    {a.target} = numpy.empty({a.size})")
        out += [f"    {p.target} = numpy.empty({self.n})" for p in self.run if p.target in whole]
        kernel = ["", "    def _strip(_lo, _hi):"]
        for p in self.run:  # a whole vector: its entries in the block
            at = (Span("_lo:_hi"),) if p.target in whole else ()
            value = self._blocked(p.value, whole)  # type: ignore[arg-type]
            kernel.append("    " + self.printer.statement(ir.ArrayStatement(p.target, value, at)))
        later: list[str] = []  # lines after the kernel: numbers and constants written
        if a is not None:
            kernel, later = self._assembled(a, whole, kernel)
        out += [*kernel, "", f"    _strips(_strip, {self.n}, {BLOCK})"]
        out += [line for p in self.run if p.target in self.kept & views for line in p.lines]
        made = self.vectors | ({a.target} if a else set())
        gone = {d for p in self.body[self.k : self.end] for d in p.dead if d not in made}
        out += [*later, f"    del {', '.join(['_strip', *sorted(gone)])}"]
        return out + [line for p in self.body[self.end :] for line in _with_dead(p)]

    def _blocked(self, node: Node, whole: set[str]) -> Node:
        """``node`` as the kernel computes it: slices of arrays made before the run cut
        to the block (shifted by their start), 1-D arrays of n entries made before it and
        the run's whole vectors (``whole``) read in the block."""

        def replace(x: Node) -> Node | None:
            if (
                isinstance(x, Index)
                and isinstance(x.value, Name)
                and x.value.id not in self.vectors
            ):
                first = x.items[0]  # a slice (:func:`_sliced`)
                return Index(x.value, (_span(first.lower or 0),))  # type: ignore[attr-defined]
            outside = isinstance(x, Name) and (x.id in whole or x.id not in self.vectors)
            if outside and self.shapes.get(x.id) == (self.n,):
                return Index(x, (Span("_lo:_hi"),))
            return None

        return ir.rebuilt(node, replace)

    def _fits(self, p: Printed) -> bool:
        """Whether the assembly ``p`` can be done in the kernel: each piece a vector of
        the run's entries, whole, or a number (added into such a piece, or written after
        the kernel where nothing is added), and the mirror's sources in such pieces."""
        a = p.assembly
        if a is None or not all(isinstance(w, Write) for w in a.writes):
            return False
        pieces: list[Write] = a.writes  # type: ignore[assignment]
        for k, w in enumerate(pieces):
            if w.number:
                ok = w.base is None and (not w.added or _host(pieces, k, w.at) is not None)
            else:
                base = 0 if w.base is None else _length(w.base, self.vectors, self.shapes)
                ok = not w.added and w.node is not None and _count(w.at) == self.n
                ok = ok and _length(w.node, self.vectors, self.shapes) == self.n
                ok = ok and base in (0, self.n)
            if not ok:
                return False
        return all(_source(pieces, source) is not None for _, source in a.mirror or ())

    def _assembled(
        self, a: Assembly, whole: set[str], kernel: list[str]
    ) -> tuple[list[str], list[str]]:
        """``kernel`` with the assembly's lines (each piece's part of the block, in the
        order the pieces come, then the mirror's copies), and the lines after it. A
        piece that others are added into is made a vector of the block first (the
        additions contiguous), written after them; the mirror copies a piece's vector
        where there is one."""
        pieces: list[Write] = a.writes  # type: ignore[assignment]
        hosts = {_host(pieces, k, w.at)[0] for k, w in enumerate(pieces) if w.added}  # type: ignore[index]
        kernel, later, last = list(kernel), [], []
        local: dict[int, str] = {}  # piece -> the name of its block's values
        t = a.target
        for k, w in enumerate(pieces):
            if w.number and not w.added:
                later.append(plain_write(t, w))
                continue
            if w.number:  # added into an earlier piece's entries
                j, offset = _host(pieces, k, w.at)  # type: ignore[misc]
                number = self.printer.doprint(w.node)  # type: ignore[arg-type]
                line = f"numpy.add({{v}}, {number}, out={{v}})"
                kernel += _guarded(local[j], offset, _count(w.at), self.n, line)
                continue
            value = self._blocked(w.node, whole)  # type: ignore[arg-type]
            into = Index(Name(t), (_span(w.at.start, w.at.step),))
            if k in hosts:
                local[k] = f"_p{k}"
                out = (("out", Name(w.out)),) if w.out and w.out not in whole else ()
                if w.base is not None:  # as numpy_assembly's copy: into its own vector
                    value = Call("add", (self._blocked(w.base, whole), value), out)
                elif not out:
                    value = Call("array", (value,), (("dtype", ir.Const(float)),))
                kernel.append("    " + self.printer.statement(ir.ArrayStatement(local[k], value)))
                last.append(f"        {self.printer.doprint(into)} = {local[k]}")
            elif w.base is None:
                if isinstance(value, Name):
                    local[k] = value.id
                kernel.append(
                    f"        {self.printer.doprint(into)} = {self.printer.doprint(value)}"
                )
            else:
                call = Call("add", (self._blocked(w.base, whole), value), (("out", into),))
                kernel.append(f"        {self.printer.doprint(call)}")
        kernel += last
        for to, source in a.mirror or ():
            j, offset = _source(pieces, source)  # type: ignore[misc]
            w = pieces[j]
            if w.number:
                later.append(f"    {t}[{to.start}:{to.stop}:{to.step}] = {w.source}")
                continue
            line = f"{t}[{_shifted(to, offset, self.n)}] = {{v}}"
            host = local.get(j) or f"{t}[{_span(w.at.start, w.at.step).text}]"
            kernel += _guarded(host, offset, _count(to), self.n, line)
        return kernel, later + a.rest


def _host(pieces: list[Write], k: int, at: slice) -> tuple[int, int] | None:
    """The earlier vector piece that piece ``k``'s positions ``at`` are added into, and
    where among its entries they start; None where that is no vector piece."""
    for j in range(k - 1, -1, -1):
        w = pieces[j]
        offset = None if w.added else within(at, w.at)
        if offset is not None:
            return None if w.number else (j, offset)
    return None


def _source(pieces: list[Write], source: slice) -> tuple[int, int] | None:
    """The piece the mirror copies ``source`` from (as :func:`.numpy_assembly.written`
    finds it) and where among its entries they start; None where there is none, or it
    is a number with a constant added."""
    for j, w in enumerate(pieces):
        offset = None if w.added else within(source, w.at)
        if offset is not None:
            return None if w.number and w.base is not None else (j, offset)
    return None


def _shifted(to: slice, offset: int, n: int) -> str:
    """The positions of ``to`` (which take the host entries from ``offset`` on) for the
    block's host entries, as a slice's text."""
    lo, hi = _bounds(offset, _count(to), n)
    return _span(to.start - to.step * offset, to.step, lo, hi).text


def _bounds(offset: int, count: int, n: int) -> tuple[str, str]:
    """The block's first and last host entries in ``[offset, offset + count)`` of n."""
    lo = "_lo" if offset == 0 else f"max(_lo, {offset})"
    hi = "_hi" if offset + count == n else f"min(_hi, {offset + count})"
    return lo, hi


def _guarded(host: str, offset: int, count: int, n: int, line: str) -> list[str]:
    """``line`` (``{v}`` in it: the view) for the view of the entries ``[offset, offset
    + count)`` (of n) of ``host`` (a block's vector) that lie in the block, where some
    do."""
    if offset == 0 and count == n:
        return [f"        {line.format(v=host)}"]
    lo, hi = _bounds(offset, count, n)
    return [
        f"        if _lo < {offset + count} and {offset} < _hi:",
        f"            _v = {host}[{lo} - _lo:{hi} - _lo]",
        f"            {line.format(v='_v')}",
    ]


def _with_dead(p: Printed) -> list[str]:
    return [*p.lines, f"    del {', '.join(p.dead)}"] if p.dead else p.lines
