"""From assignments to a straight line: constant propagation, ``cse`` over everything,
inlining of single uses where not more expensive, powers as products, dead values
dropped — run in the orders of :data:`PIPELINES` and the cheapest kept (counts by the one
rule of :mod:`dgraph.codegen.counting`)."""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable

import sympy

from ..core.extremes import held, released
from ..core.graph import DGraph
from ..core.rebuild import rebuilt, replaced
from ..errors import DGraphError
from .counting import Ops, count_ops, fold_constants, symbols_in
from .ir import (
    STATEMENT_HEIGHT,
    Assignment,
    Program,
    Result,
    bottom_up,
    fresh,
    height,
    in_order,
    sorted_symbols,
)
from .lowering import lowered
from .pieces import pieces_held, pieces_released

__all__ = [
    "PIPELINES",
    "SOLVED_PIPELINES",
    "WORK_LIMIT",
    "affordable",
    "build_program",
    "split_wide",
    "straight_line",
]


def build_program(
    name: str,
    graph: DGraph,
    arguments: list[tuple[str, tuple[sympy.Symbol, ...]]],
    named: list[Assignment],
    results: list[Result],
    method: str = "",
    pipelines: tuple[str, ...] | None = None,
) -> Program:
    """The scalar path's one builder: ``named`` and ``results`` through the sympy passes
    (:func:`straight_line`, :func:`split_wide`), then lowered to array statements of shape
    () and through the array passes every level shares (:func:`~dgraph.codegen.lowering.lowered`).

    Raises
    ------
    DGraphError
        Where a statement reads a value nothing defines (a vertex without expression).
    """
    given = {s for _, symbols in arguments for s in symbols}
    assignments, results = straight_line(named, results, given, pipelines)
    assignments, results = split_wide(assignments, results, given)
    defined = given | {s for s, _ in assignments}
    for _, e in [*assignments, *results]:
        _check_defined(e, defined, graph)
    results = [(k, e) for k, e in results if e != 0]
    shape = {
        "jacobian": (len(graph.outputs), len(graph.inputs)),
        "primal": (len(graph.outputs),),
        "jvp": (len(graph.outputs),),
        "vjp": (len(graph.inputs),),
        # the outputs, then the Jacobian row-major (the printers split them)
        "value_and_jacobian": (len(graph.outputs) * (1 + len(graph.inputs)),),
    }[name]
    program = Program(
        name,
        tuple((a, tuple(s)) for a, s in arguments),
        tuple(assignments),
        tuple(results),
        shape,
        method,
    )
    return lowered(program)


# The most arguments a printed sum or product has: Python's compiler (and a C compiler's
# parser) nest ``a*b*c*...`` one level per operand, and a 5,000-factor product, the
# Jacobian of a 5,000-step loop, ends Python's in RecursionError
LONGEST = 256


def split_wide(
    named: list[Assignment], results: list[Result], given: Iterable[sympy.Symbol]
) -> tuple[list[Assignment], list[Result]]:
    """Every sum or product of more than :data:`LONGEST` arguments computed in parts,
    ``w<k>`` the running sum or product of each part (the same operations: one addition or
    multiplication per argument after the first, the parts in order); where that would
    change the counts (a quotient's denominators split across parts), it is left whole."""
    exprs = [e for _, e in named] + [e for _, e in results]
    if not any(_has_long(e) for e in exprs):
        return named, results
    taken = set(given) | {s for s, _ in named}
    for e in exprs:
        taken |= symbols_in(e)
    temps = fresh("w", taken)
    out: list[Assignment] = []

    def split(e: sympy.Expr) -> sympy.Expr:
        parts: list[Assignment] = []

        def combined(node: sympy.Basic, args: list) -> sympy.Basic:
            if (node.is_Add or node.is_Mul) and len(args) > LONGEST:
                return _in_parts(node.func, args, temps, parts)
            return rebuilt(node, args)

        result = bottom_up(e, combined)
        if count_ops([result, *(d for _, d in parts)]).key() != count_ops([e]).key():
            return e
        out.extend(parts)
        return result

    kept: list[Assignment] = []
    for s, e in named:
        e = split(e) if _has_long(e) else e
        kept.extend(out)
        out.clear()
        kept.append((s, e))
    final = []
    for k, e in results:
        final.append((k, split(e) if _has_long(e) else e))
    return kept + out, final


