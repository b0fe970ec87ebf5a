"""A NumPy Hessian body's elementwise run done block by block (strip-mining).

A body (:func:`.numpy_form.numpy_body`'s lines) starts, as most Hessians' do, with a run
of elementwise statements on vectors of one length n: slices of a 1-D input and what
ufuncs and arithmetic make of them (``v = u_[0:n]``, ``p = v ** 2``, ``r = numpy.add(a,
b, out=a)``). Printed as they are, each is a pass over n entries, 8 n bytes each time a
vector is read or written, fresh memory for each new one: at n = 10⁶ the run's vectors
outgrow the cache and each statement goes to memory. Here the run is a kernel over the
entries ``[_lo, _hi)`` of one block (:data:`BLOCK` entries), called block after block
(``_strips``, the module's helper): each statement reads the block's values while they
are still in cache, and only the vectors read after the run (and the results) are whole
arrays, written block by block through ``out=`` their slices. Strip-mining, as in Wolfe,
*High Performance Compilers for Parallel Computing* (1996), §9.2.

Each entry is computed by the same ufunc calls on the same doubles, whichever block it
lies in: the values are bitwise those of the plain body. Only the operations whose
result at an entry reads that entry alone are taken in (arithmetic, ufuncs that map
entries one by one, views). The blocks are independent, so ``_strips`` may also run
them over threads (``DGRAPH_NUM_THREADS``, docs/hessians.md): the blocks' split is fixed
by n and the block size, and an entry's value does not depend on it.

The pass reads the printed body with :mod:`ast` (the generator's own text, never
evaluated) and leaves it as it is where no run of :data:`FROM` entries or more is found.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

__all__ = ["BLOCK", "FROM", "STRIPS_HELPER", "stripped"]

BLOCK = 1 << 14
"""Entries per block: 128 KiB a vector, a run's few live ones within a core's L2 cache
(at 10⁶ entries, Rosenbrock's Hessian: 2¹³ to 2¹⁵ tried, 2¹⁴ the fastest)."""

FROM = 1 << 17
"""Entries from which a run is done by blocks (below, the plain body's vectors fit in
cache and each block's Python calls would cost more than they save)."""

LOCAL = 3
"""The fewest computing statements whose vectors stay in the kernel (each a pass over
memory saved) for a region to be done by blocks: at 10⁶ entries Rosenbrock's (7, the
assembly taken in) went from 9.2 to 6.0 CPU ms a call, the Lagrangian's (1: an
``exp`` into the vector read after the run) from 10.1 to 10.8."""

# ufuncs mapping entries one by one (numpy.<name>), exactly as each entry's own call would
_UFUNCS = frozenset(
    (
        "add",
        "subtract",
        "multiply",
        "divide",
        "true_divide",
        "negative",
        "positive",
        "square",
        "sqrt",
        "absolute",
        "exp",
        "expm1",
        "log",
        "log1p",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sinh",
        "cosh",
        "arctan",
        "reciprocal",
        "power",
    )
)
_OPS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide"}
_PLAIN = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)

STRIPS_HELPER = [
    "def _strips(kernel, n, block):",
    '    """kernel(lo, hi) for the blocks [lo, hi) of [0, n), block entries each (the last',
    "    shorter); over DGRAPH_NUM_THREADS threads where that is set above 1, each taking",
    "    an equal share of the blocks in order (a split fixed by n and block; each entry's",
    '    value is the same in any block and thread)."""',
    "    import os",
    "",
    "    count = -(-n // block)",
    '    threads = min(int(os.environ.get("DGRAPH_NUM_THREADS") or 1), count)',
    "    if threads <= 1:",
    "        for lo in range(0, n, block):",
    "            kernel(lo, min(lo + block, n))",
    "        return",
    "",
    "    def share(t):",
    "        for k in range(count * t // threads, count * (t + 1) // threads):",
    "            kernel(k * block, min(k * block + block, n))",
    "",
    "    from concurrent.futures import ThreadPoolExecutor",
    "",
    "    pool = _POOL.get(threads)",
    "    if pool is None:",
    "        pool = _POOL[threads] = ThreadPoolExecutor(threads - 1)",
    "    done = [pool.submit(share, t) for t in range(1, threads)]",
    "    share(0)",
    "    for d in done:",
    "        d.result()",
    "",
    "",
    "_POOL = {}  # threads -> the pool of the others (the calling thread takes share 0)",
]


