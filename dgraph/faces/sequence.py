"""A face elimination given face by face: the ``--order`` of method ``faces``.

A face is named by its two line-graph vertices as :class:`~dgraph.faces.elimination.FaceState`
names them, ``[x0->v2, v2->y]`` (a vertex made again for a span that already had one is
``v1->y#2``, ``#3``, …, numbered as the sequence makes them), and a sequence is those faces
joined by commas: the text ``dgraph faces`` prints as a method's order, and what
:func:`format_faces` writes. Replayed on a fresh line graph (:func:`replay_faces`), each
face is looked up by name when its turn comes, so a sequence names the same faces wherever
it is replayed. A vertex or edge elimination is a sequence of faces too
(:func:`eliminate_step`: Naumann's vertex and edge eliminations are special cases of face
elimination).

>>> from dgraph.frontends import bundled
>>> graph = bundled("naumann_sin.trace")
>>> faces = parse_faces("[x0->v2, v2->y], [v1->v2, v2->y], [x1->v1, v1->y]")
>>> es = replay_faces(graph, faces)
>>> es.mults, format_faces(faces) == "[x0->v2, v2->y], [v1->v2, v2->y], [x1->v1, v1->y]"
(3, True)

References
----------
U. Naumann, *Optimal accumulation of Jacobian matrices by elimination methods on the
dual computational graph*, Math. Program. 99 (2004) 399-421.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import DGraphError, InputError
from .elimination import FaceState, check_path_limit

__all__ = ["eliminate_step", "format_faces", "parse_faces", "replay_faces"]

FaceName = tuple[str, str]
_VERTEX = r"[A-Za-z_]\w*->[A-Za-z_]\w*(?:#\d+)?"  # a line-graph vertex: span, copy number
_FACE = re.compile(rf"\s*\[\s*({_VERTEX})\s*,\s*({_VERTEX})\s*\]\s*(?:,|\Z)", re.ASCII)


def format_faces(faces: Iterable[FaceName]) -> str:
    """The faces as ``--order`` text: ``[x0->v2, v2->y], [v1->v2, v2->y]``."""
    return ", ".join(f"[{a}, {b}]" for a, b in faces)


def parse_faces(text: str, option: str = "--order") -> list[FaceName]:
    """The faces of ``--order`` text ``[i->j, j->k], [j->k, k->l]`` (a one-line error
    naming the first item that is not a face)."""
    body = text.strip()
    if not body:
        raise InputError(f"{option}: no faces given (write [i->j, j->k], [j->k, k->l], ...)")
    faces: list[FaceName] = []
    at = 0
    while at < len(body):
        m = _FACE.match(body, at)
        if m is None:
            rest = body[at:].strip(" ,")
            item = rest[:40] + ("…" if len(rest) > 40 else "")
            raise InputError(
                f"{option}: expected a face [SOURCE->TARGET, SOURCE->TARGET] at {item!r}"
            )
        faces.append((m.group(1), m.group(2)))
        at = m.end()
    return faces


def eliminate_step(state: FaceState, op: str, target: str | tuple[str, str]) -> list[FaceName]:
    """Make a vertex (``op`` ``"vertex"``), forward or backward edge elimination on
    ``state`` (a line graph still a c-graph's) as the faces it consists of; their names,
    each as it was when eliminated."""
    done: list[FaceName] = []
    for i, j in state.step_faces(op, target):
        done.append((state.name[i], state.name[j]))
        state.eliminate(i, j)
    return done


def replay_faces(
    graph: DGraph, faces: Iterable[FaceName], method: str = "faces", **info: Any
) -> ExpressionSet:
    """The expression set of eliminating ``faces`` in turn on ``graph``'s line graph (a
    one-line error for a face not there when its turn comes, or faces left at the end)."""
    check_path_limit(graph, method)
    state = FaceState(graph)
    for k, face in enumerate(faces, 1):
        if not (isinstance(face, tuple | list) and len(face) == 2):
            raise InputError(f"{method}: face {k} is not a pair of line-graph vertex names")
        first, second = face
        try:
            state.eliminate(*state.face_by_name(first, second))
        except DGraphError as exc:
            raise InputError(f"{method}: face {k} [{first}, {second}]: {exc}") from None
    if not state.done():
        n = len(state.faces())
        left = format_faces((state.name[i], state.name[j]) for i, j in state.faces()[:2])
        raise InputError(
            f"{method}: {n} face{'s' if n != 1 else ''} left after the sequence, e.g. {left}"
        )
    return state.result(method, info)