def _has_long(e: sympy.Expr) -> bool:
    stack = [e]
    while stack:
        node = stack.pop()
        if (node.is_Add or node.is_Mul) and len(node.args) > LONGEST:
            return True
        stack.extend(node.args)
    return False


def _in_parts(func, args: list[sympy.Expr], temps, parts: list[Assignment]) -> sympy.Expr:
    """``func(*args)`` as running parts of :data:`LONGEST` arguments each."""
    running = func(*args[:LONGEST])
    for start in range(LONGEST, len(args), LONGEST - 1):
        name = next(temps)
        parts.append((name, running))
        running = func(name, *args[start : start + LONGEST - 1])
    return running


def _check_defined(expr: sympy.Expr, defined: set[sympy.Symbol], graph: DGraph) -> None:
    missing = symbols_in(expr) - defined
    if missing:
        name = str(sorted(missing, key=str)[0])
        vertex = name[2:] if name.startswith("v_") else name
        if vertex in graph:
            raise DGraphError(f"vertex {vertex!r} has no expression; its value is needed")
        raise DGraphError(f"the generated program uses {name!r} before defining it")


# Pass orders tried, the cheapest program (after any pass) wins: i = inline single uses,
# c = cse, f = float constant factors into uses, k = factor sums, p = share powers. No
# single order is best on every function (measured on the benchmark suite and
# benchmarks/codegen_functions.py); the first three give the best program of all six on
# every one of those 21 functions, so they come first.
PIPELINES = ("ic", "fcikcfcikci", "cickci", "cpcickci", "fcpcikci", "fcfcickci")
# A linear system's programs (:mod:`dgraph.codegen.implicit`) are mostly solves, whose sums
# share factors that only the factoring order finds (3-link pendulum, forward: 243
# multiplications after "ic", 156 after this one); the other orders were no better on the
# 2- to 6-link pendulums, so this one alone builds them.
SOLVED_PIPELINES = PIPELINES[1:2]
# Passes times operations of the programs that the passes may spend: all of PIPELINES (44
# passes) up to about 340 operations, fewer beyond (each pass costs about its size, cse
# more: some 0.1 ms per operation). A count, never a time: the same graph gets the same
# passes on any machine.
WORK_LIMIT = 15_000


def affordable(size: int, work: int = WORK_LIMIT) -> tuple[str, ...]:
    """The leading pass orders of :data:`PIPELINES` whose passes over a program of ``size``
    operations fit in ``work`` (always the first)."""
    chosen: list[str] = []
    for pipeline in PIPELINES:
        work -= len(pipeline) * max(size, 1)
        if chosen and work < 0:
            break
        chosen.append(pipeline)
    return tuple(chosen)


def straight_line(
    named: list[Assignment],
    results: list[Result],
    given: set[sympy.Symbol],
    pipelines: tuple[str, ...] | None = None,
) -> tuple[list[Assignment], list[Result]]:
    """Propagate and drop the dead, then run each pass order of ``pipelines`` (default:
    those :func:`_affordable` at the program's size) and keep the cheapest program seen
    after any pass. The same program met again (the same graph built by the same method
    again, by another caller) is looked up whole (:data:`_LINES`)."""
    whole = (tuple(named), tuple(results), frozenset(given), pipelines)
    found = _LINES.get(whole)
    if found is not None:
        _LINES.move_to_end(whole)
        return list(found[0]), list(found[1])
    best_named, best_results = _straight_line(named, results, given, pipelines)
    _LINES[whole] = (tuple(best_named), tuple(best_results))
    if len(_LINES) > _LINES_LIMIT:
        _LINES.popitem(last=False)
    return best_named, best_results


# Programs already made straight, by (assignments, results, given, pass orders): each
# entry holds the program and its best, where :data:`_DONE` holds every program met on
# the way (some 44 per program), so this one keeps many more programs for the memory
_LINES: OrderedDict[tuple, tuple] = OrderedDict()
_LINES_LIMIT = 512