def stripped(
    lines: list[str], ends: set[str], constants: dict[str, tuple[int, ...]] | None = None
) -> list[str]:
    """``lines`` (a function body, indented 4) with its leading elementwise run of
    :data:`FROM` entries or more done block by block, with the assembly statements
    right after it that read the run's vectors entry by entry (module docstring);
    ``ends``: the names read after the body (its results); ``constants``: the module's
    constant arrays' shapes (a 1-D one of the run's length is read block by block too).
    ``lines`` as they are where there is no such run."""
    text = "\n".join(lines)
    if "numpy.reshape" not in text:
        return lines
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return lines
    source = textwrap.dedent(text).split("\n")
    body = tree.body
    lengths: dict[str, int] = {}  # 1-D inputs read by reshape to (n,)
    fixed = {k: v[0] for k, v in (constants or {}).items() if len(v) == 1}
    allocated: set[str] = set()
    out: list[str] = []
    for i, s in enumerate(body):
        _input_length(s, lengths)
        run = _run(body, i, lengths, fixed)
        if run is None:
            out += _segment(source, s)
            if _allocation(s):
                allocated.add(s.targets[0].id)
            continue
        end, n, vectors = run
        allocated |= {t.targets[0].id for t in body[i:end] if _allocation(t)}
        stop, absorbed = _absorbed(body, end, n, vectors, set(allocated), ends, lengths, fixed)
        region = _Region(body[i:end], absorbed, n, lengths, fixed)
        after = body[stop:]
        if region.saved(after, ends) < LOCAL:
            out += _segment(source, s)
            if _allocation(s):
                allocated.add(s.targets[0].id)
            continue
        out += region.lines(after, ends)
        locals_ = region.kernel_names(after, ends)  # not in later dels
        for later in after:
            if isinstance(later, ast.Delete) and locals_ & _deleted(later):
                kept = [t for t in later.targets if t.id not in locals_]
                if kept:
                    out.append(ast.unparse(ast.Delete(targets=kept)))
            else:
                out += _segment(source, later)
        return ["    " + line if line else line for line in out]
    return lines


def _segment(source: list[str], s: ast.stmt) -> list[str]:
    return source[s.lineno - 1 : s.end_lineno]


def _deleted(s: ast.Delete) -> set[str]:
    return {t.id for t in s.targets if isinstance(t, ast.Name)}


def _input_length(s: ast.stmt, lengths: dict[str, int]) -> None:
    """``x_ = numpy.reshape(numpy.asarray(x, dtype=float), (n,))``: x_ has n entries."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
        return
    t, v = s.targets[0], s.value
    if not (isinstance(t, ast.Name) and _call(v) == "reshape" and len(v.args) == 2):
        return
    shape = v.args[1]
    inner = v.args[0]
    if (
        isinstance(shape, ast.Tuple)
        and len(shape.elts) == 1
        and _int(shape.elts[0]) is not None
        and _call(inner) == "asarray"
    ):
        lengths[t.id] = _int(shape.elts[0])


def _call(node: ast.AST) -> str | None:
    """``numpy.<name>(...)``'s name."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        f = node.func
        if isinstance(f.value, ast.Name) and f.value.id == "numpy":
            return f.attr
    return None


