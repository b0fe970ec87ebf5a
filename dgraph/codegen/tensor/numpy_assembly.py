"""The writes of a NumPy assembly (:func:`.numpy_form._assembly`) with each strided
``+=`` done on a contiguous vector: where a part adds at positions an earlier part
wrote (a diagonal that two parts reach, a band's ends), the earlier part's values are
first made a vector of their own, the later ones added into its slice, and the sum
written once. A strided write touches every cache line of the assembled vector (a
band's 3 n entries for n of them); a strided ``+=`` reads and writes them all again,
while the contiguous one reads and writes n entries. The additions happen in the same
order: the same doubles."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir import Node

__all__ = ["Mirror", "Write", "plain_write", "within", "written"]


@dataclass
class Mirror:
    """The entries of an assembled vector (a symmetric matrix's values) that take the
    values at others: ``upper[k]`` gets ``source[k]``; ``done``: the assembly wrote
    them."""

    upper: np.ndarray
    source: np.ndarray
    done: bool = False


@dataclass
class Write:
    """One piece of an assembly: ``at`` (a slice of the vector) gets ``source`` (the
    text of an expression: a vector of the slice's length, or a number), ``const``
    (text: a number or a constant's name) added first, where given; ``added``: added to
    what an earlier piece wrote there. ``out``: the name of a new vector, read nowhere
    else, that ``source`` computes into (a sum may go into it too)."""

    at: slice
    source: str
    const: str | None = None
    added: bool = False
    out: str | None = None
    number: bool = False  # source is a number
    node: Node | None = None  # what ``source`` prints (None: a part of one, ``_part``)
    base: Node | None = None  # what ``const`` prints


def _last(s: slice) -> int:
    return s.start + ((s.stop - 1 - s.start) // s.step) * s.step


def within(inner: slice, outer: slice) -> int | None:
    """Where ``inner``'s positions start among ``outer``'s, if it takes only them."""
    if inner.step != outer.step and inner.start != _last(inner):
        return None
    if not outer.start <= inner.start <= _last(inner) <= _last(outer):
        return None
    offset, rest = divmod(inner.start - outer.start, outer.step)
    return None if rest else offset


def _count(s: slice) -> int:
    return len(range(s.start, s.stop, s.step))


def written(
    target: str, writes: list[Write | str], mirror: list[tuple[slice, slice]] | None = None
) -> tuple[list[str], bool]:
    """The lines of the assembly ``writes`` (a string: a line as it is) into ``target``:
    each added piece into a contiguous copy of the earlier piece it lies in (module
    docstring) where every added piece lies in one; else each as it is. ``mirror``:
    runs ``(to, from)`` of positions that get the values at others (a symmetric
    matrix's entries above the diagonal), written here from the pieces' own vectors
    where each run's sources lie in one piece; returned: whether they were."""
    pieces = [w for w in writes if isinstance(w, Write)]
    into: dict[int, tuple[int, int]] = {}  # added piece -> (its earlier piece, offset)
    for k, w in enumerate(pieces):
        if not w.added:
            continue
        for j in range(k - 1, -1, -1):
            p = pieces[j]
            offset = None if p.added else within(w.at, p.at)
            if offset is not None:
                into[k] = (j, offset)
                break
        else:
            return [plain_write(target, w) if isinstance(w, Write) else w for w in writes], False
    kept = {j for j, _ in into.values()}
    copies = _mirrored(pieces, kept, mirror) if mirror else None
    if copies is not None:
        kept |= {j for _, j, _ in copies if not (_bare(pieces[j]) or _named(pieces[j]))}
    names = {j: f"_d{n}" for n, j in enumerate(sorted(kept))}
    summed = _summed(writes, pieces, into)
    last: list[tuple[slice, str, int | None, int]] = []  # the writes left to the end
    lines, k = [], -1
    for w in writes:
        if isinstance(w, str):
            lines.append(w)
            continue
        k += 1
        if k in names:
            if k not in summed.values():
                lines.append(f"    {names[k]} = {_copy(w)}")
            last.append((w.at, names[k], 0, _count(w.at)))
        elif k in summed:
            j = summed[k]
            lines.append(f"    {names[j]} = numpy.add({pieces[j].source}, {w.source}, dtype=float)")
        elif k in into:
            j, offset = into[k]
            view = f"{names[j]}[{offset}:{offset + _count(w.at)}]"
            lines.append(f"    numpy.add({view}, {w.source}, out={view})")
        elif not w.added and (_bare(w) or _named(w)):  # its vector lives to the end
            last.append((w.at, w.source, None if _bare(w) else 0, _count(w.at)))
        else:
            lines.append(plain_write(target, w))
    for to, j, offset in copies or ():
        w = pieces[j]
        last.append((to, names.get(j, w.source), None if _bare(w) else offset, _count(w.at)))
    lines += _last_writes(target, last)
    if names:
        lines.append(f"    del {', '.join(names.values())}")
    return lines, copies is not None


def _summed(
    writes: list[Write | str], pieces: list[Write], into: dict[int, tuple[int, int]]
) -> dict[int, int]:
    """Added piece -> the earlier piece whose copy it would be added into whole, where
    the copy and the addition are one sum instead (``numpy.add(a, b)``: one pass over
    the entries, not a copy and then an in-place pass; the same doubles): it is the
    first piece added there and covers all of it, and the earlier piece's values are a
    plain expression (no number, constant or ``out=``) that reads the same when the
    later piece comes (no ``_part`` bound again between them)."""
    at = [k for k, w in enumerate(writes) if isinstance(w, Write)]  # piece -> its line
    summed: dict[int, int] = {}
    for k in sorted(into):
        j, offset = into[k]
        if j in summed.values() or any(i < k and into[i][0] == j for i in into):
            continue
        p, w = pieces[j], pieces[k]
        plain = not (p.number or p.const is not None or p.out or "out=" in p.source)
        between = any(isinstance(x, str) for x in writes[at[j] + 1 : at[k]])
        if (
            offset == 0
            and _count(w.at) == _count(p.at)
            and plain
            and not (between and "_part" in p.source)
        ):
            summed[k] = j
    return summed


BLOCK = 1 << 15  # entries of each strided write per round of a blocked assembly
BLOCKED = 1 << 18  # entries from which the strided writes are blocked


def _last_writes(target: str, last: list[tuple[slice, str, int | None, int]]) -> list[str]:
    """``target[at] = value`` (its entries from ``offset`` on, of ``size``; None: a
    number) for each of ``last``. Where several are strided writes of one step over many
    entries (a band's diagonals, each a pass over every cache line of the vector), those
    are made block by block, all of them per block of entries: each line of the vector
    is then written while it is still in cache."""
    lines = []
    blocked = [k for k, w in enumerate(last) if _count(w[0]) > 1]
    steps = {last[k][0].step for k in blocked}
    total = sum(_count(last[k][0]) for k in blocked)
    if len(blocked) < 2 or len(steps) != 1 or steps == {1} or total < BLOCKED:
        blocked = []
    long = [last[k] for k in blocked]
    for k, (at, value, offset, size) in enumerate(last):
        if k in blocked:
            continue
        c = _count(at)
        whole = offset is None or (offset == 0 and c == size)
        lines.append(f"    {target}[{_text(at)}] = {value if whole else _cut(value, offset, c)}")
    if not long:
        return lines
    (p,) = steps
    top = max(_count(w[0]) for w in long)
    lines += [
        f"    for _lo in range(0, {top}, {BLOCK}):",
        f"        _hi = min(_lo + {BLOCK}, {top})",
    ]
    for at, value, offset, _ in long:
        c = _count(at)
        hi = "_hi" if c == top else f"min(_hi, {c})"
        into = f"{target}[{_plus(at.start, f'{p} * _lo')}:{_plus(at.start, f'{p} * {hi}')}:{p}]"
        if offset is not None:
            value = f"{value}[{_plus(offset, '_lo')}:{_plus(offset, hi)}]"
        lines.append(f"        {into} = {value}")
    return lines


def _cut(value: str, offset: int, count: int) -> str:
    return f"{value}[{offset}:{offset + count}]"


def _plus(k: int, term: str) -> str:
    return term if k == 0 else f"{k} + {term}"


def _bare(w: Write) -> bool:
    """Whether a piece's values are one number."""
    return w.number and w.const is None


def _named(w: Write) -> bool:
    """Whether a piece's values are a name's vector as it is."""
    return w.const is None and w.source.isidentifier()


def _mirrored(
    pieces: list[Write], kept: set[int], mirror: list[tuple[slice, slice]]
) -> list[tuple[slice, int, int]] | None:
    """Per mirror run: its positions, the piece its sources lie in and where among that
    piece's; None where a run's sources are not in one piece, or that piece's vector is
    a slice of a part's (``_part[...]``, freed before the end)."""
    copies = []
    for to, source in mirror:
        found = [(j, within(source, w.at)) for j, w in enumerate(pieces) if not w.added]
        found = [(j, offset) for j, offset in found if offset is not None]
        if not found:
            return None
        j, offset = found[0]
        w = pieces[j]
        if not (_bare(w) or j in kept or _named(w)) and "_part" in w.source:
            return None
        copies.append((to, j, offset))
    return copies


def _copy(w: Write) -> str:
    """A piece's values as a new vector (into ``out`` where there is one)."""
    out = f", out={w.out}" if w.out else ""
    if w.number:
        filled = f"numpy.full({_count(w.at)}, {w.source})"
        return filled if w.const is None else f"numpy.add({w.const}, {filled}, out=None)"
    if w.const is not None:
        return f"numpy.add({w.const}, {w.source}{out})"
    return w.source if w.out else f"numpy.array({w.source}, dtype=float)"


def plain_write(target: str, w: Write) -> str:
    into = f"{target}[{_text(w.at)}]"
    if w.added:  # after the parts before it, as numpy.add.at adds them
        return f"    numpy.add({into}, {w.source}, out={into})"
    if w.const is None:
        return f"    {into} = {w.source}"
    return f"    numpy.add({w.const}, {w.source}, out={into})"


def _text(s: slice) -> str:
    return f"{s.start}:{s.stop}" if s.step == 1 else f"{s.start}:{s.stop}:{s.step}"