def _straight_line(
    named: list[Assignment],
    results: list[Result],
    given: set[sympy.Symbol],
    pipelines: tuple[str, ...] | None,
) -> tuple[list[Assignment], list[Result]]:
    """:func:`straight_line` of a program not met before."""
    named, results = _propagate(named, results)
    named = _live(named, results)
    if pipelines is None:
        pipelines = affordable(_ops(named, results).total)
    passes = {
        "i": _inline_single_use,
        "c": lambda n, r: _cse(n, r, given),
        "f": _float_scales,
        "k": lambda n, r: _collect(n, r, given),
        "p": lambda n, r: _powers(n, r, given),
    }
    best = (_cost(named, results), named, results)
    # Every pass is a function of the program alone (and ``given``), so a pass met again
    # on a program seen before (a shared prefix of two orders, a pass that changed
    # nothing, or the same program built again: a candidate's first pass order, then all
    # of them once it is shortlisted) is looked up, not rerun: the same programs and
    # costs, fewer passes. The look-up keys hold the programs' expressions (sympy's
    # structural equality, hashes that tell Float precisions apart), never object ids.
    frozen = frozenset(given)
    for pipeline in pipelines:
        current = (named, results)
        for step in pipeline:
            key = (step, tuple(current[0]), tuple(current[1]), frozen)
            found = _DONE.get(key)
            if found is None:  # the passes get copies: a kept program is never changed
                after = _propagate(*passes[step](list(current[0]), list(current[1])))
                after = (_live(*after), after[1])
                found = (_cost(*after), after)
                _remember(key, found)
            else:
                _DONE.move_to_end(key)
            cost, current = found
            if cost < best[0]:
                best = (cost, *current)
    return list(best[1]), list(best[2])


# Passes already run, by (pass, program, given): kept for the process, the least recently
# met dropped beyond _DONE_LIMIT entries (the passes of a few dozen programs).
_DONE: OrderedDict[tuple, tuple] = OrderedDict()
_DONE_LIMIT = 1024


def _remember(key: tuple, found: tuple) -> None:
    _DONE[key] = found
    if len(_DONE) > _DONE_LIMIT:
        _DONE.popitem(last=False)


def _ops(named: list[Assignment], results: list[Result]) -> Ops:
    return count_ops([e for _, e in named] + [e for _, e in results])


def _cost(named: list[Assignment], results: list[Result]) -> tuple[int, int, int]:
    return _ops(named, results).key()


def _propagate(
    named: list[Assignment], results: list[Result]
) -> tuple[list[Assignment], list[Result]]:
    """Fold constants; substitute assignments that are a plain symbol or number."""
    known: dict[sympy.Symbol, sympy.Expr] = {}
    kept = []
    for s, e in named:
        e = fold_constants(_replaced(e, known))
        if e.is_Atom:
            known[s] = e
        else:
            kept.append((s, e))
    return kept, [(k, fold_constants(_replaced(e, known))) for k, e in results]


def _replaced(expr: sympy.Expr, mapping: dict[sympy.Symbol, sympy.Expr]) -> sympy.Expr:
    """``expr.xreplace(mapping)`` (a mapping of program variables, never bound in an
    expression), a number kept a factor of a sum (:func:`~dgraph.core.rebuild.replaced`);
    ``expr`` itself, as xreplace returns it, without walking its tree, when
    none of them occurs in it (most passes leave nothing to substitute)."""
    if not mapping or mapping.keys().isdisjoint(symbols_in(expr)):
        return expr
    return replaced(expr, mapping)


def _float_scales(
    named: list[Assignment], results: list[Result]
) -> tuple[list[Assignment], list[Result]]:
    """Move constant factors from definitions into their uses: ``s = c*E`` becomes
    ``s = E`` and every use of ``s`` reads ``c*s``, so constants meet and fold."""
    scaled: dict[sympy.Symbol, sympy.Expr] = {}
    kept = []
    for s, e in named:
        e = _replaced(e, scaled)
        c, rest = e.as_coeff_Mul()
        if c == 1:
            kept.append((s, e))
        elif rest.is_Atom:
            scaled[s] = e
        else:
            kept.append((s, rest))
            scaled[s] = c * s
    return kept, [(k, _replaced(e, scaled)) for k, e in results]