def _int(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _input_slice(node: ast.AST, lengths: dict[str, int]) -> tuple[str, int, int] | None:
    """``x_[a:b]`` (or ``x_[a:b,]``) of a 1-D input: (x_, a, b)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    s = node.slice
    if isinstance(s, ast.Tuple) and len(s.elts) == 1:
        s = s.elts[0]
    if not isinstance(s, ast.Slice) or s.step is not None or node.value.id not in lengths:
        return None
    a, b = _int(s.lower) if s.lower else 0, _int(s.upper)
    if a is None or b is None or not 0 <= a < b <= lengths[node.value.id]:
        return None
    return node.value.id, a, b


def _vector(
    node: ast.AST,
    vectors: set[str],
    lengths: dict[str, int],
    n: int | None,
    fixed: dict[str, int] | None = None,
):
    """The length of the vector ``node`` computes entry by entry from ``vectors`` (of n
    entries), 1-D constants (``fixed``: their lengths), slices of inputs and numbers; 0
    for a number; None where it does not."""
    if _number(node):
        return 0
    if isinstance(node, ast.Name):
        if fixed and node.id in fixed:
            return fixed[node.id]
        return n if node.id in vectors else None
    cut = _input_slice(node, lengths)
    if cut is not None:
        return cut[2] - cut[1]
    parts: list[ast.AST]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        parts = [node.operand]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _PLAIN):
        parts = [node.left, node.right]
        if isinstance(node.op, ast.Pow) and not _number(node.right):
            return None
    elif _call(node) == "ravel" and len(node.args) == 1 and not node.keywords:
        parts = [node.args[0]]
        if not isinstance(parts[0], ast.Name):
            return None
    elif _call(node) in _UFUNCS:
        parts = list(node.args)
        for k in node.keywords:
            if k.arg == "out" and isinstance(k.value, ast.Name) and k.value.id in vectors:
                continue
            if k.arg == "dtype" and isinstance(k.value, ast.Name) and k.value.id == "float":
                continue
            return None
    else:
        return None
    sizes = [_vector(p, vectors, lengths, n, fixed) for p in parts]
    if any(s is None for s in sizes):
        return None
    long = {s for s in sizes if s}
    if len(long) != 1:
        return None  # numbers alone, or vectors of two lengths
    return long.pop()


def _allocation(s: ast.stmt) -> bool:
    """``t = numpy.empty(k)`` (or zeros): reads nothing, may go before the run."""
    return (
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and _call(s.value) in ("empty", "zeros")
        and len(s.value.args) == 1
        and not s.value.keywords
        and _int(s.value.args[0]) is not None
    )


def _run(
    body: list[ast.stmt], i: int, lengths: dict[str, int], fixed: dict[str, int]
) -> tuple[int, int, set[str]] | None:
    """The end of the elementwise run starting at statement ``i``, its vectors' length
    and names; None where none of :data:`FROM` entries and two computing statements
    starts there."""
    vectors: set[str] = set()
    n: int | None = None
    end, computing, k = i, 0, i
    while k < len(body):
        s = body[k]
        if isinstance(s, ast.Delete):
            if not all(isinstance(t, ast.Name) for t in s.targets):
                break
        elif _allocation(s):
            pass
        elif isinstance(s, ast.Assign) and len(s.targets) == 1:
            t = s.targets[0]
            size = None
            if isinstance(t, ast.Name):
                size = _vector(s.value, vectors, lengths, n, fixed)
            if size is None or (n is not None and size != n) or t.id in vectors:
                break
            n = size
            vectors.add(t.id)
            if _input_slice(s.value, lengths) is None:
                computing += 1
            end = k + 1
        else:
            break
        k += 1
    if n is None or n < FROM or computing < 2:
        return None
    return end, n, vectors


def _reads(stmts: list[ast.stmt]) -> set[str]:
    return {
        node.id
        for s in stmts
        for node in ast.walk(s)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def _assigned(run: list[ast.stmt]) -> list[str]:
    return [s.targets[0].id for s in run if isinstance(s, ast.Assign) and not _allocation(s)]


def _cut(node: ast.AST) -> tuple[str, int, int, int] | None:
    """``T[a:b]`` or ``T[a:b:p]`` with constant bounds: (T, a, b, p)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    s = node.slice
    if not isinstance(s, ast.Slice) or s.lower is None or s.upper is None:
        return None
    a, b = _int(s.lower), _int(s.upper)
    p = 1 if s.step is None else _int(s.step)
    if a is None or b is None or p is None or p < 1 or not 0 <= a < b:
        return None
    return node.value.id, a, b, p


def _last(a: int, b: int, p: int) -> int:
    return a + (b - 1 - a) // p * p


def _moving(node: ast.AST) -> tuple[int, int] | None:
    """``p * _lo`` or ``s + p * _lo`` (the assembly's blocked writes): (s, p)."""
    s = 0
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        s, node = _int(node.left), node.right
        if s is None:
            return None
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return None
    p = _int(node.left)
    if p is None or not (isinstance(node.right, ast.Name) and node.right.id == "_lo"):
        return None
    return s, p


def _blocked_write(line: ast.stmt, n: int, vectors: set[str], allocated: set[str]):
    """A line of the assembly's blocked writes, ``T[s + p * _lo:s + p * _hi:p] =
    V[_lo:_hi]`` (V a vector of the run): (T, s, p, V)."""
    if not (isinstance(line, ast.Assign) and len(line.targets) == 1):
        return None
    t, v = line.targets[0], line.value
    if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)):
        return None
    if not (isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name)):
        return None
    if t.value.id not in allocated or v.value.id not in vectors:
        return None
    ts, vs = t.slice, v.slice
    if not (isinstance(ts, ast.Slice) and isinstance(vs, ast.Slice)):
        return None
    if ast.dump(vs) != ast.dump(
        ast.Slice(ast.Name("_lo", ast.Load()), ast.Name("_hi", ast.Load()))
    ):
        return None
    lower = _moving(ts.lower) if ts.lower is not None else None
    if lower is None or ts.step is None or _int(ts.step) != lower[1]:
        return None
    s, p = lower
    hi = ast.unparse(ts.upper) if ts.upper is not None else ""
    if hi != (f"{s} + {p} * _hi" if s else f"{p} * _hi"):
        return None
    return t.value.id, s, p, v.value.id


