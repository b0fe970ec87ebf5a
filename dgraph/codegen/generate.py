"""Generate a Python, C, JAX or CUDA file from a graph: choose the expression set, build
the programs, print them, run the printed code against the graph (:mod:`dgraph.codegen.check`). What
``dgraph codegen`` runs."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..core.regions import refuse_regions
from ..errors import DGraphError, VerificationError
from ..frontends.fixed_parameters import made_at
from ..methods import accumulate
from ..methods.compare import Comparison
from .c import c_source
from .check import CodeCheck, check_generated
from .cuda import cuda_source
from .ir import Program
from .jaxcode import jax_module
from .program import (
    SYMBOLIC,
    function_outputs,
    jacobian_program,
    jvp_program,
    primal_program,
    symbolic_program,
    symbolic_value_and_jacobian_program,
    value_and_jacobian_program,
    vjp_program,
)
from .python import python_module
from .scope import codegen_call
from .selection import Selection, select_jacobian

__all__ = ["Generated", "generate", "generate_all"]

Lang = Literal["python", "c", "jax", "cuda"]
Mode = Literal["jacobian", "jvp", "vjp", "value_and_jacobian"]
LANGS: tuple[str, ...] = ("python", "c", "jax", "cuda")
MODES: tuple[str, ...] = ("jacobian", "jvp", "vjp", "value_and_jacobian")
_JACOBIANS = ("jacobian", "value_and_jacobian")  # the modes whose program names a method


@dataclass
class Generated:
    """Generated code, its programs (``primal`` when the graph's values are known, then
    the requested modes), the expression set they come from and the check of the text."""

    text: str
    lang: str
    modes: tuple[str, ...]
    programs: dict[str, Program]
    expression_set: ExpressionSet
    sparse: bool = False
    check: CodeCheck | None = None
    selection: Selection | None = None  # every candidate, when the choice was codegen's

    @property
    def method(self) -> str:
        """The method of the shipped Jacobian program (``symbolic`` is a program only),
        the one the file's header names; the expression set's without a Jacobian."""
        return next(
            (self.programs[k].method for k in _JACOBIANS if k in self.programs),
            self.expression_set.method,
        )

    @property
    def verified(self) -> bool:
        """True only when the printed code ran and agreed (:mod:`dgraph.codegen.check`)."""
        return self.check is not None and self.check.ok

    @property
    def main(self) -> Program:
        """The program of the first requested mode: the one ``mults`` and ``adds`` count."""
        return self.programs[self.modes[0]]

    @property
    def mults(self) -> int:
        return self.main.mults

    @property
    def adds(self) -> int:
        return self.main.adds

    def summary(self, file: str | None = None) -> dict[str, Any]:
        """The ``codegen --json`` object: ``file``, ``mults``, ``adds`` of the main
        function (the whole of it: primal values, partials and accumulation), and more."""
        ops = self.main.ops
        return {
            "file": file,
            "lang": self.lang,
            "mode": self.modes[0],
            "method": self.method,
            "strategy": "sweep" if self.main.method in ("tangent", "adjoint") else "entries",
            "mults": ops.mults,
            "adds": ops.adds,
            "divs": ops.divs,
            "calls": ops.calls,
            "nonzeros": len(self.programs["jacobian"].results)
            if "jacobian" in self.programs
            else None,
            "sparse": self.sparse,
            "functions": {name: p.ops.to_dict() for name, p in self.programs.items()},
            "verified": self.verified,
            "verification": "not verified" if self.check is None else self.check.status,
            "check": None if self.check is None else self.check.to_dict(),
        }


def generate(
    source: DGraph | ExpressionSet | Comparison,
    lang: Lang = "python",
    method: str | None = None,
    modes: Sequence[Mode] = ("jacobian",),
    sparse: bool = False,
    budget: float | None = None,
    check: bool = True,
) -> Generated:
    """Code for the Jacobian of a graph (and ``jvp``/``vjp``) in ``lang``, from the graph,
    from an expression set already accumulated (``source``; its graph is the graph), or
    from a :class:`~dgraph.methods.compare.Comparison` (its results are reused, not
    recomputed: the choice is the one ``dgraph compare`` marks).

    Without ``method``, the expression set is the one whose Jacobian program has the
    fewest operations among the candidates whose cost is known cheaply
    (:func:`~dgraph.codegen.selection.select_jacobian`; ``budget``, seconds in all, builds
    every candidate's program and adds ``best``); ``method="symbolic"`` is
    :func:`~dgraph.codegen.program.symbolic_program`. With ``check`` the printed text is
    run against the graph (:func:`~dgraph.codegen.check.check_generated`); a
    disagreement raises VerificationError. The header names the method of the program
    shipped (``Generated.method``).

    >>> from dgraph.frontends import bundled
    >>> gen = generate(bundled("naumann_sin.trace"), "python", "reverse")
    >>> gen.mults, gen.adds, sorted(gen.programs), gen.verified
    (4, 0, ['jacobian', 'primal'], True)
    """
    return generate_all(source, (lang,), method, modes, sparse, budget, check)[0]


def generate_all(
    source: DGraph | ExpressionSet | Comparison,
    langs: Sequence[Lang],
    method: str | None = None,
    modes: Sequence[Mode] | Mapping[str, Sequence[Mode]] = ("jacobian",),
    sparse: bool = False,
    budget: float | None = None,
    check: bool = True,
) -> list[Generated]:
    """:func:`generate` for several languages from one choice and one set of programs
    (``dgraph codegen -o jac.py -o jac.c``); ``modes`` may map a language to its own.
    What it remembers is forgotten when it returns (:mod:`dgraph.codegen.scope`)."""
    with codegen_call():
        return _generate_all(source, langs, method, modes, sparse, budget, check)


def _generate_all(
    source: DGraph | ExpressionSet | Comparison,
    langs: Sequence[Lang],
    method: str | None,
    modes: Sequence[Mode] | Mapping[str, Sequence[Mode]],
    sparse: bool,
    budget: float | None,
    check: bool,
) -> list[Generated]:
    langs = tuple(langs)
    if not langs:
        raise DGraphError("no language to generate")
    for lang in langs:
        if lang not in LANGS:
            raise DGraphError(f"unknown language {lang!r}: use {', '.join(LANGS)}")
    wanted = {lang: tuple(modes[lang] if isinstance(modes, Mapping) else modes) for lang in langs}
    for lang_modes in wanted.values():
        for mode in lang_modes:
            if mode not in MODES:
                raise DGraphError(f"unknown mode {mode!r}: use {', '.join(MODES)}")
        if not lang_modes:
            raise DGraphError("no mode to generate")
    refuse_regions(source.graph if hasattr(source, "graph") else source, "code generation")
    graph, es, jacobian, selection = _choose(source, method, budget)
    programs: dict[str, Program] = {}
    with contextlib.suppress(DGraphError):  # labels without vertex expressions: no primal
        programs["primal"] = primal_program(graph)
    for mode in dict.fromkeys(m for lang_modes in wanted.values() for m in lang_modes):
        if mode == "jacobian":
            programs[mode] = jacobian or jacobian_program(es)
        elif mode == "value_and_jacobian":
            symbolic = jacobian is not None and jacobian.method == SYMBOLIC
            programs[mode] = (
                symbolic_value_and_jacobian_program(graph)
                if symbolic
                else value_and_jacobian_program(es)
            )
        elif mode == "jvp":
            programs[mode] = jvp_program(es)
        else:
            programs[mode] = vjp_program(es)
    shipped = next((programs[k].method for k in _JACOBIANS if k in programs), es.method)
    out = []
    for lang in langs:
        mine = {k: p for k, p in programs.items() if k == "primal" or k in wanted[lang]}
        title = f"{graph.name or 'graph'}: {', '.join(mine)} (dgraph codegen, method {shipped})"
        title += made_at(graph)
        if graph.solved:
            title += (
                f"; {', '.join(graph.solved)} solve the linear system of the residuals"
                f" {', '.join(graph.outputs)} (one LU factorization, no pivoting)"
            )
        printer = {
            "python": python_module,
            "c": c_source,
            "jax": jax_module,
            "cuda": cuda_source,
        }[lang]
        text = printer(
            mine,
            title=title,
            inputs=graph.inputs,
            outputs=function_outputs(graph),
            sparse=sparse,
            parameters=[p for p in graph.parameters if p not in graph.solved],
        )
        generated = Generated(text, lang, wanted[lang], mine, es, sparse, selection=selection)
        if check:
            generated.check = check_generated(generated, graph)
            if generated.check.ran and not generated.check.ok:
                raise VerificationError(generated.check.detail)
        out.append(generated)
    return out


def _choose(
    source: DGraph | ExpressionSet | Comparison, method: str | None, budget: float | None
) -> tuple[DGraph, ExpressionSet, Program | None, Selection | None]:
    """The graph, the expression set, the Jacobian program when the choice built it, and
    the choice itself (None when ``source`` or ``method`` fixed it)."""
    if isinstance(source, ExpressionSet):
        if method is not None:
            raise DGraphError("give a method or an expression set, not both")
        if not source.verified and not source.verify():
            raise DGraphError(f"the expression set ({source.method}) does not verify; no code")
        return source.graph, source, None, None
    if isinstance(source, Comparison):
        if method is not None:
            raise DGraphError("give a method or a comparison, not both")
        selection = select_jacobian(source.graph, budget=budget, sets=_results(source))
        return source.graph, selection.expression_set, selection.program, selection
    if not isinstance(source, DGraph):
        kind = type(source).__name__
        raise DGraphError(f"generate takes a graph, an expression set or a comparison, not {kind}")
    if method is None:
        selection = select_jacobian(source, budget=budget)
        return source, selection.expression_set, selection.program, selection
    if method == SYMBOLIC:  # Bauer's formula with sympy's algebra, beside method paths
        return source, accumulate(source, "paths"), symbolic_program(source), None
    es = accumulate(source, method, budget=budget)
    if not es.verified:
        raise DGraphError(f"method {method!r} gave an expression set that did not verify")
    return source, es, None, None


def _results(comparison: Comparison) -> list[ExpressionSet]:
    """The comparison's verified results (a skipped or unverified method is recomputed)."""
    return [es for es in comparison.results.values() if es.verified]