def _collect(
    named: list[Assignment], results: list[Result], given: Iterable[sympy.Symbol]
) -> tuple[list[Assignment], list[Result]]:
    """Factor sums: a factor shared by several terms is multiplied once
    (``a*b + a*c -> a*(b + c)``), greedily, the factor saving most first."""
    taken = set(given) | {s for s, _ in named}
    for _, e in [*named, *results]:
        taken |= symbols_in(e)
    temps = fresh("f", taken)
    out: list[Assignment] = []

    def factor(e: sympy.Expr) -> sympy.Expr:
        while e.is_Add:  # a loop: a wide sum may have a factor to take out per pair
            best = _best_factor(e)
            if best is None:
                return e
            terms = [t.as_coeff_mul() for t in e.args]
            inner, rest = [], []
            for t, (c, fs) in zip(e.args, terms, strict=True):
                if best.is_Number and abs(c) == best:
                    inner.append(sympy.Mul(1 if c > 0 else -1, *fs))
                elif best in fs:
                    remaining = list(fs)
                    remaining.remove(best)
                    inner.append(sympy.Mul(c, *remaining))
                else:
                    rest.append(t)
            t = next(temps)
            out.append((t, factor(sympy.Add(*inner))))
            e = sympy.Add(*rest, best * t)
        return e

    for s, e in named:
        e = factor(e)
        out.append((s, e))
    results = [(k, factor(e)) for k, e in results]
    return out, results


def _best_factor(e: sympy.Add) -> sympy.Expr | None:
    """The factor of ``e``'s terms whose taking out saves most (the first of equals in
    the terms' own order), or None when none saves anything."""
    terms = [t.as_coeff_mul() for t in e.args]
    seen: Counter = Counter()
    for c, fs in terms:  # in the terms' own order: ties break the same way every run
        seen.update(list(dict.fromkeys([*fs, *([abs(c)] if c not in (1, -1) else [])])))
    best, saving = None, 0
    for f, k in seen.items():
        if k < 2:
            continue
        gain = -1 + sum(
            1 for c, fs in terms if (f in fs or abs(c) == f) and len(fs) + (c not in (1, -1)) > 1
        )
        if gain > saving:
            best, saving = f, gain
    return best


def _powers(
    named: list[Assignment], results: list[Result], given: Iterable[sympy.Symbol]
) -> tuple[list[Assignment], list[Result]]:
    """Share integer powers of one base: negative ones go through one reciprocal
    (``x**-2``, ``x**-1`` -> ``r = 1/x``, ``r*r``, ``r``), and each power is one product of
    two powers already computed (``x**2``, ``x**3 = x**2*x``). sympy's ``cse`` sees
    ``x**2`` and ``x**3`` as unrelated."""
    taken = set(given) | {s for s, _ in named}
    for _, e in [*named, *results]:
        taken |= symbols_in(e)
    temps = fresh("p", taken)
    exponents: dict[sympy.Expr, set[int]] = {}
    for _, e in [*named, *results]:
        for a in sympy.preorder_traversal(e):
            if a.is_Pow and a.exp.is_Integer and a.exp not in (0, 1):
                exponents.setdefault(a.base, set()).add(int(a.exp))
    out: list[Assignment] = []
    replace: dict[sympy.Expr, sympy.Expr] = {}
    for base, ks in exponents.items():
        negative = sorted(-k for k in ks if k < 0)
        positive = sorted(k for k in ks if k > 0)
        for sign, wanted in ((1, positive), (-1, negative)):
            if not wanted or (sign == -1 and wanted == [1]):
                continue  # a lone 1/x stays a division where it is used
            root = base
            if sign == -1:
                root = next(temps)
                out.append((root, 1 / base))
            power = {1: root}
            for k in wanted:
                _power_chain(power, k, out, temps)
                replace[sympy.Pow(base, sign * k)] = power[k]
    if not replace:
        return named, results
    # each power right after the last value it reads
    defined, pending, ordered = set(given), list(out), []

    def release() -> None:
        ready = next((a for a in pending if symbols_in(a[1]) <= defined), None)
        while ready is not None:
            pending.remove(ready)
            ordered.append(ready)
            defined.add(ready[0])
            ready = next((a for a in pending if symbols_in(a[1]) <= defined), None)

    release()
    for s, e in named:
        ordered.append((s, e.xreplace(replace)))
        defined.add(s)
        release()
    return ordered + pending, [(k, e.xreplace(replace)) for k, e in results]