def _blocked_loop(s: ast.stmt, n: int, vectors: set[str], allocated: set[str]):
    """The assembly's loop of blocked writes over all n entries (each line
    :func:`_blocked_write`): its lines' (T, s, p, V)."""
    if not (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and s.target.id == "_lo"):
        return None
    if s.orelse or len(s.body) < 2 or not isinstance(s.iter, ast.Call):
        return None
    it = s.iter
    if not (isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 3):
        return None
    if _int(it.args[0]) != 0 or _int(it.args[1]) != n or _int(it.args[2]) is None:
        return None
    first = ast.unparse(s.body[0])
    if first != f"_hi = min(_lo + {_int(it.args[2])}, {n})":
        return None
    found = [_blocked_write(line, n, vectors, allocated) for line in s.body[1:]]
    return None if any(f is None for f in found) else found


def _in_place(s: ast.stmt, n: int, vectors: set[str], views: set[str]):
    """``numpy.f(V[a:b], ..., out=V[a:b])``: a ufunc on a part of a run's vector (not an
    input's view), its other operands numbers or that part: (V, a, b)."""
    if not (isinstance(s, ast.Expr) and _call(s.value) in _UFUNCS):
        return None
    c = s.value
    if len(c.keywords) != 1 or c.keywords[0].arg != "out":
        return None
    part = _cut(c.keywords[0].value)
    if part is None or part[3] != 1 or part[0] not in vectors or part[0] in views:
        return None
    if part[2] > n:
        return None
    text = ast.unparse(c.keywords[0].value)
    for a in c.args:
        if not (_number(a) or ast.unparse(a) == text):
            return None
    return part[:3]


