"""Step-by-step views: an accumulation replayed one step at a time, one frame per step.

A frame is a drawing of the graph as the step left it (edges labeled with what they hold,
the step's new or changed edges bold, eliminated vertices dotted so that the layout stays
put) and the expression set so far: the references named up to then and the
input-output labels. On a tensor graph every edge also shows the type of the Jacobian
block it holds and is drawn in its structure family's line style, every vertex its
shape, and each step is priced in scalar multiplications of its block products (the
kernel's :data:`~dgraph.elimination.kernel.BLOCKS` algebra, replayed beside the labels).
Vertex and edge eliminations (Naumann), Zhou's chain reductions and
splits (eliminations at one level), and umbrella contractions are replayed on the c-graph
(:class:`~dgraph.elimination.labeled.LabeledGraph`); face eliminations on the line graph
(:class:`~dgraph.faces.elimination.FaceState`). Every replayed step must cost what the
method recorded, so a frame never shows work the method did not do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import sympy

from ..core.expressions import ExpressionSet, Step, StepKind
from ..core.graph import DGraph
from ..core.label_text import label_str
from ..core.paths import depths
from ..elimination.kernel import BLOCKS, Elimination
from ..elimination.labeled import LabeledGraph
from ..errors import DGraphError
from ..faces.elimination import FaceState
from ..methods import accumulate, methods
from .blocklabels import dims, family_legend, noted
from .drawing import Drawing, check_drawable, lay_out_svgs
from .labels import SymbolNames, expr_label, symbol_names
from .pinned import Layout, pin, pin_scenes
from .scene import Scene, inline_labels
from .styles import Style, get_style
from .text import counted
from .views import graph_scene, line_scene

__all__ = [
    "PNG_PIXEL_LIMIT",
    "STEP_EDGE_LIMIT",
    "Frame",
    "StepViewer",
    "check_png_frames",
    "check_step_union",
    "frames",
    "graph_frames",
    "steps",
]

_EDGE_KINDS = (StepKind.FORWARD, StepKind.BACKWARD)
_VERTEX_KINDS = (StepKind.VERTEX, StepKind.CHAIN, StepKind.SPLIT, StepKind.UMBRELLA)


class _Pinning:
    """The scenes of a step view's frames, drawn on one layout (:func:`_pinned`) when a
    frame's drawing is first asked for: the layout takes dot runs, and a frame's counts
    and expression set need none."""

    def __init__(self, scenes: list[Scene], layout: Layout | None) -> None:
        self.scenes = scenes
        self.layout = layout

    @cached_property
    def drawings(self) -> list[Drawing]:
        if self.layout is None:
            pinned = pin_scenes(self.scenes)
        else:
            pinned = [pin(inline_labels(scene), self.layout) for scene in self.scenes]
        return [Drawing(scene) for scene in pinned]


@dataclass
class Frame:
    """One step's picture: ``title``, the ``drawing`` (laid out with the other frames'
    when first asked for), the ``references`` named so far and the ``entries``
    (input-output labels) present, with the ``mults`` spent so far. On a tensor graph
    ``price`` is the step's scalar multiplications and ``blocks`` the type of the block
    every edge holds, with its shape (``kronecker [5×4 ← 5×3]``)."""

    title: str
    pinning: _Pinning = field(repr=False, compare=False)
    index: int
    references: list[tuple[sympy.Symbol, sympy.Expr]]
    entries: list[tuple[tuple[str, str], sympy.Expr]]
    names: SymbolNames
    mults: int
    step: Step | None = None
    price: int | None = None
    blocks: dict[tuple[str, str], str] | None = None

    @property
    def drawing(self) -> Drawing:
        """This frame drawn on the layout it shares with the others."""
        return self.pinning.drawings[self.index]

    def lines(self) -> list[str]:
        """The expression set so far, as text (on a tensor graph each entry with the type
        of its block)."""
        out = [f"{n} = {label_str(d)}" for n, d in self.references]
        return out + [
            f"d{y}/d{x} = {label_str(e)}{self.block_note(x, y)}" for (y, x), e in self.entries
        ]

    def block_note(self, x: str, y: str) -> str:
        """``   [kronecker 5×4 ← 5×3]`` after entry (y, x) on a tensor graph, else nothing."""
        if not self.blocks or (x, y) not in self.blocks:
            return ""
        return f"   [{self.blocks[x, y]}]"


def _kind(es: ExpressionSet) -> str:
    kinds = {s.op for s in es.steps if s.op is not StepKind.MERGE}
    if kinds and kinds <= {StepKind.FACE}:
        return "face"
    for s in es.steps:
        vertex = s.op in _VERTEX_KINDS
        if not (vertex and isinstance(s.target, str)) and s.op not in _EDGE_KINDS:
            raise DGraphError(
                f"no step-by-step view for {es.method or 'this method'}'s step {s}: step views "
                "replay vertex, edge and face eliminations, Zhou's chains and splits and "
                "umbrella contractions"
            )
    return "graph"


def _title(k: int, n: int, step: Step | None, total: int, price: int | None = None) -> str:
    """A frame's title; ``price``: the step's scalar multiplications (a tensor graph's)."""
    if step is None:
        return f"start: {n} step{'s' if n != 1 else ''} to go"
    if step.op == "face":
        what = "face [{}, {}]".format(*step.target)
    elif isinstance(step.target, tuple):
        what = f"{step.label} {step.target[0]} → {step.target[1]}"
    else:
        what = f"{step.label} {step.target}"
    cost = step.mults if price is None else counted(price, "mults")
    return f"step {k} of {n}: {what} ({cost}) — {counted(total, 'mults')} so far"


def _replay(state: Elimination, step: Step) -> int:
    """Apply ``step`` to a state in another algebra; what it costs there."""
    if step.op in _EDGE_KINDS:
        return state.apply((step.op.value, tuple(step.target)))
    return state.eliminate_vertex(step.target, op=step.op, region=step.region)


def _block_types(state: Elimination) -> dict[tuple[str, str], str]:
    """The type of the block on every edge of a :data:`BLOCKS` state."""
    return {
        (u, v): "zero" if block is BLOCKS.ZERO else block.type_name
        for u, succ in state.succ.items()
        for v, block in succ.items()
    }


def _with_shape(graph: DGraph, types: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """Each edge's block type with the block's shape: ``kronecker 5×4 ← 5×3``."""
    return {
        (u, v): f"{name} {dims(graph.shape(v))} ← {dims(graph.shape(u))}"
        for (u, v), name in types.items()
    }


def _tensor_labels(
    labels: dict[tuple[str, str], sympy.Expr],
    types: dict[tuple[str, str], str],
    names: SymbolNames,
    style: Style,
) -> dict:
    """Edge labels of a tensor frame: what the edge holds over its block's type."""
    return {
        e: noted(expr_label(lab, names, style.math, style.max_label), types[e], style)
        for e, lab in labels.items()
    }


def graph_frames(
    graph: DGraph,
    method: str | None,
    direction: str,
    style: Style,
    frames_for: list[Step],
    layout: Layout | None = None,
    last: bool = False,
) -> list[Frame]:
    """A frame before the first of ``frames_for`` (vertex and edge eliminations, Zhou's
    chains and splits, umbrella contractions, in the order ``method`` made them on
    ``graph``) and one after each, drawn on one pinned layout: their union's, or
    ``layout`` where given (:func:`~dgraph.render.pinned.pin`). ``last``: the last frame
    alone (every step replayed, one scene drawn: the explorer's state after its moves)."""
    lg = LabeledGraph(graph)
    priced = Elimination(graph, BLOCKS) if graph.is_tensor else None
    shapes = {v: graph.shape(v) for v in graph.order()} if priced is not None else None
    level = depths(graph.nx)
    out: list[tuple] = []
    previous: dict[tuple[str, str], sympy.Expr] = {}
    total = 0
    frame_types: list[dict[tuple[str, str], str]] = []
    for k, step in enumerate([None, *frames_for]):
        price = None
        if step is not None:
            op, target = step.op, step.target
            if op in _EDGE_KINDS:
                cost = lg.apply((op.value, tuple(target)))
            elif target in lg.g:
                cost = lg.eliminate_vertex(target, op=op, region=step.region)
            else:
                cost = -1
            if cost != step.mults:
                raise DGraphError(
                    f"{method}: step {k} ({step}) does not replay on the whole graph; "
                    "for zhou draw strategy='global'"
                )
            if priced is not None:
                cost = price = _replay(priced, step)
            total += cost
        labels = {(u, v): d["label"] for u, v, d in lg.g.edges(data=True)}
        if last and k < len(frames_for):  # not drawn: what the next frames need from it
            if priced is not None:
                frame_types.append(_block_types(priced))
            previous = labels
            continue
        snapshot = DGraph(graph.name)
        for v in graph.order():
            snapshot.add_vertex(v, graph.role(v))
        for u, v in labels:
            snapshot.add_edge(u, v)
        names = symbol_names(graph, lg.references)
        changed = [e for e, lab in labels.items() if step is not None and previous.get(e) != lab]
        tensor: dict = {}
        types = None
        if priced is not None:
            frame_types.append(_block_types(priced))
            types = _with_shape(graph, frame_types[-1])
            tensor = {
                "shapes": shapes,
                "blocks": frame_types[-1],
                "edge_labels": _tensor_labels(labels, types, names, style),
            }
        scene = graph_scene(
            snapshot,
            direction,
            style=style,
            **{"edge_labels": labels, **tensor},
            names=names,
            emphasize=changed,
            ghosts=[v for v in graph.order() if v not in lg.g],
            level=level,
            title=_title(k, len(frames_for), step, total, price),
        )
        out.append(
            (
                scene,
                list(lg.references.items()),
                sorted(lg.entries().items(), key=lambda kv: _entry_key(graph, kv[0])),
                names,
                total,
                step,
                *((price, types) if priced is not None else ()),
            )
        )
        previous = labels
    if priced is not None:  # one legend on every frame: the families of all of them
        legend = family_legend([t for types in frame_types for t in types.values()], style)
        for scene, *_ in out:
            scene.legend = [row for row in scene.legend if len(row[0]) < 4] + legend
    return _pinned(out, layout)


def _pinned(parts: list[tuple], layout: Layout | None = None) -> list[Frame]:
    """Frames from (scene, references, entries, names, mults, step), their scenes drawn
    on one layout (:func:`~dgraph.render.pinned.pin_scenes`), or on ``layout``, when a
    frame's drawing is first asked for."""
    pinning = _Pinning([scene for scene, *_ in parts], layout)
    return [Frame(scene.title.text, pinning, k, *rest) for k, (scene, *rest) in enumerate(parts)]


def _entry_key(graph: DGraph, key: tuple[str, str]) -> tuple[int, int]:
    return graph.outputs.index(key[0]), graph.inputs.index(key[1])


def _face_frames(
    es: ExpressionSet, direction: str, style: Style, frames_for: list[Step]
) -> list[Frame]:
    graph = es.graph
    state = FaceState(graph)
    out: list[tuple] = []
    total = 0
    previous: dict[int, sympy.Expr] = {}
    for k, step in enumerate([None, *frames_for]):
        if step is not None:
            total += state.eliminate(*state.face_by_name(*step.target))
        names = symbol_names(graph, state.references)
        changed = [
            v for v, lab in state.label.items() if step is not None and previous.get(v) != lab
        ]
        scene = line_scene(
            state,
            direction,
            style=style,
            emphasize=changed,
            title=_title(k, len(frames_for), step, total),
        )
        entries = state.entries()
        out.append(
            (
                scene,
                list(state.references.items()),
                sorted(entries.items(), key=lambda kv: _entry_key(graph, kv[0])),
                names,
                total,
                step,
            )
        )
        previous = dict(state.label)
    return _pinned(out)


def frames(
    es: ExpressionSet,
    direction: str = "dataflow",
    style: str | Style | None = None,
    layout: Layout | None = None,
) -> list[Frame]:
    """One frame before the first step and one after each step of ``es``; the graph's
    frames drawn on ``layout`` where given (a face elimination's line graph never)."""
    chosen = get_style(style)
    if _kind(es) == "face":
        return _face_frames(es, direction, chosen, [s for s in es.steps if s.op == "face"])
    return graph_frames(es.graph, es.method, direction, chosen, list(es.steps), layout)


class StepViewer:
    """The frames of one accumulation, for notebooks (``_repr_html_``: a slider that
    degrades to every frame in turn without JavaScript; :meth:`animation`: an animated
    SVG) and for files (:meth:`save`: one file per frame)."""

    def __init__(self, es: ExpressionSet, frames: list[Frame]) -> None:
        self.expression_set = es
        self.frames = frames

    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, k: int) -> Frame:
        return self.frames[k]

    def _repr_html_(self) -> str:
        from .viewer import slider_html

        return slider_html(self.frames)

    def animation(self, seconds: float = 1.6):
        """An animated SVG (SMIL) cycling through the frames; shows in Jupyter and any
        browser, also from a saved notebook or an ``<img>`` tag."""
        from .viewer import AnimatedSVG

        return AnimatedSVG(self.frames, seconds)

    def save(self, path: str | Path, force: bool = False) -> list[Path]:
        """One file per frame, ``name-00.svg``, ``name-01.svg``, ... (any export format),
        or the viewer as one page when ``path`` ends in ``.html``. PNG frames of more than
        :data:`PNG_PIXEL_LIMIT` pixels in all are refused without ``force``
        (:func:`check_png_frames`)."""
        path = Path(path)
        if path.suffix.lower() == ".png" and not force:
            check_png_frames(self.frames)
        if path.suffix.lower() == ".html":
            path.parent.mkdir(parents=True, exist_ok=True)
            title = f"{self.expression_set.method}: {self.expression_set.graph.name}"
            path.write_text(
                f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{title}</title>"
                f"</head><body>\n{self._repr_html_()}\n</body></html>\n"
            )
            return [path]
        width = len(str(len(self.frames) - 1))
        if path.suffix.lower() == ".svg":
            lay_out_svgs([frame.drawing for frame in self.frames])  # in one graphviz process
        return [
            frame.drawing.save(path.with_name(f"{path.stem}-{k:0{max(2, width)}d}{path.suffix}"))
            for k, frame in enumerate(self.frames)
        ]

    def __repr__(self) -> str:
        return f"<StepViewer {self.expression_set.method}: {len(self.frames)} frames>"


PNG_PIXEL_LIMIT = 1_000_000_000  # each frame rasterized whole: about 30 ns a pixel


def check_png_frames(frames: list[Frame]) -> None:
    """Refuse PNG files of frames drawn on one layout with more than
    :data:`PNG_PIXEL_LIMIT` pixels in all: every frame is as large as the union of all
    frames (a 100-operation function's 150 Markowitz frames: 6,905 × 23,375 pixels each,
    5.4 CPU-s each to rasterize), where its SVG frames or HTML viewer take 10 CPU-s in all."""
    if len(frames) < 2 or "bb" not in frames[0].drawing.scene.attrs:
        return
    scene = frames[0].drawing.scene
    x0, y0, x1, y1 = map(float, scene.attrs["bb"].split(","))  # without the padding
    scale = scene.style.dpi / 72
    width, height = round((x1 - x0) * scale), round((y1 - y0) * scale)
    total = len(frames) * width * height
    if total > PNG_PIXEL_LIMIT:
        raise DGraphError(
            f"{len(frames)} PNG frames of at least {width}×{height} pixels each:"
            f" {total / 1e6:,.1f} million pixels in all, more than a step view rasterizes"
            f" ({PNG_PIXEL_LIMIT / 1e6:,g} million); save .svg frames or one .html viewer,"
            " or force it (force=True, --force)"
        )


def steps(
    source: DGraph | ExpressionSet,
    method: str = "markowitz",
    *,
    direction: str = "dataflow",
    style: str | Style | None = None,
    force: bool = False,
    layout: Layout | None = None,
    **options,
) -> StepViewer:
    """The step-by-step view of an accumulation, one frame per step.

    Parameters
    ----------
    source
        An expression set, shown as it is, or a graph to accumulate first.
    method, **options
        With a graph: ``accumulate(source, method, **options)``.
    direction
        ``dataflow`` (Naumann) or ``dependence`` (Zhou).
    style
        ``paper``, ``screen`` or ``plain`` (:func:`~dgraph.render.drawing.draw`).
    force
        Show a graph too large to draw legibly
        (:func:`~dgraph.render.drawing.check_drawable` refuses it otherwise).
    layout
        Where every vertex and edge label goes (default: dot's layout of all the frames
        together); e.g. :func:`~dgraph.render.hessian.hessian_layout`, Dixon's mirror
        layout of a Hessian graph.

    Returns
    -------
    StepViewer
        Its ``frames``, each with the multiplications so far and the lines written.

    Raises
    ------
    DGraphError
        For a graph too large to draw, or frames whose union is too large to lay out
        (:func:`check_step_union`), without ``force``; or what
        :func:`~dgraph.methods.accumulate` refuses.

    >>> from dgraph.frontends import bundled
    >>> viewer = steps(bundled("naumann_sin.trace"), "reverse")
    >>> [f.mults for f in viewer.frames], viewer.frames[-1].lines()
    ([0, 2, 3], ['r1 = d_y_v1 + d_y_v2*d_v2_v1', 'dy/dx0 = d_y_v2*d_v2_x0', 'dy/dx1 = r1*d_v1_x1'])
    """
    if not force:
        graph = source.graph if isinstance(source, ExpressionSet) else source
        name = source.method if isinstance(source, ExpressionSet) else method
        faces = isinstance(name, str) and name in methods(family="face elimination")
        check_drawable(graph, "line" if faces else "graph")
    es = source if isinstance(source, ExpressionSet) else accumulate(source, method, **options)
    viewer = StepViewer(es, frames(es, direction, style, layout))
    if not force and layout is None:
        check_step_union(viewer.frames)
    return viewer


# edges in the union of a step view's frames, which dot lays out at once: 1,051 for the
# 300 Markowitz frames of a 200-operation function (62 CPU-s, 46 of them graphviz's);
# graphviz 2.43's dot crashed on the 1,576 of 300 operations after 83 CPU-s
STEP_EDGE_LIMIT = 1_200


def check_step_union(frames: list[Frame]) -> None:
    """Refuse a step view whose frames' union has more than :data:`STEP_EDGE_LIMIT`
    edges, before its layout: every frame is drawn on the layout of all of them."""
    if len(frames) < 2:
        return
    union = {(e.tail, e.head) for scene in frames[0].pinning.scenes for e in scene.edges}
    if len(union) > STEP_EDGE_LIMIT:
        raise DGraphError(
            f"a step view of {len(frames)} frames whose union has {len(union):,} edges, more"
            f" than one layout of them all takes in minutes ({STEP_EDGE_LIMIT:,}); draw a"
            " smaller function, or force it (force=True, --force)"
        )