def _power_chain(power: dict[int, sympy.Expr], k: int, out: list[Assignment], temps) -> None:
    """Make ``power[k]`` one product of two known powers, adding the missing halves."""
    if k in power:
        return
    j = max((j for j in power if k - j in power), default=None)
    if j is None:
        j = k // 2
        _power_chain(power, j, out, temps)
        _power_chain(power, k - j, out, temps)
    symbol = next(temps)
    out.append((symbol, power[j] * power[k - j]))
    power[k] = symbol


def _live(named: list[Assignment], results: list[Result]) -> list[Assignment]:
    """The assignments the results depend on, in order."""
    needed = set().union(*(symbols_in(e) for _, e in results)) if results else set()
    kept = []
    for s, e in reversed(named):
        if s in needed:
            kept.append((s, e))
            needed |= symbols_in(e)
    return kept[::-1]


def _occurrences(expr: sympy.Expr) -> Counter[sympy.Symbol]:
    """Each symbol's occurrences in ``expr``'s tree (without recursion)."""
    found: Counter[sympy.Symbol] = Counter()
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Symbol:
            found[e] += 1
        else:
            stack.extend(e.args)
    return found


# An assignment used once in a sum or product of at least this many arguments is
# substituted together with the others used there, in one rebuild: one at a time rebuilds
# the whole sum per assignment (quadratic: the product of a time-stepping loop's 5,000
# partials, a statement summing 1,000 terms)
WIDE = 16


def _inline_single_use(
    named: list[Assignment], results: list[Result]
) -> tuple[list[Assignment], list[Result]]:
    """Substitute each assignment used exactly once into its use when the use does not
    get more expensive than the two together (constant factors then fold) and does not
    nest deeper than :data:`~dgraph.codegen.ir.STATEMENT_HEIGHT` (a chain of single
    uses, ``v2 = sin(v1)``, ``v3 = sin(v2)``, ..., stays a chain of statements), nor a
    :data:`WIDE` sum or product into another (a tangent sweep's ``t_k = d_k*t_(k-1)``
    would grow one product, rebuilt at every step). Those used in a wide sum or product
    go in together, when all of them together cost no more."""
    exprs: dict[object, sympy.Expr] = {s: e for s, e in named}
    exprs.update({("result", i): e for i, (_, e) in enumerate(results)})
    uses: Counter[sympy.Symbol] = Counter()
    user: dict[sympy.Symbol, object] = {}
    for key, e in exprs.items():
        for s, k in _occurrences(e).items():
            uses[s] += k
            user[s] = key
    heights: dict[object, int] = {}  # an upper bound of each expression's height
    together: dict[object, list[sympy.Symbol]] = {}

    def bound(key: object) -> int:
        if key not in heights:
            heights[key] = height(exprs[key])
        return heights[key]

    for s, _ in named:
        if s in together:  # what waited for s goes in before s itself moves
            _substitute_together(exprs, user, s, together.pop(s))
            heights.pop(s, None)
        if uses[s] != 1:
            continue
        key = user[s]
        before, definition = exprs[key], exprs[s]
        if _wide(before):
            together.setdefault(key, []).append(s)
            continue
        if definition.func is before.func and _wide(definition):
            continue  # t_k = d_k*t_(k-1) stays a chain of products of at most WIDE factors
        if _compared_pieces(before, s, definition):
            continue
        after = _substituted(before, {s: definition})
        nested = bound(key) + bound(s)
        if nested > STATEMENT_HEIGHT:
            nested = height(after)
            if nested > STATEMENT_HEIGHT:
                continue
        if count_ops([after]).key() <= (count_ops([before]) + count_ops([definition])).key():
            exprs[key] = after
            heights[key] = nested
            del exprs[s]
            for t in symbols_in(definition):
                user[t] = key
    for key, symbols in together.items():
        _substitute_together(exprs, user, key, symbols)
    kept = [(s, exprs[s]) for s, _ in named if s in exprs]
    return kept, [(k, exprs["result", i]) for i, (k, _) in enumerate(results)]