def _written_into(
    s: ast.stmt,
    n: int,
    vectors: set[str],
    allocated: set[str],
    lengths: dict[str, int],
    fixed: dict[str, int],
) -> tuple[str, int, int] | None:
    """``numpy.f(..., out=T[a:b:p])``: a ufunc of the run's vectors (entry by entry)
    written into n entries of a new vector T: (T, a, p)."""
    if not (isinstance(s, ast.Expr) and _call(s.value) in _UFUNCS):
        return None
    c = s.value
    if len(c.keywords) != 1 or c.keywords[0].arg != "out":
        return None
    cut = _cut(c.keywords[0].value)
    if cut is None or cut[0] not in allocated or len(range(*cut[1:])) != n:
        return None
    if _vector(ast.Call(c.func, c.args, []), vectors, lengths, n, fixed) != n:
        return None
    return cut[0], cut[1], cut[3]


def _aliases(run: list[ast.stmt]) -> dict[str, set[str]]:
    """The run's names that may share memory (an ``out=``, a view, a ravel): groups."""
    group: dict[str, set[str]] = {}
    for s in run:
        if not isinstance(s, ast.Assign) or _allocation(s):
            continue
        t, v = s.targets[0].id, s.value
        other = None
        if isinstance(v, ast.Call):
            outs = [k.value for k in v.keywords if k.arg == "out"]
            if outs and isinstance(outs[0], ast.Name):
                other = outs[0].id
            elif _call(v) == "ravel":
                other = v.args[0].id
        elif isinstance(v, ast.Name):
            other = v.id
        elif isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name):
            other = v.value.id
        members = group.get(t, {t})
        if other is not None:
            members = members | group.get(other, {other})
        for m in members:
            group[m] = members
    return group


def _absorbed(
    body: list[ast.stmt],
    k: int,
    n: int,
    vectors: set[str],
    allocated: set[str],
    ends: set[str],
    lengths: dict[str, int],
    fixed: dict[str, int],
) -> tuple[int, list[tuple[str, ast.stmt, object]]]:
    """The statements from ``k`` on that the run's kernel does too, block by block: a
    ufunc on a part of a run's vector (:func:`_in_place`), the assembly's blocked or
    plain writes of run vectors into a new vector, ``del``, allocations, and constant
    writes into a new vector (done after the kernel: none precedes a kernel write it
    overlaps); (the end, [(kind, statement, what)])."""
    start = k
    views = set()
    group = _aliases(body[:k])
    found: list[tuple[str, ast.stmt, object]] = []
    consts: dict[str, list[tuple[int, int]]] = {}  # T -> deferred constant writes' spans
    stop = k

    def clashes(t: str, lo: int, hi: int) -> bool:
        return any(not (hi < a or b < lo) for a, b in consts.get(t, ()))

    for s in body[:k]:
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Subscript):
            views.add(s.targets[0].id)
    while k < len(body):
        s = body[k]
        kind, what = None, None
        if isinstance(s, ast.Delete) and all(isinstance(t, ast.Name) for t in s.targets):
            kind = "del"
        elif _allocation(s):
            kind = "alloc"
            allocated.add(s.targets[0].id)
        elif (part := _in_place(s, n, vectors, views)) is not None:
            later = _reads(body[k + 1 :]) | ends
            if group.get(part[0], {part[0]}) - {part[0]} & later:
                break
            kind, what = "in place", part
        elif (into := _written_into(s, n, vectors, allocated, lengths, fixed)) is not None:
            t, a, p = into
            if clashes(t, a, a + p * (n - 1)):
                break
            kind, what = "into", into
        elif (lines := _blocked_loop(s, n, vectors, allocated)) is not None:
            if any(clashes(t, a, a + p * (n - 1)) for t, a, p, _ in lines):
                break
            kind, what = "loop", lines
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and (cut := _cut(s.targets[0])):
            t, a, b, p = cut
            if t not in allocated:
                break
            if _number(s.value):
                kind = "const"
                consts.setdefault(t, []).append((a, _last(a, b, p)))
            elif isinstance(s.value, ast.Name) and s.value.id in vectors:
                if len(range(a, b, p)) != n or clashes(t, a, _last(a, b, p)):
                    break
                kind, what = "write", (t, a, p, s.value.id)
            else:
                break
        else:
            break
        found.append((kind, s, what))
        k += 1
        if kind in ("in place", "loop", "write"):
            stop = k
    return stop, found[: stop - start]


