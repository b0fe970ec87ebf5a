"""Generate a Python, C, JAX or CUDA file from a graph: choose the expression set, build
the programs, print them, run the printed code against the graph (:mod:`dgraph.codegen.check`). What
``dgraph codegen`` runs."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..core.expressions import ExpressionSet
from ..core.graph import DGraph
from ..errors import DGraphError, VerificationError
from ..methods import accumulate
from .c import c_source
from .check import CodeCheck, check_generated
from .cuda import cuda_source
from .ir import Program
from .jaxcode import jax_module
from .program import (
    SYMBOLIC,
    jacobian_program,
    jvp_program,
    primal_program,
    symbolic_program,
    vjp_program,
)
from .python import python_module
from .selection import cheapest_jacobian

__all__ = ["Generated", "generate"]

Lang = Literal["python", "c", "jax", "cuda"]
Mode = Literal["jacobian", "jvp", "vjp"]
LANGS: tuple[str, ...] = ("python", "c", "jax", "cuda")
MODES: tuple[str, ...] = ("jacobian", "jvp", "vjp")


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
            "method": self.programs["jacobian"].method  # symbolic is a program only
            if "jacobian" in self.programs
            else self.expression_set.method,
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
            "check": None if self.check is None else self.check.to_dict(),
        }


def generate(
    source: DGraph | ExpressionSet,
    lang: Lang = "python",
    method: str | None = None,
    modes: Sequence[Mode] = ("jacobian",),
    sparse: bool = False,
    budget: float | None = None,
    check: bool = True,
) -> Generated:
    """Code for the Jacobian of a graph (and ``jvp``/``vjp``) in ``lang``, from the graph
    or from an expression set already accumulated (``source``; its graph is the graph).

    Without ``method``, the expression set is the one whose Jacobian program has the
    fewest operations among deterministic candidates
    (:func:`~dgraph.codegen.selection.cheapest_jacobian`; ``budget`` adds ``best``);
    ``method="symbolic"`` is :func:`~dgraph.codegen.program.symbolic_program`. With
    ``check`` the printed text is run against the graph
    (:func:`~dgraph.codegen.check.check_generated`); a disagreement raises
    VerificationError.

    >>> from dgraph.core.builders import bundled
    >>> gen = generate(bundled("naumann_sin.trace"), "python", "reverse")
    >>> gen.mults, gen.adds, sorted(gen.programs), gen.verified
    (4, 0, ['jacobian', 'primal'], True)
    """
    if lang not in LANGS:
        raise DGraphError(f"unknown language {lang!r}: use {', '.join(LANGS)}")
    modes = tuple(modes)
    for mode in modes:
        if mode not in MODES:
            raise DGraphError(f"unknown mode {mode!r}: use {', '.join(MODES)}")
    if not modes:
        raise DGraphError("no mode to generate")
    jacobian: Program | None = None
    if isinstance(source, ExpressionSet):
        if method is not None:
            raise DGraphError("give a method or an expression set, not both")
        graph, es = source.graph, source
        if not es.verified and not es.verify():
            raise DGraphError(f"the expression set ({es.method}) does not verify; no code")
    elif method is None:
        graph = source
        jacobian, es = cheapest_jacobian(graph, budget=budget)
    elif method == SYMBOLIC:  # Bauer's formula with sympy's algebra, beside method paths
        graph = source
        es = accumulate(graph, "paths")
        jacobian = symbolic_program(graph)
    else:
        graph = source
        es = accumulate(graph, method, budget=budget)
        if not es.verified:
            raise DGraphError(f"method {method!r} gave an expression set that did not verify")
    programs: dict[str, Program] = {}
    with contextlib.suppress(DGraphError):  # labels without vertex expressions: no primal
        programs["primal"] = primal_program(graph)
    for mode in modes:
        if mode == "jacobian":
            programs[mode] = jacobian or jacobian_program(es)
        elif mode == "jvp":
            programs[mode] = jvp_program(es)
        else:
            programs[mode] = vjp_program(es)
    title = f"{graph.name or 'graph'}: {', '.join(programs)} (dgraph codegen, method {es.method})"
    printer = {"python": python_module, "c": c_source, "jax": jax_module, "cuda": cuda_source}[lang]
    text = printer(programs, title=title, inputs=graph.inputs, outputs=graph.outputs, sparse=sparse)
    generated = Generated(text, lang, modes, programs, es, sparse)
    if check:
        generated.check = check_generated(generated, graph)
        if generated.check.ran and not generated.check.ok:
            raise VerificationError(generated.check.detail)
    return generated