def _compared_pieces(use: sympy.Expr, s: sympy.Symbol, definition: sympy.Expr) -> bool:
    """Whether ``definition`` is a sum of more than two ``Piecewise`` (a count of
    comparisons) and ``use`` compares ``s``: sympy folds a ``Piecewise`` inside a condition
    into one over every combination of the pieces' conditions (a count of 10 comparisons
    compared: 2¹⁰ pieces, minutes), so such a value stays a statement of its own (as
    :mod:`dgraph.core.expand` makes it). Only the sum's own terms are looked at: this runs
    for every value used once."""
    if not definition.is_Add or sum(isinstance(a, sympy.Piecewise) for a in definition.args) <= 2:
        return False
    return any(s in r.free_symbols for r in use.atoms(sympy.core.relational.Relational))


def _wide(e: sympy.Expr) -> bool:
    return (e.is_Add or e.is_Mul) and len(e.args) >= WIDE


# rebuilt by :func:`_substituted` without sympy's evaluation (Piecewise is evaluated)
_UNEVALUATED = (sympy.Function, sympy.Max, sympy.Min)


def _substituted(expr: sympy.Expr, mapping: dict[sympy.Symbol, sympy.Expr]) -> sympy.Expr:
    """``expr.xreplace(mapping)`` without recursion, where a function of a substituted
    argument is not evaluated again (``sin(s)`` with ``s = sin(x)`` is ``sin(sin(x))``:
    sympy's evaluation of it walks the whole argument, every time a chain of calls
    grows by one), nor a Max or Min (sympy's evaluation compares its arguments pair by
    pair, asking their signs: 7 ms a rebuild in tests/test_numpy_idioms.py, 0.6 of its
    0.9 CPU-s here; unevaluated, as :func:`~dgraph.core.extremes.released` and
    :func:`_cse` leave them, the same maximum); sums, products and powers are rebuilt as
    sympy builds them (their constants fold). Remembered (:data:`_SUBSTITUTED`)."""

    key = (expr, frozenset(mapping.items()))
    found = _SUBSTITUTED.get(key)
    if found is not None:
        _SUBSTITUTED.move_to_end(key)
        return found

    def combined(e: sympy.Basic, args: list) -> sympy.Basic:
        if isinstance(e, _UNEVALUATED) and not isinstance(e, sympy.Piecewise):
            return rebuilt(e, args, evaluate=False)
        return rebuilt(e, args)

    found = bottom_up(expr, combined, dict(mapping))
    _SUBSTITUTED[key] = found
    if len(_SUBSTITUTED) > _SUBSTITUTED_LIMIT:
        _SUBSTITUTED.popitem(last=False)
    return found


# Substitutions made, by expression and mapping: the inlining pass meets the same use and
# definition again in another pass order or another candidate's program (1,416 of 3,043
# in tests/test_element_nan.py, 2,781 of 5,594 in tests/test_complex_fft.py)
_SUBSTITUTED: OrderedDict[tuple, sympy.Expr] = OrderedDict()
_SUBSTITUTED_LIMIT = 4096


def _substitute_together(
    exprs: dict[object, sympy.Expr],
    user: dict[sympy.Symbol, object],
    key: object,
    symbols: list[sympy.Symbol],
) -> None:
    """Substitute ``symbols`` (each used only in ``exprs[key]``) all at once when that
    is not more expensive and not too deep."""
    mapping = {s: exprs[s] for s in symbols}
    before = exprs[key]
    after = _substituted(before, mapping)
    if height(after) > STATEMENT_HEIGHT:
        return
    separate = count_ops([before, *mapping.values()])
    if count_ops([after]).key() <= separate.key():
        exprs[key] = after
        for s, definition in mapping.items():
            del exprs[s]
            for t in symbols_in(definition):
                user[t] = key