class _Replaced(ast.NodeTransformer):
    """Each subscript printed as ``part`` replaced by the name ``_v``."""

    def __init__(self, part: str) -> None:
        self.part = part

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if ast.unparse(node) == self.part:
            return ast.Name("_v", ast.Load())
        return self.generic_visit(node)


class _Blocked(ast.NodeTransformer):
    """A run's statement as the kernel's: input slices shifted by the block's start and
    cut to its length, constants of the run's length cut to the block, the names read
    after the run renamed (``_s_`` + name)."""

    def __init__(
        self, lengths: dict[str, int], renamed: dict[str, str], n: int, fixed: dict[str, int]
    ) -> None:
        self.lengths, self.renamed = lengths, renamed
        self.constants = {k for k, v in fixed.items() if v == n}

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        cut = _input_slice(node, self.lengths)
        if cut is None:
            return self.generic_visit(node)
        base, a, _ = cut
        return _at(base, a)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.constants and isinstance(node.ctx, ast.Load):
            return _at(node.id, 0)
        if node.id in self.renamed:
            return ast.Name(self.renamed[node.id], node.ctx)
        return node


def _at(base: str, a: int, p: int = 1) -> ast.Subscript:
    """``base[a + p * _lo:a + p * _hi:p]`` (no ``a +`` for 0, no ``p *`` or ``:p`` for 1)."""

    def shifted(name: str) -> ast.expr:
        x: ast.expr = ast.Name(name, ast.Load())
        if p != 1:
            x = ast.BinOp(ast.Constant(p), ast.Mult(), x)
        return x if a == 0 else ast.BinOp(ast.Constant(a), ast.Add(), x)

    step = None if p == 1 else ast.Constant(p)
    return ast.Subscript(
        ast.Name(base, ast.Load()), ast.Slice(shifted("_lo"), shifted("_hi"), step), ast.Load()
    )


def _into(value: ast.expr, whole: str) -> ast.expr | None:
    """``value`` written into ``whole[_lo:_hi]`` by its ufunc's ``out=``; None where it is
    no ufunc call or plain arithmetic (the caller copies it there instead)."""
    target = _at(whole, 0)
    if _call(value) in _UFUNCS:
        keywords = [k for k in value.keywords if k.arg != "out"]
        return ast.Call(value.func, value.args, [*keywords, ast.keyword("out", target)])
    if isinstance(value, ast.BinOp) and type(value.op) in _OPS:
        func = ast.Attribute(ast.Name("numpy", ast.Load()), _OPS[type(value.op)], ast.Load())
        return ast.Call(func, [value.left, value.right], [ast.keyword("out", target)])
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        func = ast.Attribute(ast.Name("numpy", ast.Load()), "negative", ast.Load())
        return ast.Call(func, [value.operand], [ast.keyword("out", target)])
    return None


