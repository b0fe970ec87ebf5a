"""Several JAX functions of one program, its rewriting passes run once for all of them.

A symmetric Hessian's JAX module defines two jitted functions, every entry and the lower
triangle (:func:`~.module._symmetric_jax`): the same statements but where the gathers of
the values were pushed in (:func:`~.gathers.gathered`), the minimal surface's at 10⁶
unknowns all but its last. Each went through the gather composition, the grid search
and the constant folding on its own, the same work twice on the shared statements (some
0.4 s of CPU of its build). :func:`merged` puts the functions' statements into one list,
each shared statement once and each other under a name of its own; the passes run on
that list; :func:`split` takes each function's live statements back out under their own
names. The passes rewrite a statement from what it reads, never from who reads it, so each
function's statements are the ones its passes alone would have made."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from .. import ir
from ..ir import ArrayStatement

__all__ = ["merged", "split"]

_WORD = re.compile(r"\w+")


def merged(
    programs: Sequence[tuple[list[ArrayStatement], str]],
) -> tuple[list[ArrayStatement], list[str], list[dict[str, str]]] | None:
    """One statement list holding each of ``programs`` (its statements and its result's
    expression, Python text), each result's expression in the list's names, and for each
    program the names given back by :func:`split` (new to old): the first program's
    statements as they are, then each later one's that differ, a target the list already
    has renamed (``t`` to ``t_m2``). None where a program assigns a name twice or stores
    in place (the passes then run on each program alone)."""
    if any(_reassigns(statements) for statements, _ in programs):
        return None
    taken: set[str] = set()
    for statements, result in programs:
        taken.update(_WORD.findall(result))
        for s in statements:
            taken.add(s.target)
            taken.update(ir.names_in(s.value))
    out: list[ArrayStatement] = []
    made: dict[str, ArrayStatement] = {}
    results, renames = [], []
    for k, (statements, result) in enumerate(programs):
        names: dict[str, str] = {}
        for s in statements:
            statement = dataclasses.replace(s, value=ir.renamed(s.value, names))
            if made.get(s.target) == statement:
                continue  # the same statement: shared
            if s.target in made:
                names[s.target] = _fresh(s.target, k + 1, taken)
                statement = dataclasses.replace(statement, target=names[s.target])
            made[statement.target] = statement
            out.append(statement)
        results.append(_WORD.sub(lambda m, names=names: names.get(m[0], m[0]), result))
        renames.append({new: old for old, new in names.items()})
    return out, results, renames


def split(
    statements: list[ArrayStatement], results: Sequence[str], renames: Sequence[dict[str, str]]
) -> list[tuple[list[ArrayStatement], str]]:
    """Each result's live statements of ``statements`` (the passes run on
    :func:`merged`'s list) and its expression, under its program's own names again."""
    out = []
    for result, names in zip(results, renames, strict=True):
        live = _live(statements, set(_WORD.findall(result)))
        own = {s.target for s in live}
        back = {new: old for new, old in names.items() if old not in own}
        live = [
            ArrayStatement(back.get(s.target, s.target), ir.renamed(s.value, back)) for s in live
        ]
        out.append((live, _WORD.sub(lambda m, back=back: back.get(m[0], m[0]), result)))
    return out


def _fresh(target: str, k: int, taken: set[str]) -> str:
    """A name for ``target`` in the ``k``-th program (from 1) that no program uses."""
    name, i = f"{target}_m{k}", k
    while name in taken:
        i += 1
        name = f"{target}_m{i}"
    taken.add(name)
    return name


def _reassigns(statements: list[ArrayStatement]) -> bool:
    targets = [s.target for s in statements]
    return len(set(targets)) != len(targets) or any(s.at for s in statements)


def _live(statements: list[ArrayStatement], ends: set[str]) -> list[ArrayStatement]:
    used = set(ends)
    kept = []
    for s in reversed(statements):
        if s.target in used:
            kept.append(s)
            used.update(ir.names_in(s.value))
    return kept[::-1]