def _cse(
    named: list[Assignment], results: list[Result], given: Iterable[sympy.Symbol]
) -> tuple[list[Assignment], list[Result]]:
    """One ``sympy.cse`` over every assignment and result; shared subexpressions become
    new assignments, placed before their first use."""
    exprs = [e for _, e in named] + [e for _, e in results]
    taken = set(given) | {s for s, _ in named}
    for e in exprs:
        taken |= symbols_in(e)
    apart = _apart(exprs)
    handed = [e for e, a in zip(exprs, apart, strict=True) if not a]
    # Max, Min and Piecewise held: cse rebuilds each expression it walks, and sympy's Max
    # and Piecewise evaluate (:mod:`dgraph.codegen.pieces`)
    holding = [pieces_held(held(e)) for e in handed]
    replacements, reduced = sympy.cse(holding, symbols=fresh("s", taken)) if handed else ([], [])
    back = iter(reduced)
    reduced = [e if a else next(back) for e, a in zip(exprs, apart, strict=True)]
    replacements, reduced = _inline_conditions(replacements, reduced)
    if any(h is not e for h, e in zip(holding, handed, strict=True)):  # else none to release
        replacements = [(s, released(pieces_released(e))) for s, e in replacements]
        reduced = [released(pieces_released(e)) for e in reduced]
    definitions = dict(replacements)
    definitions.update((s, e) for (s, _), e in zip(named, reduced, strict=False))
    ordered: list[Assignment] = []
    done = set(given)
    in_order(definitions, [s for s, _ in named], done, ordered)
    results = [(k, e) for (k, _), e in zip(results, reduced[len(named) :], strict=True)]
    for _, e in results:
        in_order(definitions, sorted_symbols(symbols_in(e)), done, ordered)
    return ordered, results


def _apart(exprs: list[sympy.Expr]) -> list[bool]:
    """Which of ``exprs`` ``cse`` gives back as they are, told without it: applications
    of functions (``sin``, ``exp``, ...) to atoms and to such applications, none of whose
    subexpressions occurs twice among ``exprs`` (walked as ``cse`` finds repeats, each
    once). ``cse`` neither names a part of them nor pairs their arguments with others'
    (it does that in sums, products and powers only), but rebuilds each application it
    walks, evaluating it again (a 20,000-step chain's ``sin`` and ``cos`` statements:
    sympy's cache, of 1,000 entries, never holds them)."""
    seen: set[sympy.Basic] = set()
    repeated: set[sympy.Basic] = set()
    walked = []
    for e in exprs:
        nodes, stack = [], [e]
        while stack:
            node = stack.pop()
            if node.is_Atom:
                continue
            nodes.append(node)
            if node in seen:
                repeated.add(node)
                continue
            seen.add(node)
            stack.extend(node.args)
        walked.append(nodes)
    return [
        all(isinstance(n, sympy.Function) and n not in repeated for n in nodes) for nodes in walked
    ]


def _inline_conditions(
    replacements: list[Assignment], reduced: list[sympy.Expr]
) -> tuple[list[Assignment], list[sympy.Expr]]:
    """Put conditions ``cse`` named (``s1 = x > 0``) back into the ``Piecewise`` that use
    them: every program variable holds a number."""
    conditions: dict[sympy.Symbol, sympy.Basic] = {}
    kept = []
    for s, e in replacements:
        e = _conditioned(e, conditions) if conditions else e
        if isinstance(e, sympy.Expr):
            kept.append((s, e))
        else:
            conditions[s] = e
    if not conditions:
        return replacements, reduced
    return kept, [_conditioned(e, conditions) for e in reduced]


def _conditioned(expr: sympy.Basic, conditions: dict[sympy.Symbol, sympy.Basic]) -> sympy.Basic:
    """``expr.xreplace(conditions)``: ``expr`` itself where it reads none of them, else
    remembered by ``expr`` and the conditions it reads (:data:`_CONDITIONED`). Each
    rebuilt ``Piecewise`` evaluates again (most of ``cse``'s cost in
    tests/test_element_nan.py), and the pass orders and the candidates' programs hand
    ``cse`` the same statements again and again: the same Piecewise come back named by
    the same symbols."""
    used = symbols_in(expr) & conditions.keys()
    if not used:
        return expr
    mapping = {s: conditions[s] for s in used}
    key = (expr, frozenset(mapping.items()))
    found = _CONDITIONED.get(key)
    if found is None:
        found = expr.xreplace(mapping)
        _CONDITIONED[key] = found
        if len(_CONDITIONED) > _CONDITIONED_LIMIT:
            _CONDITIONED.popitem(last=False)
    else:
        _CONDITIONED.move_to_end(key)
    return found


# Expressions with the conditions cse named put back, by expression and conditions read:
# the last _CONDITIONED_LIMIT met
_CONDITIONED: OrderedDict[tuple, sympy.Basic] = OrderedDict()
_CONDITIONED_LIMIT = 4096