@dataclass
class _Region:
    """An elementwise run and the statements after it its kernel does too."""

    run: list[ast.stmt]
    absorbed: list[tuple[str, ast.stmt, object]]
    n: int
    lengths: dict[str, int]
    fixed: dict[str, int]

    def kernel_names(self, after: list[ast.stmt], ends: set[str]) -> set[str]:
        """The run's names that live in its kernel alone (not read after the region)."""
        kept = _reads(after) | ends | self._deferred_reads()
        return {t for t in _assigned(self.run) if t not in kept}

    def saved(self, after: list[ast.stmt], ends: set[str]) -> int:
        """How many computing statements' vectors stay in the kernel."""
        local = self.kernel_names(after, ends)
        return sum(
            1
            for s in self.run
            if isinstance(s, ast.Assign)
            and s.targets[0].id in local
            and not _input_slice(s.value, self.lengths)
        )

    def _deferred_reads(self) -> set[str]:
        return _reads([s for kind, s, _ in self.absorbed if kind == "const"])

    def lines(self, after: list[ast.stmt], ends: set[str]) -> list[str]:
        """The region as a kernel over blocks (module docstring): its allocations first,
        then the whole vectors of the names read after it, the kernel, the call, the
        views read after it bound again, the constant writes it deferred and the names
        it deleted that it did not make deleted."""
        n, run = self.n, self.run
        kept = _reads(after) | ends | self._deferred_reads()
        assigned = _assigned(run)
        views = {
            s.targets[0].id: s
            for s in run
            if isinstance(s, ast.Assign)
            and not _allocation(s)
            and _input_slice(s.value, self.lengths)
        }
        whole = [t for t in assigned if t in kept and t not in views]
        renamed = {t: f"_s_{t}" for t in whole}
        blocked = _Blocked(self.lengths, renamed, self.n, self.fixed)
        statements = [*run, *(s for _, s, _ in self.absorbed)]
        head: list[str] = [ast.unparse(s) for s in statements if _allocation(s)]
        head += [f"{t} = numpy.empty({n})" for t in whole]
        kernel = ["def _strip(_lo, _hi):"]
        outside: list[str] = []  # names the region deleted that it did not make
        for s in statements:
            if isinstance(s, ast.Delete):
                outside += [t for t in _deleted(s) if t not in assigned]
            elif isinstance(s, ast.Assign) and not _allocation(s) and s in run:
                kernel += self._assignment(s, blocked, renamed)
        for kind, s, what in self.absorbed:
            kernel += self._kernel_lines(kind, s, what, renamed, blocked)
        lines = [*head, "", *kernel, "", f"_strips(_strip, {n}, {BLOCK})"]
        lines += [ast.unparse(views[t]) for t in assigned if t in views and t in kept]
        lines += [ast.unparse(s) for kind, s, _ in self.absorbed if kind == "const"]
        lines.append(f"del {', '.join(['_strip', *sorted(set(outside))])}")
        return lines

    @staticmethod
    def _assignment(s: ast.Assign, blocked: _Blocked, renamed: dict[str, str]) -> list[str]:
        t = s.targets[0].id
        value = blocked.visit(s.value)
        if t not in renamed:
            return [f"    {t} = {ast.unparse(value)}"]
        into = _into(value, t)
        if into is None:
            return [f"    {t}[_lo:_hi] = {ast.unparse(value)}", f"    {renamed[t]} = {t}[_lo:_hi]"]
        return [f"    {renamed[t]} = {ast.unparse(into)}"]

    @staticmethod
    def _kernel_lines(
        kind: str, s: ast.stmt, what, renamed: dict[str, str], blocked: _Blocked
    ) -> list[str]:
        """An absorbed statement's lines in the kernel (its part of the block)."""
        if kind == "into":  # the ufunc's out= its entries' part of the block
            t, a, p = what
            call = s.value
            keywords = [k for k in call.keywords if k.arg != "out"]
            call = ast.Call(call.func, call.args, [*keywords, ast.keyword("out", _at(t, a, p))])
            return [f"    {ast.unparse(blocked.visit(call))}"]
        if kind == "in place":  # the part of v in the block, where it meets it
            v, a, b = what
            part = ast.unparse(s.value.keywords[0].value)
            call = _Replaced(part).visit(s.value)
            return [
                f"    if _lo < {b} and {a} < _hi:",
                f"        _v = {renamed.get(v, v)}[max({a} - _lo, 0):min({b}, _hi) - _lo]",
                f"        {ast.unparse(call)}",
            ]
        if kind == "loop":
            return [f"    {ast.unparse(_at(t, a, p))} = {renamed.get(v, v)}" for t, a, p, v in what]
        if kind == "write":
            t, s, p, v = what
            return [f"    {ast.unparse(_at(t, s, p))} = {renamed.get(v, v)}"]
        return []
