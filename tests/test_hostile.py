"""Hostile input (issue 21): every case exits 2 with exactly one line on stderr, starting
``dgraph: error: ``, prints nothing on stdout, shows no traceback, writes no file, runs
nothing it reads, and finishes quickly. The corpus is ``tests/hostile/`` (README.md there);
bigger or stranger inputs (a FIFO, a sparse 201 MB file, a 100,000-deep JSON) are made by
:func:`_make`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from dgraph.cli import main
from dgraph.cli.main import _parser

HOSTILE = Path(__file__).resolve().parent / "hostile"
DATA = Path(__file__).resolve().parent.parent / "dgraph" / "data"
SIN = str(DATA / "naumann_sin.trace")
DISCREPANCY = str(DATA / "naumann_discrepancy.json")
SQUARE = str(HOSTILE / "overflow.trace")  # 2 inputs, 2 outputs: inverse applies
# a guard against hangs (a FIFO read, a runaway search), not a speed test: each case takes
# 1-3 s of CPU, and a busy 2-core machine (load 10) stretched one to 23 s of wall time
SECONDS = 120
INJECT = '__import__("os").system("touch PWNED")'


HESSIAN_OUT = ["--mode", "hessian", "-o", "h.py"]


def H(name: str) -> str:
    return str(HOSTILE / name)


HESSIAN_VECTOR = [H("jax_model.py") + ":running_total", "--inputs", "x:3", "--mode", "hessian"]
SORTED = ["codegen", H("jax_model.py") + ":sorted_copy"]  # its Jacobian a run-time permutation
HESSIAN_SCALAR = [H("jax_model.py") + ":spring", "--inputs", "q:3,k", "--mode", "hessian"]


JAX_OUT = ["--lang", "jax", "-o", "f.py"]


def hessian_numpy(function: str) -> list[str]:
    return [H("numpy_model.py") + f":{function}", "--inputs", "x:4", "--mode", "hessian"]


def hessian_cli(target: str, *more: str) -> list[str]:
    """``codegen TARGET MORE --mode hessian -o h.py``."""
    return ["codegen", target, *more, "--mode", "hessian", "-o", "h.py"]


SPRING = [H("jax_model.py") + ":spring", "--inputs", "q:3,k"]  # a scalar f of 4 entries
TOTAL = [H("jax_model.py") + ":running_total", "--inputs", "x:3"]  # f an array of 3


# (id, argv, expected part of the error); relative paths are files made in the working
# directory by _make, absolute ones come from the corpus or the bundled data.
CASES: list[tuple[str, list[str], str]] = [
    # 1. graphs without edges
    ("edgeless-best", ["accumulate", H("edgeless.trace"), "-m", "best"], "has no edges"),
    ("edgeless-compare", ["compare", H("edgeless.json"), "--json"], "no output depends"),
    ("edgeless-codegen", ["codegen", H("edgeless.trace"), "-o", "j.py"], "has no edges"),
    ("edgeless-codegen-cuda", ["codegen", H("edgeless.trace"), "-o", "j.cu"], "has no edges"),
    ("edgeless-render", ["render", H("edgeless.json"), "-o", "g.svg"], "has no edges"),
    # 1a. an edge with no partial: code has nothing to compute it from
    ("no-partial-codegen", ["codegen", H("no_partial.json"), "-o", "j.py"], "no local partial"),
    ("no-partial-codegen-c", ["codegen", H("no_partial.json"), "-o", "j.c"], "no local partial"),
    (
        "no-partial-symbolic",
        ["codegen", H("no_partial.json"), "-m", "symbolic", "-o", "j.py"],
        "has no expression",
    ),
    # 1b. linear systems whose unknowns are not what the graph can solve for
    (
        "solved-not-parameter",
        ["codegen", H("solved_not_parameter.json"), "-o", "j.py"],
        "not a parameter",
    ),
    ("solved-count", ["codegen", H("solved_count.json"), "-o", "j.py"], "one unknown per equation"),
    ("solved-not-affine", ["codegen", H("solved_not_affine.json"), "-o", "j.py"], "not affine"),
    ("solved-zero-pivot", ["codegen", H("solved_zero_pivot.json"), "-o", "j.c"], "zero pivot"),
    (
        "solved-symbolic",
        ["codegen", H("solved_zero_pivot.json"), "-m", "symbolic", "-o", "j.py"],
        "use an accumulation method",
    ),
    (
        "solve-not-declared",
        [
            "codegen",
            H("residual.py") + ":residual",
            "--params",
            "k,s0",
            "--solve",
            "s0,s1",
            "-o",
            "j.py",
        ],
        "declare it with --params",
    ),
    (
        "solve-too-few",
        [
            "codegen",
            H("residual.py") + ":residual",
            "--params",
            "k,s0,s1",
            "--solve",
            "s0",
            "-o",
            "j.py",
        ],
        "one unknown per equation",
    ),
    ("solve-not-a-name", ["accumulate", SIN, "--solve", "2x"], "not a name"),
    # 2. budgets that never end
    (
        "budget-nan",
        ["accumulate", DISCREPANCY, "-m", "vertex-optimal", "--budget", "nan"],
        "finite",
    ),
    ("budget-inf", ["compare", DISCREPANCY, "--budget", "inf"], "--budget"),
    ("budget-overflow", ["accumulate", SIN, "-m", "best", "--budget", "1e400"], "--budget"),
    ("budget-huge", ["accumulate", SIN, "-m", "best", "--budget", "1e9"], "--budget"),
    ("budget-word", ["accumulate", SIN, "--budget", "soon"], "--budget"),
    # 3. files that are not regular files, or too big
    ("directory", ["accumulate", "folder.json"], "is a directory"),
    ("fifo", ["accumulate", "fifo.trace"], "not a regular file"),
    ("dev-zero", ["accumulate", "/dev/zero"], "unknown graph type"),
    ("device-link", ["structure", "zero.trace"], "not a regular file"),
    ("huge-file", ["accumulate", "huge.json"], "larger than 200 MB"),
    ("missing", ["accumulate", "missing.json"], "file not found"),
    ("missing-python", ["accumulate", "missing.py:f"], "file not found"),
    ("fifo-python", ["accumulate", "fifo.py:f"], "not a regular file"),
    ("fifo-chain", ["chain", "fifo.trace"], "not a regular file"),
    # 4. outputs that cannot be written
    ("render-to-directory", ["render", SIN, "-o", "folder.svg"], "is a directory"),
    ("render-no-directory", ["render", SIN, "-o", "nowhere/g.svg"], "no directory 'nowhere'"),
    ("render-unwritable", ["render", SIN, "-o", "/proc/dgraph.svg"], "cannot write"),
    ("render-format", ["render", SIN, "-o", "g.bogus"], "unknown format .bogus"),
    ("render-html", ["render", SIN, "-o", "g.html"], "unknown format .html"),
    ("steps-no-directory", ["render", SIN, "--steps", "-o", "nowhere/g.svg"], "no directory"),
    (
        "graph-out-no-directory",
        ["accumulate", DISCREPANCY, "-m", "zhou", "--graph-out", "nowhere/g.svg"],
        "no directory",
    ),
    ("chain-write-directory", ["chain", "--random", "3", "--write", "folder.svg"], "directory"),
    ("codegen-to-directory", ["codegen", SIN, "-o", "folder.py"], "directory"),
    ("codegen-output-twice", ["codegen", SIN, "-o", "j.py", "-o", "./j.py"], "given twice"),
    ("codegen-second-suffix", ["codegen", SIN, "-o", "j.py", "-o", "j.txt"], "suffix '.txt'"),
    ("codegen-second-directory", ["codegen", SIN, "-o", "j.c", "-o", "folder.py"], "directory"),
    ("demo-into-file", ["demo", "-o", "plain.txt"], "not a directory"),
    # 5. chains too long or malformed
    ("chain-random-huge", ["chain", "--random", "100000"], "at most 500 factors"),
    ("chain-size-huge", ["chain", "--random", "3", "--size", "1000000000"], "--size: at most"),
    ("chain-size-alone", ["chain", H("chain_mismatch.txt"), "--size", "5"], "--size applies"),
    ("chain-not-integer", ["chain", H("chain_not_integer.txt")], "chain_not_integer.txt: line 3"),
    ("chain-mismatch", ["chain", H("chain_mismatch.txt")], "chain_mismatch.txt: line 3"),
    ("chain-huge-number", ["chain", H("chain_huge_number.txt")], "below 10^18"),
    ("chain-many-factors", ["chain", "many.txt", "--json"], "exceed the limit of 500"),
    ("chain-no-source", ["chain"], "exactly one of"),
    # --hessian on accumulate, compare and render: a graph of scalars, its options only
    ("hessian-method-alone", ["accumulate", SIN, "-m", "symmetric"], "give --hessian"),
    ("hessian-weights-alone", ["compare", SIN, "--weights", "1"], "--weights is for --hessian"),
    (
        "hessian-weights-count",
        ["accumulate", SIN, "--hessian", "--weights", "1,2"],
        "--weights are for the Lagrangian of several outputs; the graph has one output",
    ),
    (
        "hessian-of-a-tensor-graph",
        ["accumulate", H("array_model.py") + ":residual", "--inputs", "u:4x3", "--hessian"],
        "--hessian draws and accumulates the Hessian graph of a graph of scalars",
    ),
    (
        "hessian-render-view",
        ["render", SIN, "--hessian", "--view", "line", "-o", "h.svg"],
        "--view does not apply to --hessian",
    ),
    (
        "hessian-accumulate-order",
        ["accumulate", SIN, "--hessian", "--order", "v1"],
        "--order is for",
    ),
    ("chain-graph-as-problem", ["chain", SIN], "a graph is cut into stages with --graph"),
    ("chain-inputs-alone", ["chain", "--random", "3", "--inputs", "x:3"], "apply to --graph"),
    ("chain-cuts-unknown", ["chain", "--graph", DISCREPANCY, "--cuts", "q"], "unknown vertex 'q'"),
    ("chain-methods-vertex", ["chain", "--graph", SIN, "--methods", "vertex"], "--methods"),
    ("chain-hessian-not-integer", ["chain", "--hessian", H("chain_not_integer.txt")], "line 3"),
    ("chain-hessian-mismatch", ["chain", "--hessian", H("chain_mismatch.txt")], "line 3"),
    ("chain-hessian-huge", ["chain", "--hessian", H("chain_huge_number.txt")], "below 10^15"),
    ("chain-hessian-many", ["chain", "--hessian", "many.txt"], "exceed the limit of 150"),
    ("chain-hessian-graph", ["chain", "--hessian", "--graph", SIN], "do not apply"),
    # 6. numbers that are not finite
    ("vector-nan", ["inverse", SQUARE, "--vector", "nan,1"], "--vector needs finite"),
    ("at-nan", ["inverse", SQUARE, "--vector", "1,1", "--at", "nan,1"], "--at needs finite"),
    ("at-inf", ["inverse", SQUARE, "--vector", "1,1", "--at", "1,-inf"], "--at needs finite"),
    ("at-word", ["inverse", SQUARE, "--vector", "1,1", "--at", "1,x"], "--at needs"),
    (
        "at-count",
        ["inverse", SQUARE, "--vector", "1,1", "--at", "1"],
        "--at has 1 number; it needs 2",
    ),
    # 9. evaluation overflows: the error alone, no RuntimeWarning before it
    ("overflow", ["inverse", SQUARE, "--vector", "1,1", "--at", "1000,1"], "inf"),
    # 7. orders naming the wrong vertices
    ("order-unknown", ["accumulate", DISCREPANCY, "-m", "vertex", "--order", "i,q"], "'q'"),
    (
        "order-output",
        ["accumulate", DISCREPANCY, "-m", "vertex", "--order", "i,y1"],
        "'y1' is an output",
    ),
    (
        "order-twice",
        ["accumulate", DISCREPANCY, "-m", "vertex", "--order", "i,k,i"],
        "'i' is listed twice",
    ),
    ("order-missing", ["accumulate", DISCREPANCY, "-m", "vertex", "--order", "i"], "misses 'k'"),
    (
        "edges-unknown",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "f:q>y1"],
        "unknown vertex 'q'",
    ),
    (
        "edges-source",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "f:y1>i"],
        "intermediate source",
    ),
    (
        "edges-no-path",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "b:i>k"],
        "no edge i -> k",
    ),
    (
        "edges-syntax",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "x:i>k"],
        "expected f:SOURCE",
    ),
    # edge orders' vertex items (``v:VERTEX``, the explorer's export)
    (
        "edges-vertex-unknown",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "v:q"],
        "unknown vertex 'q'",
    ),
    (
        "edges-vertex-empty",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "v:"],
        "unknown vertex ''",
    ),
    (
        "edges-vertex-output",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "v:y1"],
        "'y1' is an output",
    ),
    (
        "edges-vertex-twice",
        ["accumulate", DISCREPANCY, "-m", "edges", "--order", "v:i,v:i"],
        "not a remaining intermediate",
    ),
    ("order-method", ["accumulate", DISCREPANCY, "--order", "i,k"], "--order applies"),
    (
        "inverse-order-unknown",
        ["inverse", SQUARE, "--vector", "1,1", "--order", "q"],
        "'q' is neither",
    ),
    (
        "inverse-order-input",
        ["inverse", SQUARE, "--vector", "1,1", "--order", "a,y,z"],
        "'a' is an input",
    ),
    ("inverse-order-twice", ["inverse", SQUARE, "--vector", "1,1", "--order", "y,z,y"], "twice"),
    (
        "steps-order-unknown",
        ["render", SIN, "--steps", "-m", "vertex", "--order", "v1,q", "-o", "s.svg"],
        "'q'",
    ),
    ("steps-order-needed", ["render", SIN, "--steps", "-m", "vertex", "-o", "s.svg"], "--order"),
    # 8. values outside an option's choices
    ("method", ["accumulate", SIN, "-m", "nonsense"], "invalid choice: 'nonsense'"),
    ("strategy", ["accumulate", SIN, "-m", "zhou", "--strategy", "nonsense"], "--strategy"),
    (
        "option-of-another-method",
        ["accumulate", SIN, "-m", "forward", "--strategy", "pages"],
        "takes no option 'strategy'",
    ),
    ("compare-budget", ["compare", SIN, "--budget", "-1"], "--budget"),
    ("variant", ["accumulate", SIN, "-m", "zhou", "--variant", "nonsense"], "--variant"),
    ("metagraph", ["accumulate", SIN, "--metagraph", "nonsense"], "--metagraph"),
    ("objective", ["accumulate", SIN, "-m", "best", "--objective", "cheap"], "--objective"),
    ("compare-objective", ["compare", SIN, "--objective", "fewest"], "--objective"),
    ("compare-objective-empty", ["compare", SIN, "--objective="], "--objective"),
    (
        "objective-of-another-method",
        ["accumulate", SIN, "-m", "reverse", "--objective", "structural"],
        "takes no option 'objective'",
    ),
    (
        "compare-methods",
        ["compare", SIN, "--methods", "forward,nonsense"],
        "unknown method 'nonsense'",
    ),
    ("compare-methods-empty", ["compare", SIN, "--methods", ""], "--methods"),
    ("faces-method", ["faces", SIN, "-m", "vertex"], "unknown method 'vertex'"),
    ("faces-order-cut", ["faces", SIN, "--order", "[x0->v2"], "expected a face"),
    ("faces-order-empty", ["faces", SIN, "--order", " "], "no faces given"),
    (
        "faces-order-no-such-face",
        ["faces", SIN, "--order", "[x0->v9, v9->y]"],
        "no line-graph vertex named 'x0->v9'",
    ),
    ("faces-order-unfinished", ["faces", SIN, "--order", "[x0->v2, v2->y]"], "3 faces left"),
    (
        "faces-order-twice",
        ["accumulate", SIN, "-m", "faces", "--order", "[x0->v2, v2->y], [x0->v2, v2->y]"],
        "face 2 [x0->v2, v2->y]",
    ),
    (
        "faces-order-of-a-search",
        ["faces", SIN, "-m", "markowitz", "--order", "[x0->v2, v2->y]"],
        "--order replays methods",
    ),
    ("faces-without-order", ["accumulate", SIN, "-m", "faces"], "needs a face sequence"),
    (
        "render-highlight",
        ["render", SIN, "-o", "g.svg", "--highlight", "chains,nonsense"],
        "unknown highlight",
    ),
    ("render-style", ["render", SIN, "-o", "g.svg", "--style", "nonsense"], "--style"),
    ("render-view", ["render", SIN, "-o", "g.svg", "--view", "nonsense"], "--view"),
    ("render-variant", ["render", SIN, "-o", "g.svg", "--variant", "best"], "--variant"),
    ("bench-suite", ["bench", "--suite", "nonsense"], "--suite"),
    ("inverse-order-name", ["inverse", SQUARE, "--vector", "1,1", "--order", "exactt"], "greedy"),
    # 10. pairs and cuts naming unknown vertices
    (
        "pair-unknown",
        ["accumulate", DISCREPANCY, "-m", "zhou", "--pair", "y1,q"],
        "'q' is not an input; no vertex has that name",
    ),
    (
        "pair-role",
        ["accumulate", DISCREPANCY, "-m", "zhou", "--pair", "y1,y2"],
        "'y2' is not an input; it is an output",
    ),
    ("pair-shape", ["accumulate", DISCREPANCY, "-m", "zhou", "--pair", "y1"], "OUTPUT,INPUT"),
    (
        "cuts-unknown",
        ["accumulate", DISCREPANCY, "-m", "layers", "--cuts", "q"],
        "unknown vertex 'q'",
    ),
    ("cuts-empty", ["accumulate", DISCREPANCY, "-m", "layers", "--cuts", "i;;k"], "no vertices"),
    (
        "cuts-output",
        ["accumulate", DISCREPANCY, "-m", "layers", "--cuts", "y1"],
        "'y1' is an output",
    ),
    ("cuts-twice", ["accumulate", DISCREPANCY, "-m", "layers", "--cuts", "i;i"], "listed twice"),
    # injection through every input path (and PWNED must not appear: see _check)
    ("inject-trace", ["accumulate", H("inject.trace")], "inject.trace:3"),
    ("polygamma-order", ["accumulate", H("polygamma_order.trace")], "polygamma's order"),
    ("inject-trace-name", ["accumulate", H("inject_name.trace")], "inject_name.trace:3"),
    ("inject-label", ["accumulate", H("inject_label.json")], "inject_label.json"),
    ("inject-expr", ["codegen", H("inject_expr.json"), "-o", "j.py"], "inject_expr.json"),
    ("inject-expr-cuda", ["codegen", H("inject_expr.json"), "-o", "j.cu"], "inject_expr.json"),
    ("codegen-cuda-suffix", ["codegen", SIN, "-o", "j.cuh"], "suffix '.cuh'"),
    ("inject-name", ["compare", H("inject_name.json")], "inject_name.json"),
    ("inject-order", ["accumulate", DISCREPANCY, "-m", "vertex", "--order", INJECT], "--order"),
    ("inject-at", ["inverse", SQUARE, "--vector", "1,1", "--at", INJECT], "--at"),
    ("inject-pair", ["accumulate", DISCREPANCY, "-m", "zhou", "--pair", f"y1,{INJECT}"], "--pair"),
    # values no graph may hold, and texts no parser should choke on
    ("divide-by-zero", ["accumulate", H("divide_by_zero.trace")], "divide_by_zero.trace:3"),
    ("imaginary", ["accumulate", H("imaginary.trace")], "imaginary.trace:3"),
    # benchmarks/methods_survey.py: a unicode name got "expected 'name = expression'", an
    # output that is an input "never assigned", a unicode id "letters" (α is one)
    (
        "unicode-name",
        ["accumulate", H("unicode_name.trace")],
        "'α' is not a valid variable name (ASCII",
    ),
    ("output-is-input", ["compare", H("output_is_input.trace")], "output 'w' is an input"),
    ("unicode-id", ["structure", H("unicode_id.json")], "ASCII identifiers"),
    # a singular lump of 48 vertices was named in full: a 700-character line
    (
        "inverse-singular-long",
        [
            "inverse",
            H("singular_long.trace"),
            "--granularity",
            "elemental",
            "--vector",
            "1," * 11 + "1",
        ],
        "… 48 in all) is singular",
    ),
    ("sqrt-negative", ["accumulate", H("sqrt_negative.trace")], "sqrt_negative.trace:3"),
    ("constant-complex", ["structure", H("constant_complex.trace")], "is complex"),
    ("template-zero", ["accumulate", H("template_zero.trace")], "is not finite"),
    ("nan-label", ["accumulate", H("nan_label.json")], "nan_label.json"),
    ("nan-text-label", ["accumulate", H("nan_text_label.json")], "nan_text_label.json"),
    ("huge-label", ["accumulate", H("huge_label.json")], "huge_label.json"),
    ("unknown-name-label", ["accumulate", H("unknown_name_label.json")], "'z'"),
    ("list-label", ["accumulate", H("list_label.json")], "list_label.json"),
    ("dict-label", ["accumulate", H("dict_label.json")], "dict_label.json"),
    ("point-text", ["accumulate", H("point_not_numbers.json")], "'point': the value of 'x'"),
    ("point-input", ["compare", H("point_other_input.json")], "one value for each input"),
    ("point-shape", ["codegen", H("point_shape.json"), "-o", "j.py"], "the shape (2,), not ()"),
    ("lambda-vertex", ["accumulate", H("lambda_vertex.trace")], "lambda"),
    ("power-tower", ["accumulate", H("power_tower.trace")], "power_tower.trace:3"),
    ("long-integer", ["accumulate", "long_integer.trace"], "long_integer.trace:3"),
    ("long-statement", ["accumulate", "long_statement.trace"], "long_statement.trace:3"),
    ("deep-json", ["accumulate", "deep.json"], "deep.json"),
    ("not-utf8", ["accumulate", H("not_utf8.trace")], "not UTF-8"),
    ("empty", ["accumulate", H("empty.trace")], "empty.trace"),
    ("comments-only", ["accumulate", H("comments_only.trace")], "comments_only.trace"),
    ("unknown-command", ["frobnicate"], "invalid choice"),
    # labels against expressions, activity, names and returns
    ("wrong-label", ["accumulate", H("wrong_label.json")], "the label 3 is not dy/dx = 2*x"),
    (
        "wrong-label-at-point",
        ["accumulate", H("wrong_label_at_point.json")],
        "(at a = 10: 17 against 10) at the user's point",
    ),
    ("label-not-argument", ["accumulate", H("label_not_argument.json")], "not an argument"),
    ("passive-unknown", ["accumulate", H("passive_unknown.json")], "which no input reaches"),
    ("duplicate-inputs", ["accumulate", H("duplicate_inputs.json")], "listed twice"),
    ("returns-none", ["accumulate", H("returns_none.py") + ":f"], "returned NoneType"),
    # a function the file does not define: the line lists those it does (survey37b)
    ("misnamed", ["accumulate", H("misnamed.py") + ":kinetic"], "(it defines energy, residual)"),
    ("misnamed-empty", ["structure", H("misnamed.py") + ":"], "name a function after ':'"),
    ("misnamed-constant", ["codegen", H("misnamed.py") + ":G", "-o", "j.py"], "'G' is a float"),
    ("star-args", ["accumulate", H("star_args.py") + ":total"], "write them out, def f(x, y, z)"),
    # read at the array level with a note: the note came before the refusal (two lines)
    (
        "tensor-c-without-sparse",
        ["codegen", H("long_chain.py") + ":f", "--mode", "value_and_jacobian", "-o", "j.c"],
        "--sparse",
    ),
    # labels as deep as the program: the expression graph was laid out recursively
    (
        "deep-graph-out",
        ["accumulate", H("running_value_1000.trace"), "-m", "forward", "--graph-out", "g.svg"],
        "a drawing of more than 1000 is not legible",
    ),
    ("json-long-integer", ["accumulate", "long_integer.json"], "too many digits"),
    # loops59: a trip count, a loop bound or a flag named in --params, whose value the
    # command line does not give: the line names it and says how to fix it in the file
    *(
        (
            f"structural-parameter-{function}",
            [
                "codegen",
                H("loop_count.py") + f":{function}",
                "--inputs",
                "y:3",
                "--params",
                name,
                "-o",
                "j.py",
            ],
            f"a parameter ({name}) that fixes the structure",
        )
        for function, name in (("steps", "n"), ("fori_steps", "n"), ("biased", "bias"))
    ),
    # jacint61: --params n=5 gives such a parameter its value; a value that is not one
    # integer within the bound (or True/False), or one for a file that is not a function
    *(
        (
            f"structural-parameter-value-{label}",
            ["accumulate", H("loop_count.py") + ":steps", "--inputs", "y:3", "--params", value],
            "--params: 'n=",
        )
        for label, value in (("float", "n=2.5"), ("text", "n=x"), ("huge", "n=10000000"))
    ),
    (
        "structural-parameter-value-for-a-trace",
        ["accumulate", SIN, "--params", "n=3"],
        "--params n=3: a value is for a Python function's parameter",
    ),
    # JAX functions (skipped without JAX)
    (
        "jax-expansion-over-the-limit",
        [
            "structure",
            H("jax_model.py") + ":running_total",
            "--inputs",
            "x:500",
            "--level",
            "element",
        ],
        '125,250 scalar edges, over the limit of 100,000: use level="array" (--level array)',
    ),
    (
        "jax-dynamic-index",
        ["structure", H("jax_model.py") + ":writes_by_value", "--inputs", "x:3"],
        "not supported",
    ),
    # a loop is a region of the array level (issue 54): the element level asked for refuses
    # it (unasked, the array level is read, with a note)
    (
        "jax-loop",
        ["structure", H("jax_model.py") + ":loops", "--level", "element"],
        "the array operation 'loop' has no element level (a loop is a region",
    ),
    (
        "jax-sort-two-keys",
        [
            "structure",
            H("jax_model.py") + ":sorts_by_two_keys",
            "--inputs",
            "x:3",
            "--level",
            "element",
        ],
        "the array operation 'sort' has no element level",
    ),
    (
        "jax-sort-union-over-limit",
        [*SORTED, "--inputs", "x:8000", "--level", "array", "-o", "j.py"],
        "the union over permutations",
    ),
    (
        "jax-take-at-run-time-union-over-limit",
        [
            "codegen",
            H("jax_model.py") + ":taken_at_its_floor",
            "--inputs",
            "x:8000",
            "--level",
            "array",
            "-o",
            "j.py",
        ],
        "the union over positions",
    ),
    (
        "jax-scatter-add-at-run-time-union-over-limit",
        [
            "codegen",
            H("jax_model.py") + ":added_at_its_floor",
            "--inputs",
            "x:8000",
            "--level",
            "array",
            "-o",
            "j.py",
        ],
        "scatter-add at positions known only at run time",
    ),
    (  # run-time takes, sorts (tests/test_c_dynamic_take.py), cumlogsumexp, qr and svd
        "jax-frexp-in-c",  # (tests/test_c_qr_svd.py) are printed in C; frexp is not
        [
            "codegen",
            H("jax_model.py") + ":mantissa_scaled",
            "--inputs",
            "x:3",
            "--level",
            "array",
            "--sparse",
            "-o",
            "j.c",
        ],
        "C values: cannot translate",
    ),
    (  # the same graph as JSON: a DGraphError of the C printer is one line, exit 2
        "json-frexp-in-c",
        ["codegen", H("c_values_refused.json"), "--sparse", "-o", "j.c"],
        "numpy.frexp",
    ),
    (
        "jax-polygamma-order",
        ["structure", H("jax_model.py") + ":polygamma_of_order_x", "--inputs", "x:3"],
        "give a constant order",
    ),
    # --mode hessian (issue 55): a vector f needs the Lagrangian's weights, rightly sized
    (
        "hessian-vector-no-weights",
        ["codegen", *HESSIAN_VECTOR, "-o", "h.py"],
        "give weights=",
    ),
    (
        "hessian-weights-count",
        ["codegen", *HESSIAN_VECTOR, "--weights", "1,2", "-o", "h.py"],
        "2 numbers for an output of 3 entries",
    ),
    (
        "hessian-weights-scalar",  # one weight is a scalar constraint's multiplier: taken
        ["codegen", *HESSIAN_SCALAR, "--weights", "1,2", "-o", "h.py"],
        "2 numbers for an output of 1 entry",
    ),
    (
        "hessian-cuda-dense",  # the array level's Hessian is sparse values in C
        ["codegen", *HESSIAN_SCALAR, "--level", "array", "-o", "h.cu"],
        "give --sparse",
    ),
    (
        "hessian-numpy-index-unread",  # np.sort's Hessian is read (scatter_add_dynamic)
        ["codegen", *hessian_numpy("argsorted_rows"), "-o", "h.py"],
        "depends on the inputs",
    ),
    (
        "hessian-numpy-vector-no-weights",
        ["codegen", *hessian_numpy("vector"), "--sparse", "-o", "h.c"],
        "give weights=",
    ),
    (
        "hessian-numpy-repeat-negative",
        ["codegen", *hessian_numpy("repeat_negative"), "-o", "h.py"],
        "numpy.repeat: a negative repeat count",
    ),
    (
        "hessian-numpy-list-weights-count",  # a list's Lagrangian: one weight per entry
        ["codegen", *hessian_numpy("residual_list"), "--weights", "1,2", "-o", "h.py"],
        "--weights: 2 numbers for 3 outputs of 3 entries",
    ),
    (
        "hessian-numpy-branch",
        ["codegen", *hessian_numpy("branches")[:1], "--mode", "hessian", "-o", "h.py"],
        "write it with numpy.where",
    ),
    (
        "hessian-numpy-bessel-two-arrays",  # JAX has no k0: the element level takes one vector
        hessian_cli(H("numpy_model.py") + ":bessel_of_two_arrays", "--inputs", "x:2,y:2"),
        "the Hessian of scipy.special.k0 (JAX has no such function",
    ),
    (
        "codegen-subnormal-divisor",  # fuzz67: the label 1e320 was an internal OverflowError
        [
            "codegen",
            H("numpy_model.py") + ":divided_by_a_subnormal",
            "--inputs",
            "x:2",
            "-o",
            "j.py",
        ],
        "constant 1.00001113294126e+320 is beyond the range of a double",
    ),
    (
        "codegen-jax-bessel",
        ["codegen", H("numpy_model.py") + ":bessel_in_jax", "--inputs", "x:3", *JAX_OUT],
        "cannot print math.j0 (no jax.numpy function)",
    ),
    (
        "codegen-jax-bessel-array-level",  # the array level: was an AttributeError
        [
            "codegen",
            H("numpy_model.py") + ":bessel_in_jax",
            "--inputs",
            "x:7",
            "--level",
            "array",
            *JAX_OUT,
        ],
        "cannot print scipy.special.j0 (no jax.scipy.special function)",
    ),
    (
        "weights-without-hessian",
        ["codegen", *HESSIAN_SCALAR[:3], "--weights", "1", "-o", "h.py"],
        "--weights is for --mode hessian",
    ),
    # --mode hessian given hostile input (the issue 55 audit): each refused in one line
    (
        "hessian-dense-too-large",
        hessian_cli(H("jax_model.py") + ":spring", "--inputs", "q:20000,k"),
        "entries (3.0 GiB a call), more than 100,000,000: give sparse=True (--sparse)",
    ),
    ("hessian-at-nan", [*hessian_cli(*SPRING), "--at", "nan,1,2,3"], "finite numbers"),
    ("hessian-weights-nan", [*hessian_cli(*TOTAL), "--weights", "nan"], "finite numbers"),
    ("hessian-weights-inf", [*hessian_cli(*TOTAL), "--weights", "1,inf,1"], "finite numbers"),
    ("hessian-weights-word", [*hessian_cli(*TOTAL), "--weights", "1,a"], "comma-separated numbers"),
    ("hessian-size-zero", hessian_cli(SPRING[0], "--inputs", "q:0,k"), "a size from 1 to 10000"),
    (
        "hessian-size-huge",
        hessian_cli(SPRING[0], "--inputs", "q:1000000000000,k", "--sparse"),
        "more than 100,000,000",
    ),
    (
        "hessian-unsupported-primitive",
        hessian_cli(H("jax_model.py") + ":complex_tangent", "--inputs", "x:4"),
        "'tan' on complex numbers is not supported",
    ),
    (  # eig55: eigenvalues of nonsymmetric matrices, sqrtm
        "jax-eigenvectors",
        ["structure", H("jax_model.py") + ":eigenvectors_read", "--inputs", "x:4"],
        "eigenvectors of a nonsymmetric matrix",
    ),
    (
        "hessian-eigvals",
        hessian_cli(H("jax_model.py") + ":spectral_radius", "--inputs", "x:4"),
        "the Hessian of a function of a nonsymmetric matrix's eigenvalues",
    ),
    (
        "numpy-sqrtm-negative",
        [
            "codegen",
            H("numpy_model.py") + ":root_of_negative",
            "--inputs",
            "x:4",
            "--at",
            "0.5,0.2,0.1,0.3",
            "-o",
            "j.py",
        ],
        "principal square root is not real",
    ),
    (  # a Heston variance below 0 read as 0: the line names the partial not finite
        "numpy-heston-sqrt-at-0",
        [
            "codegen",
            H("numpy_model.py") + ":heston_truncated",
            "--inputs",
            "p:4",
            "--level",
            "array",
            "--at",
            "0.04,1.5,0.04,0.3",
            "-o",
            "j.py",
        ],
        "the partial of sqrt at its argument 0 is infinite there",
    ),
    (  # a defective matrix: no V·diag(λ)·V⁻¹ to read the derivative through
        "numpy-sqrtm-defective",
        [
            "codegen",
            H("numpy_model.py") + ":root_of_jordan",
            "--inputs",
            "x:2",
            "--at",
            "2,1",
            "-o",
            "j.py",
        ],
        "sqrtm of a defective matrix at the point",
    ),
    (
        "numpy-sqrtm-disp-false",
        ["structure", H("numpy_model.py") + ":root_and_error", "--inputs", "x:2"],
        "disp=False is not read",
    ),
    (
        "numpy-eigvals-not-square",
        ["structure", H("numpy_model.py") + ":eigenvalues_of_rows", "--inputs", "x:6"],
        "numpy.linalg.eigvals: one square matrix",
    ),
    (
        "jax-complex-output",
        ["structure", H("jax_model.py") + ":complex_output", "--inputs", "x:4"],
        "output 1 is complex (complex128)",
    ),
    (
        "hessian-fft-too-long",
        hessian_cli(H("jax_model.py") + ":long_spectrum", "--inputs", "x:5000"),
        "fft of length 5000: at most 4096",
    ),
    (
        "hessian-jax-branch",
        hessian_cli(H("jax_model.py") + ":branches_on_value", "--inputs", "x:4"),
        "TracerBoolConversionError",
    ),
    ("hessian-json-truncated", hessian_cli("truncated.json"), "invalid JSON"),
    ("hessian-json-not-object", hessian_cli("list.json"), "the top level must be a JSON object"),
    (
        "hessian-json-no-partial",
        hessian_cli(H("no_partial.json")),
        "the Hessian graph needs every local partial",
    ),
    ("hessian-json-nan-label", hessian_cli(H("nan_label.json")), "labels and points must be"),
    # a bare NaN as the point: the line said "labels must be finite" (survey37b)
    ("json-nan-point", ["structure", H("nan_point.json")], "labels and points must be finite"),
    (
        "hessian-json-solved",
        hessian_cli(H("solved_zero_pivot.json")),
        "a graph of solved values (a linear system) has none",
    ),
    (
        "hessian-json-tensor-primitive",
        hessian_cli(H("tensor_unknown_primitive.json")),
        "unknown array primitive 'fft'",
    ),
    ("hessian-edgeless", hessian_cli(H("edgeless.trace")), "has no edges"),
    # a graph of scalars' weights: one per output, and only for several outputs
    (
        "hessian-scalar-weights-count",
        [*hessian_cli(SQUARE), "--weights", "1,2,3"],
        "3 numbers for the 2 outputs",
    ),
    (
        "hessian-scalar-weights-one-output",
        [*hessian_cli(SIN), "--weights", "2"],
        "the graph has one output",
    ),
    (
        "tensor-unknown-primitive",
        ["structure", H("tensor_unknown_primitive.json")],
        "unknown array primitive 'fft'",
    ),
    ("tensor-operand-count", ["structure", H("tensor_operand_count.json")], "takes 1 operands"),
    (
        "tensor-wide-qr",
        ["structure", H("tensor_wide_qr.json")],
        "QR of a wide matrix (shape (2, 3)) is not supported",
    ),
    (
        "tensor-det-of-a-vector",
        ["structure", H("tensor_det_vector.json")],
        "det: one matrix, or a stack of them",
    ),
    (  # session 53: a stack of matrices is one operation; its operands' stacks must agree
        "tensor-triangular-solve-stacks-differ",
        ["structure", H("tensor_triangular_stack.json")],
        "triangular_solve: operand 1 of shape (3, 3, 1) for a stack of shape (2,)",
    ),
    (
        "tensor-conv-groups",
        ["structure", H("tensor_conv_groups.json")],
        "features 3 (lhs), 2 and 2 (rhs) do not fit 1 feature and 1 batch groups",
    ),
    (
        "tensor-block-type",
        ["structure", H("tensor_block_type.json")],
        "edge x -> y: the block is diagonal, not 'dense'",
    ),
    # session 66, found by benchmarks/fuzz_inputs.py: each was an internal error
    (
        "tensor-edge-no-target",
        ["structure", H("tensor_edge_no_target.json")],
        "edge 0 has no string 'target'",
    ),
    (
        "tensor-param-missing",
        ["structure", H("tensor_param_missing.json")],
        "vertex 'y': its op does not fit its operands (missing key 'y')",
    ),
    (
        "point-huge-integer",
        ["accumulate", H("point_huge_integer.json")],
        "'point': the value of 'x' is not finite",
    ),
    (
        "jax-unknown-input",
        ["structure", H("jax_model.py") + ":spring", "--inputs", "x:3"],
        "no parameter 'x' (q, k)",
    ),
    (
        "jax-bad-size",
        ["structure", H("jax_model.py") + ":spring", "--inputs", "q:0"],
        "needs a size from 1 to 10000",
    ),
    # autograd's test_mvn_sing_cov: scipy's density on a singular covariance's support
    (
        "numpy-singular-normal",
        ["codegen", H("numpy_model.py") + ":singular_normal", "--inputs", "x:4", "-o", "j.py"],
        "cov is singular (allow_singular=True)",
    ),
    # autograd's grad inside the function: its boxes cannot hold a traced array (session 37)
    (
        "autograd-grad-inside",
        ["codegen", H("autograd_model.py") + ":grad_inside", "--inputs", "x:3", "-o", "j.py"],
        "autograd's own differentiation inside the function",
    ),
    # a parameter left out of --inputs never silently becomes a scalar (issue 54 item 5)
    (
        "inputs-missing-one",
        ["structure", H("jax_model.py") + ":spring", "--inputs", "q:3"],
        "parameter 'k' is not given",
    ),
    # a parameter with a default may be left out, one without may not (real_programs.py)
    (
        "inputs-missing-no-default",
        ["structure", H("numpy_model.py") + ":needs_nu", "--inputs", "u:4"],
        "parameter 'nu' is not given",
    ),
    (
        "keyword-only-no-default",
        ["structure", H("numpy_model.py") + ":keyword_only_no_default", "--inputs", "u:4"],
        "keyword-only parameter 'nu' has no default",
    ),
    (
        "numpy-assignment-into",
        ["structure", H("numpy_model.py") + ":assigns_into", "--inputs", "u:4"],
        "assignment into a NumPy array",
    ),
    # refused by the NumPy tracer, then read by JAX as a constant: the tracer's reason
    (
        "numpy-std-ddof",
        ["structure", H("numpy_model.py") + ":no_freedom", "--inputs", "x:5"],
        "ddof=5 leaves no degrees of freedom over 5 entries",
    ),
    (
        "numpy-bincount-negative",
        ["structure", H("numpy_model.py") + ":negative_labels", "--inputs", "w:3"],
        "numpy.bincount: the labels must be non-negative",
    ),
    (
        "numpy-reduceat-bounds",
        ["structure", H("numpy_model.py") + ":reduceat_out_of_bounds", "--inputs", "x:4"],
        "numpy.add.reduceat: an index is out of bounds for axis 0 of length 4",
    ),
    (  # was NumPy's broadcast ValueError (real_programs16, session 34)
        "numpy-sum-where-shape",
        ["structure", H("numpy_model.py") + ":sum_where_wrong_shape", "--inputs", "x:4"],
        "numpy.sum: where= of shape (4,) does not broadcast to the array's (2, 2)",
    ),
    (  # x[mask] by a mask from the inputs is kept for writes and sums only (session 35)
        "numpy-masked-length",
        ["structure", H("numpy_model.py") + ":masked_length", "--inputs", "x:4"],
        "selects a number of entries that depends on them",
    ),
    (
        "numpy-masked-cumsum",
        ["structure", H("numpy_model.py") + ":masked_cumsum", "--inputs", "x:4"],
        "selects a number of entries that depends on them",
    ),
    (
        "numpy-masked-vector-write",
        ["structure", H("numpy_model.py") + ":masked_vector_write", "--inputs", "x:4"],
        "assignment x[mask] = value by a mask computed from the inputs takes a number",
    ),
    (
        "numpy-branch",  # why, then what: one formula for every input, or none
        ["structure", H("numpy_model.py") + ":branches"],
        "no one formula holds for every input: write it with numpy.where",
    ),
    (
        "numpy-branch-on-parameter",  # scipy's fun_medazko: phi = 2 if t <= 5 else 0
        [
            "codegen",
            H("numpy_model.py") + ":forcing_switch",
            *("--inputs", "t,y:3", "--params", "t", "-o", "j.py"),
        ],
        "a branch on a value of the parameters alone; a parameter (t)",
    ),
    ("numpy-float", ["structure", H("numpy_model.py") + ":converts"], "float() of an array"),
    ("numpy-ufunc", ["structure", H("numpy_model.py") + ":unknown_ufunc"], "numpy.spacing"),
    (
        "scipy-special-ufunc",
        ["structure", H("numpy_model.py") + ":unknown_special", "--inputs", "x:3"],
        "scipy.special.wrightomega",
    ),
    (
        "scipy-special-jv-order-2",
        ["structure", H("numpy_model.py") + ":bessel_j_of_order_two", "--inputs", "x:3"],
        "scipy.special.jv of order 2: only the orders 0 and ±1 are read",
    ),
    (
        "scipy-linalg-logm-negative",  # eig55: logm reads; at -I it has no real logarithm
        [
            "codegen",
            H("numpy_model.py") + ":matrix_logarithm",
            "--inputs",
            "x:4",
            "--at=-1,0,0,-2",
            "-o",
            "j.py",
        ],
        "principal logarithm is not real",
    ),
    (
        "scipy-linalg-expm-vector",
        ["structure", H("numpy_model.py") + ":matrix_exponential_of_a_vector", "--inputs", "x:4"],
        "scipy.linalg.expm needs square matrices",
    ),
    (
        "scipy-special-fractional-degree",
        ["structure", H("numpy_model.py") + ":legendre_of_a_fractional_degree", "--inputs", "x:3"],
        "give one whole degree",
    ),
    (
        "scipy-stats-ppf-without-q",
        ["structure", H("numpy_model.py") + ":quantile_without_q", "--inputs", "x:3"],
        "needs q",
    ),
    (
        "scipy-stats-function-not-read",
        ["structure", H("numpy_model.py") + ":wasserstein_of_traced", "--inputs", "x:3"],
        "scipy.stats.wasserstein_distance of an array that depends on the inputs",
    ),
    (
        "scipy-stats-nan-policy-omit",
        ["structure", H("numpy_model.py") + ":entropy_omitting_nans", "--inputs", "x:3"],
        "scipy.stats.entropy(nan_policy='omit')",
    ),
    (
        "scipy-stats-family-not-read",
        ["structure", H("numpy_model.py") + ":alpha_of_traced", "--inputs", "x:3"],
        "scipy.stats.alpha.logpdf of an array that depends on the inputs is not supported",
    ),
    (
        "scipy-interp1d-kind-not-read",
        ["structure", H("numpy_model.py") + ":nearest_table_of_traced", "--inputs", "x:3"],
        "interp1d of kind 'nearest' at queries that depend on the inputs is not supported",
    ),
    (
        "scipy-periodic-integral-not-read",
        ["structure", H("numpy_model.py") + ":periodic_integral_to_traced", "--inputs", "x:3"],
        "CubicSpline.integrate with bounds that depend on the inputs is supported with",
    ),
    (
        "scipy-signal-filter-too-long",
        ["structure", H("numpy_model.py") + ":long_savgol", "--inputs", "x:3000"],
        "scipy.signal.savgol_filter along an axis of 3000 > 2048 entries",
    ),
    (
        "numpy-split-uneven",
        ["structure", H("numpy_model.py") + ":uneven_split", "--inputs", "x:3"],
        "numpy.split: array split does not result in an equal division",
    ),
    (
        "scipy-lu-factors-read",
        ["structure", H("numpy_model.py") + ":lu_factors_read", "--inputs", "x:4"],
        "read by scipy.linalg.lu_solve only",
    ),
    # complex values are read as real pairs: a complex output, and a DFT past 4096, are not
    (
        "numpy-rfft-complex-output",
        ["structure", H("numpy_model.py") + ":rfft_spectrum", "--inputs", "x:4"],
        "output 'y' is complex: the derivatives are of real outputs",
    ),
    (
        "numpy-fft-too-long",
        ["structure", H("numpy_model.py") + ":long_rfft", "--inputs", "x:4"],
        "numpy.fft.rfft: fft of length 5000: at most 4096",
    ),
    # what real_programs10.py leaves refused: no array operation for them
    (  # session 52: a callback into Python is named (jax.debug.print is read as nothing)
        "jax-pure-callback",
        ["structure", H("jax_model.py") + ":sine_by_callback", "--inputs", "x:3"],
        "pure_callback calls Python code, which has no derivative rule dgraph can read",
    ),
    (  # session 53: tridiagonal_solve read as a dense solve, up to order 1024
        "jax-long-tridiagonal",
        ["structure", H("jax_model.py") + ":long_tridiagonal", "--inputs", "x:2000"],
        "tridiagonal_solve of order 2,000 (read as a dense solve, of order at most 1,024)",
    ),
    (
        "numpy-pinv",
        ["structure", H("numpy_model.py") + ":pseudo_inverse", "--inputs", "x:4"],
        "numpy.linalg.pinv of a matrix (or a stack), hermitian=False, is supported",
    ),
    (  # real_programs11.py; a stack of square matrices is read one matrix each (session 35)
        "numpy-det-stacked-not-square",
        ["structure", H("numpy_model.py") + ":stacked_dets", "--inputs", "x:4"],
        "numpy.linalg.det: one square matrix, or a stack of them, is supported, not shape"
        " (2, 2, 8)",
    ),
    (  # np.histogram is read (session 52): an estimator's bins, edges from the inputs are not
        "numpy-histogram-auto",
        ["structure", H("numpy_model.py") + ":histogram_estimated", "--inputs", "x:4"],
        "numpy.histogram(bins='auto'): an estimator's bins are not supported",
    ),
    (
        "numpy-histogram-traced-edges",
        ["structure", H("numpy_model.py") + ":histogram_traced_edges", "--inputs", "x:4"],
        "numpy.histogram: bins from the inputs are not supported",
    ),
    (
        "numpy-take-wrap-computed",
        [
            "structure",
            H("numpy_model.py") + ":take_wrapped_at_computed_positions",
            "--inputs",
            "x:4",
        ],
        "numpy.take(mode='wrap') needs constant positions",
    ),
    (  # session 53: the new NumPy/SciPy readings' refusals
        "scipy-banded-too-long",
        ["structure", H("numpy_model.py") + ":banded_too_long", "--inputs", "x:5000"],
        "scipy.linalg.solve_banded of order 5,000 (over 4,096) is not supported",
    ),
    (
        "numpy-nonzero-counted",
        ["structure", H("numpy_model.py") + ":counted_positions", "--inputs", "x:4"],
        "have a count that depends on the inputs",
    ),
    (
        "spsolve-too-large",
        ["structure", H("numpy_model.py") + ":sparse_solve", "--inputs", "x:4"],
        "order 5000 (over 4096) is not supported: its Jacobian is dense",
    ),
    (
        "vector-returns-none",
        ["structure", H("returns_none.py") + ":f", "--inputs", "a:2"],
        "returned NoneType",
    ),
    # 11. parameters (issue 28)
    ("params-not-name", ["structure", SIN, "--params", "1x"], "--params: '1x' is not a name"),
    ("params-twice", ["structure", SIN, "--params", "g,g"], "listed twice"),
    (
        "params-unknown",
        ["structure", H("numpy_model.py") + ":branches", "--params", "nothing"],
        "no parameter 'nothing'",
    ),
    ("params-late", ["structure", H("parameters_late.trace")], "must come before 'inputs:'"),
    ("params-vertex", ["structure", H("parameter_vertex.json")], "has the name of a parameter"),
    ("params-not-list", ["structure", H("parameters_not_list.json")], "must be a list"),
    (
        "params-undeclared",
        ["codegen", H("undeclared_parameter.trace"), "-o", "j.py"],
        "unknown name 'g' (a parameter? declare it",
    ),
    (  # --params at the array level (issue 53): a name f does not take, every argument
        "params-jax-array-level-unknown",
        [
            *["structure", H("jax_model.py") + ":spring", "--inputs", "q:3"],
            *["--params", "k,g", "--level", "array"],
        ],
        "has no parameter 'g' to take as a parameter (it has q, k)",
    ),
    (
        "params-jax-array-level-every-argument",
        [
            *["structure", H("jax_model.py") + ":spring", "--inputs", "q:3"],
            *["--params", "q,k", "--level", "array"],
        ],
        "every parameter is in params: nothing to differentiate",
    ),
    (
        "params-tensor-json-no-shape",
        ["structure", H("tensor_parameter_no_shape.json")],
        "'parameter_shapes' must give each of its 'parameters' a shape",
    ),
    (
        "params-numpy-array-level-unknown",
        [
            *["structure", H("array_model.py") + ":residual", "--inputs", "u:3x3"],
            *["--params", "v", "--level", "array"],
        ],
        "has no parameter 'v' to take as a parameter (it has u)",
    ),
    (  # --tape bounds a tensor graph's vjp (issue 54: the loops' states)
        "tape-scalar-graph",
        ["codegen", SIN, "--mode", "vjp", "--tape", "3", "-o", "j.py"],
        "--tape is for a tensor graph's vjp",
    ),
    (
        "tape-not-vjp",
        [
            *["codegen", H("array_model.py") + ":residual", "--inputs", "u:3x3"],
            *["--level", "array", "--tape", "3", "-o", "j.py"],
        ],
        "--tape 3: the states a vjp keeps, a positive integer",
    ),
    (
        "tape-zero",
        [
            *["codegen", H("array_model.py") + ":residual", "--inputs", "u:3x3"],
            *["--level", "array", "--mode", "vjp", "--tape", "0", "-o", "j.py"],
        ],
        "--tape 0: the states a vjp keeps, a positive integer",
    ),
    (
        "derivative-output",
        ["structure", H("derivative_output.py") + ":with_derivative"],
        "contains the derivative Derivative(q(t), t)",
    ),
    # a vector argument given no size is never read as a scalar (issue 53 item 6)
    (
        "indexes-a-scalar",
        ["accumulate", H("indexes_scalar.py") + ":indexes"],
        "--inputs NAME:N",
    ),
    ("iterates-a-scalar", ["structure", H("indexes_scalar.py") + ":iterates"], "sizes="),
    # session 62: Python's int() of an input (scipy's Mishra10) names int(), not float()
    (
        "int-of-input",
        ["structure", H("int_of_input.py") + ":truncated", "--inputs", "x:2"],
        "int() of a value that depends on the inputs",
    ),
    # 12. a module with JAX and NumPy functions (issue 40 item 4): the route is decided per
    # function; one that neither JAX nor the NumPy tracer takes is one line naming both
    (
        "mixed-neither-route",
        ["structure", H("mixed_model.py") + ":mixes", "--inputs", "x:2"],
        "tracing it with JAX failed: TracerArrayConversionError",
    ),
    # 14. array shapes on the command line (issue 41)
    *[
        (
            f"array-shape-{case}",
            ["structure", H("array_model.py") + ":residual", "--inputs", spec],
            needle,
        )
        for case, spec, needle in [
            ("zero", "u:0x3", "positive integers"),
            ("negative", "u:3x-2", "positive integers"),
            ("not-integer", "u:2.5x3", "positive integers"),
            ("empty-axis", "u:3x", "positive integers"),
            ("too-many-axes", "u:" + "x".join(["2"] * 9), "more than 8"),
            ("too-large", "u:100000x10000", "more than 100,000,000"),
            ("twice", "u:3x3,u:4x4", "given twice"),
        ]
    ],
    (
        "array-unsupported",
        ["structure", H("array_model.py") + ":solves", "--inputs", "u:3x3"],
        "numpy.linalg.lstsq of a matrix that depends on the inputs: its solution [0] is read",
    ),
    *[
        (
            f"array-{name}",
            [*["codegen", H("array_model.py") + f":{name}", "--inputs", "u:3x3"], *HESSIAN_OUT],
            needle,
        )
        for name, needle in [
            ("percentile_of_u", "numpy.percentile(method='weibull')"),
            ("convolve_middle", "mode must be 'full', 'same' or 'valid'"),
            ("piecewise_reduced", "elementwise functions are supported"),
            ("piecewise_count", "1 conditions take 1 or 2 functions, not 3"),
            ("take_along_unbounded", "must be whole numbers bounded to the axis"),
        ]
    ],
    # 14b. code for tensor graphs (issue 41, item 4): python or jax, jacobian, jvp or vjp
    *[
        (
            f"tensor-codegen-{case}",
            ["codegen", H("array_model.py") + ":residual", "--inputs", "u:4x3", *argv],
            needle,
        )
        for case, argv, needle in [
            ("cuda", ["-o", "j.cu"], "j.cu: a tensor graph's CUDA code is the values of"),
            ("second-cuda", ["-o", "j.py", "-o", "j.cu"], "j.cu: a tensor graph's CUDA code"),
            (
                "c-value-and-jacobian",  # with --sparse: the values (tests/test_hessian_numpy)
                ["--mode", "value_and_jacobian", "-o", "j.c"],
                "j.c: a tensor graph's C code is the values of the sparse value_and_jacobian",
            ),
            ("c-vjp-sparse", ["--mode", "vjp", "--sparse", "-o", "j.c"], "--sparse is for"),
            ("sparse-jvp", ["--mode", "jvp", "--sparse", "-o", "j.py"], "--sparse is for"),
        ]
    ],
    # 14c/d. loops and branches are regions (issue 54): every target prints them
    # (tests/test_codegen_loops.py writes halve's C and sign_branch's CUDA by the CLI);
    # a body reads at its loop counter (tests/test_loop_index.py) or at a position it
    # computes (a dynamic take), in NumPy, JAX and C (argmax_in_loop's Hessian:
    # tests/test_c_dynamic_take.py)
    (  # selections at the counter past STEP_LIMIT: refused before the tables are made
        "loop-rows-written-past-the-limit",
        [
            "codegen",
            H("jax_model.py") + ":rows_at_counter",
            "--inputs",
            "x:2000",
            "--mode",
            "jacobian",
            "-o",
            "j.py",
        ],
        "its per-step selections would hold 3,000,000 entries, over 2,000,000",
    ),
    (  # the generated loop's dense tangents: 40,000 × 40,000, refused before any is made
        "loop-tangents-past-the-limit",
        [
            "codegen",
            H("jax_model.py") + ":wide_carry",
            "--inputs",
            "x:200x200",
            "--sparse",
            "-o",
            "j.py",
        ],
        "ask for jvp or vjp",
    ),
    (  # a while_loop reads at any index it computes, and writes nowhere
        "loop-while-write-at-counter",
        [
            "structure",
            H("jax_model.py") + ":while_write_at_counter",
            "--inputs",
            "c:3",
            "--level",
            "array",
        ],
        "changes from trip to trip of a while_loop",
    ),
    (  # the element level refuses a cond, as it does a loop
        "jax-cond",
        ["structure", H("jax_model.py") + ":sign_branch", "--inputs", "c:3", "--level", "element"],
        "the array operation 'cond' has no element level (",
    ),
    (
        "tensor-best-scalar-price",
        [
            "accumulate",
            H("array_model.py") + ":residual",
            "--inputs",
            "u:4x3",
            "-m",
            "best",
            "--objective",
            "structural",
        ],
        "best: the objective 'structural' prices scalar graphs; this is a tensor graph",
    ),
    (
        "tensor-codegen-bad-inputs",
        ["codegen", H("array_model.py") + ":residual", "--inputs", "u:4xq", "-o", "j.py"],
        "positive integers",
    ),
    (
        "tensor-codegen-unknown-input",
        ["codegen", H("array_model.py") + ":residual", "--inputs", "v:4x3", "-o", "j.py"],
        "no parameter 'v'",
    ),
    # 12b. the point values are checked at first (--at): as many numbers as input entries
    (
        "at-too-few",
        [
            "codegen",
            H("array_model.py") + ":residual",
            "--inputs",
            "u:2x2",
            "--at",
            "1,2,3",
            "-o",
            "j.py",
        ],
        "--at has 3 numbers; it needs 4",
    ),
    (
        "at-not-a-number",
        ["accumulate", H("array_model.py") + ":residual", "--inputs", "u:2x2", "--at", "1,x,3,4"],
        "--at needs comma-separated numbers",
    ),
    ("at-not-finite", ["accumulate", H("edgeless.trace"), "--at", "nan"], "finite numbers"),
    # 13. face-optimal beyond its exact limit, without --budget (issue 40, item 5)
    (
        "face-optimal-too-large",
        ["accumulate", str(DATA / "spherical_coordinates.trace"), "-m", "face-optimal"],
        "exact without a budget up to 14",
    ),
]


def _make(directory: Path) -> None:
    """The inputs too big, too strange or too fragile to keep in the corpus."""
    (directory / "folder.json").mkdir()
    (directory / "folder.svg").mkdir()
    (directory / "folder.py").mkdir()
    os.mkfifo(directory / "fifo.trace")
    os.mkfifo(directory / "fifo.py")
    (directory / "zero.trace").symlink_to("/dev/zero")
    with open(directory / "huge.json", "wb") as sparse:  # 201 MB of nothing, on no disk
        sparse.truncate(201 * 2**20)
    (directory / "plain.txt").write_text("a file, not a directory\n")
    (directory / "many.txt").write_text("600\n" + "2 2 4\n" * 600)
    head = "inputs: x\noutputs: y\n"
    (directory / "long_integer.trace").write_text(head + "y = x*" + "7" * 10_000 + "\n")
    (directory / "long_statement.trace").write_text(head + "y = " + "x + " * 3000 + "\n")
    (directory / "deep.json").write_text("[" * 100_000)
    (directory / "truncated.json").write_text('{"format": "dgraph/1", "inputs": ["x"], "outp')
    (directory / "list.json").write_text("[1, 2, 3]\n")
    (directory / "unfinished.trace").write_text("inputs: x\noutputs: y\ny = x +\n")
    (directory / "long_integer.json").write_text(
        '{"inputs": ["x"], "outputs": ["y"], "edges": [{"source": "x", "target": "y",'
        f' "label": {"9" * 5000}}}]}}'
    )


class _Timeout(BaseException):
    """Not an Exception: ``main`` must not report it as an internal error."""


@pytest.fixture
def deadline():
    def expire(*_):
        raise _Timeout(f"no answer within {SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _files(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*")}


def _check(code: int, out: str, err: str, needle: str) -> None:
    assert code == 2, err
    assert out == ""
    assert err.startswith("dgraph: error: ") and err.endswith("\n"), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err and "Warning" not in err, err
    assert len(err) < 400, f"{len(err)} characters: {err[:200]}..."
    assert needle in err, err


@pytest.mark.parametrize(("argv", "needle"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_input_is_one_line_and_exit_2(
    argv, needle, tmp_path, monkeypatch, capsys, deadline
):
    if any(m in a for a in argv for m in ("jax_model.py", "mixed_model.py", "loop_count.py")):
        pytest.importorskip("jax", reason="JAX is not installed")
    _make(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = _files(tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    _check(code, out, err, needle)
    assert _files(tmp_path) == before  # nothing written, not even a temporary file
    assert not (tmp_path / "PWNED").exists()


def test_a_long_bad_statement_is_not_echoed(tmp_path, monkeypatch, capsys, deadline):
    _make(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = main(["accumulate", "long_statement.trace"])
    _, err = capsys.readouterr()
    assert code == 2 and len(err) < 300, err


def test_floating_point_warnings_stay_silent(capsys, deadline):
    """Overflow on the way to an error is no part of the answer (pytest records warnings,
    so here they are errors: one reaching the CLI would be an internal error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main(["inverse", SQUARE, "--vector", "1,1", "--at", "1000,1"])
    _check(code, *capsys.readouterr(), "has the value inf")


def test_a_derivative_code_too_large_is_refused(tmp_path, monkeypatch, capsys, deadline):
    """``spectrum_of_rank_one`` (``Σ c·eigvalsh(D + 0.1 x xᵀ)``) at 512 entries with
    ``--sparse``: its Hessian's code would hold 5.4·10⁸ array entries at once, past
    ``PEAK_MOST`` (4·10⁸), refused in one line before any is evaluated (4.0 GiB; 6 CPU-s
    from the command line). Here at 64 entries (1,081,344 entries at once) under a limit
    of 10⁶, the same path at a twentieth of the cost. The builder's notes (constants
    folded, the unread eigenvectors dropped) come first, one line each."""
    pytest.importorskip("jax", reason="JAX is not installed")
    from dgraph.codegen.tensor import footprint

    monkeypatch.setattr(footprint, "PEAK_MOST", 10**6)
    monkeypatch.chdir(tmp_path)
    argv = hessian_cli(H("jax_model.py") + ":spectrum_of_rank_one", "--inputs", "x:64")
    code = main([*argv, "--sparse"])
    out, err = capsys.readouterr()
    last = err.splitlines()[-1]
    assert code == 2 and out == "" and "Traceback" not in err, err
    assert all(line.startswith("dgraph: note: ") for line in err.splitlines()[:-1]), err
    assert last.startswith("dgraph: error: the derivative's code would hold 1,081,344"), err
    assert "more than 1,000,000: its code would not fit in memory" in last, err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("message", ["Unable to allocate 74.5 GiB for an array", ""])
def test_running_out_of_memory_is_one_line_and_exit_2(message, tmp_path, monkeypatch, capsys):
    """A problem too large for the machine (``--inputs x:100000000 --mode hessian
    --sparse`` ran out after 58 s under a 6 GB limit) was ``internal error: MemoryError:
    bad input``, exit 1; here the gradient graph's construction runs out."""
    import dgraph.cli.codegen

    def out_of_memory(*args, **kwargs):
        raise MemoryError(message)

    monkeypatch.setattr(dgraph.cli.codegen, "hessian_source", out_of_memory)
    monkeypatch.chdir(tmp_path)
    code = main(hessian_cli(*SPRING))
    out, err = capsys.readouterr()
    _check(code, out, err, "dgraph: error: out of memory")
    assert "bad input" not in err and not list(tmp_path.iterdir())


def test_an_edge_and_a_constant_output_is_still_a_graph(tmp_path, capsys):
    trace = tmp_path / "constant.trace"
    trace.write_text("inputs: x\noutputs: y, z\ny = x*x\nz = 2\n")
    assert main(["accumulate", str(trace), "-m", "best", "--json"]) == 0
    assert '"mults": 0' in capsys.readouterr().out


# -- the Hessian's Python entry points (issue 55): one DGraphError line, no warning --------

API_CASES = [  # (id, part of the error); the calls are in _api_call
    ("complex-point", "complex numbers"),
    ("complex-point-jacobian", "point= entry 0 is complex"),
    ("complex-argument-jax", "argument 1 is complex"),
    ("text-point", "not numbers"),
    # pytree53: a ragged list, a tuple of arrays and a dict are pytrees (read where JAX is
    # installed); a function that does not take them is refused where it raises
    ("ragged-point", "total: called with the point's pytrees it raised TypeError"),
    ("tuple-point-jacobian", "total: called with the point's pytrees it raised TypeError"),
    ("dict-point", "total: called with the point's pytrees it raised TypeError"),
    ("pytree-text-leaf", "argument p['a']: a str, not numbers"),
    # survey63: a class registered with jax.tree_util (an equinox Module) is a pytree; a
    # function among its leaves (an unpartitioned eqx.nn.MLP's activation) is refused
    ("pytree-registered-function-leaf", "argument m.act: a PjitFunction, not numbers"),
    ("pytree-complex-leaf", "argument p['a'] is complex: the derivatives are of real"),
    ("pytree-no-leaf", "argument p: a pytree with no arrays (no leaf)"),
    ("pytree-integer-leaf", "argument p['i']: an array of int64 in a differentiated pytree"),
    ("pytree-sizes", "pytree arguments: give point= alone"),
    ("pytree-params-unknown", "params= names 'q', not an argument point= gives a value"),
    ("pytree-count", "jacobian takes the function's own arguments (p, x): 1 given"),
    ("pytree-structure", "jacobian: argument p is {'b': *}, not the point's {'a': *}"),
    ("pytree-shape", "jacobian: p['a'] has shape (3,), not (2,) (one point per call)"),
    ("pytree-complex-call", "jacobian: p['a'] is complex; the generated code is of real"),
    ("scalar-weights-missing", "the hessian takes x and p = (y_bar, z_bar): 1 argument(s) given"),
    ("empty-point", "has no entries"),
    ("no-example", "hessian(total): give example arguments, hessian(total, x, ...)"),
    ("scalar-traced-vector", "0 axes; every argument is a scalar unless its length is given"),
    ("negative-size", "positive integers, not -3"),
    ("huge-size", "more than 100,000,000"),
    ("no-weights", "give weights="),
    ("weights-shape", "weights of shape (2,)"),
    ("weights-text", "weights: not numbers"),
    ("weights-complex", "weights: complex numbers"),
    ("weights-scalar-f", "f returns a scalar"),
    ("graph-weights-count", "3 numbers for the 2 outputs"),
    ("graph-weights-nan", "not all finite"),
    ("graph-weights-text", "weights: not numbers"),
    ("graph-one-output", "the graph has one output"),
    ("mode", "unknown mode 'hessain'"),
    ("hvp-sparse", "hvp returns H·t"),
    ("tril-two-arguments", "tril= is for the Hessian of one array argument"),
    ("accumulate-unknown", "unknown method 'edge_pushing'; use forward-over-reverse, edge-pu"),
    ("compare-unknown", "unknown method 'nope'; use forward-over-reverse, edge-pushing, sym"),
    ("method-array", "unknown method array([1., 1.]); available: forward, reverse"),
    ("cond-in-while-condition", "a cond or switch inside a while_loop's condition is not pri"),
    # jax.scipy.special.expn's rule leaked JAX's TracerArrayConversionError (a traceback)
    ("jax-expn-traced-order", "expn of an order that is not a constant whole number >= 0"),
    ("scipy-expn-fractional-order", "scipy.special.expn of an order that is not a whole number"),
    # the incomplete beta's shapes a and b take no derivative: one line each, as k > n (a
    # JAX Hessian's gradient is JAX's own, which says so; a Jacobian's: dgraph's line,
    # tests/test_betainc.py)
    ("jax-betainc-traced-shape", "Betainc gradient with respect to a and b not supported"),
    ("scipy-stdtr-traced-df", "scipy.special.stdtr with degrees of freedom that depends on"),
    ("scipy-bdtr-k-beyond-n", "scipy.special.bdtr with k outside 0..n is not supported"),
    # the principal branch is read (tests/test_lambertw.py); another branch is refused
    ("scipy-lambertw-other-branch", "scipy.special.lambertw(z, k) of a branch k other than 0"),
    ("sparse-batch", "a sparse Hessian is of one point: call it per point"),
    ("hvp-tangent-shape", "tangent t_x: shape (3,), not (4,) (one point per call)"),
    ("jvp-batch", "a jvp is of one point: call it per point"),
    ("vjp-cotangent-shape", "cotangent w_y: shape (4,), not (3,) (one point per call)"),
    ("hessian-weights-shape", "parameter v: shape (2,), not (3,) (one point per call)"),
    ("hvp-weights-batch", "parameter v: shape (2, 3), not (3,) (one point per call)"),
    # left44b: segment sums at labels from index data need the bins' count; np.add.at at
    # positions from the differentiated inputs (not index data) stays refused
    ("bincount-index-data-no-minlength", "numpy.bincount at labels computed from the param"),
    ("add-at-input-positions", "numpy.add.at at positions computed from the inputs is sup"),
    ("add-at-index-data-out-of-range", "index 7 (an integer cast of the parameters) is out"),
    ("bincount-index-data-negative", "label -1 of numpy.bincount (an integer cast of the p"),
    ("bincount-index-data-past-minlength", "label 5 of numpy.bincount (an integer cast of th"),
    # survey46: the counts of index data (no weights) are a passive value; they too need
    # minlength, and their labels are checked at the point
    ("bincount-counts-no-minlength", "numpy.bincount at labels computed from the param"),
    ("bincount-counts-past-minlength", "label 5 of numpy.bincount (an integer cast of th"),
    ("fill-diagonal-unequal-axes", "numpy.fill_diagonal: All dimensions of input must be of"),
    ("fliplr-of-a-vector", "numpy.fliplr of an array of 1 axes"),
    ("jax-float-index-data", "index with an integer cast, E[T.astype(int)]"),
    ("jax-float-index-data-hessian", "index with an integer cast, E[T.astype(int)]"),
    # left45: integer arrays are index data, not differentiated (as jax.jacfwd): with no
    # other argument nothing is left; the made function takes integers where they were
    ("integer-arguments-only", "integer arguments are index data, not differentiated"),
    ("float-for-integer-argument", "argument T was traced as an integer array (index data)"),
    ("hessian-float-for-integer-argument", "give integers there, not float64 (T.astype(int))"),
    # args46: a boolean array is a mask, not differentiated (JAX's convention): the made
    # function takes booleans there
    ("float-for-mask-argument", "was traced as a boolean array (a mask, not differentiated)"),
    # args46: the element level takes the callable's own arguments (or the flat vector)
    ("own-arguments-count", "vjp takes the function's own arguments (A, b, w): 2 given"),
    # mesh58: np.isfinite's mask in a product (@), as a comparison's (was a TypeError of
    # sympy's relational in the element expansion)
    ("isfinite-matmul", "a product (@) with a comparison"),
    # loops59: an integer parameter that fixes the structure (range(n)) is closed over at
    # the point's value; a call with another, or without it, is refused
    ("loop-count-other-value", "n = 4, but the function was made at n = 3, which fixes"),
    ("loop-count-left-out", "1 arguments given, not 2: it takes n (= 3) as argument 2"),
    ("loop-count-jit", "n is a traced value (jax.jit: mark it static, static_argnums)"),
    ("loop-count-float", "a parameter (n) that fixes the structure (range(n), a loop"),
    ("loop-count-differentiated", "n is given as the integer 3 but differentiated: a count"),
    # tangent67: dgraph.jacobian says so too (it said np.floor)
    ("jacobian-loop-count-differentiated", "n is given as the integer 3 but differentiated: a"),
    # jacint61: dgraph.jacobian and from_function close it over too; a float count is
    # still refused, saying how to give it
    ("jacobian-loop-count-float", "needs its value when read: an integer in point= (--params"),
    ("from-function-loop-count-float", "a parameter (n) that fixes the structure (range(n), a"),
    # mesh59: scipy's Rotation of traced angles, named (was the generic conversion line)
    ("scipy-rotation-traced", "scipy.spatial.transform.Rotation of values that depend on"),
    # ml59: a masked mean that keeps no entry (NumPy's nan), a clip bound given twice
    ("mean-where-keeps-nothing", "numpy.mean: where= keeps no entry of a mean (NumPy's nan)"),
    ("hessian-mean-where-keeps-nothing", "numpy.mean: where= keeps no entry of a mean (NumPy"),
    ("clip-bound-twice", "numpy.clip: a bound given both by position and by min=/max="),
    # survey61: scipy.ndimage resampling at traced positions, named (was the generic line)
    ("ndimage-map-coordinates-traced", "scipy.ndimage.map_coordinates of an array that"),
    # readers62: a warp's floor of a clip reads; its far neighbour past the axis does not;
    # scipy.signal's 2-d convolutions and lfilter of traced taps, beyond what they read
    ("warp-neighbour-past-the-axis", "indexing at positions computed from the inputs is"),
    ("convolve2d-boundary", "scipy.signal.convolve2d: boundary must be 'fill', 'wrap' or"),
    ("correlate2d-valid-mixed-shapes", "for 'valid' mode one array must be at least as large"),
    # readers63: lfilter of a traced denominator, zi= or n-d data is a loop; what stays out
    ("lfilter-zi-shape", "scipy.signal.lfilter: zi of shape (3,); this filter needs (2,)"),
    ("filtfilt-gust-traced", "scipy.signal.filtfilt with method='gust' of coefficients that"),
    ("lfilter-complex-denominator", "scipy.signal.lfilter of complex coefficients is not"),
    ("filtfilt-padlen-too-long", "scipy.signal.filtfilt: x of length 9 along axis 0; padlen"),
    ("sosfilt-sections-shape", "scipy.signal.sosfilt: sos must be a real array of shape"),
    # a JAX function given to the NumPy tracer: "TypeError: Argument 'TracedArray(%7...)' of
    # type ... is not a valid JAX type" before (session 62)
    ("jax-function-traced", "it calls JAX, which the NumPy tracer cannot call"),
    # jaxopt64: a JAX library's function (jaxopt's projection_affine_set: a solver class's
    # custom_linear_solve of a pair) that uses_jax does not see: the NumPy tracer's "it
    # calls JAX, which the NumPy tracer cannot call" before, now JAX's reader's refusal
    ("jax-library-refused", "custom_linear_solve with a matvec other than a product"),
]


def _api_call(name: str):
    """The call of ``make_function`` / ``hessian`` that case ``name`` makes."""
    import dgraph
    from dgraph.frontends import from_function, from_jax, from_trace

    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax_special = pytest.importorskip("jax.scipy.special")
    import scipy.signal as scipy_signal
    import scipy.special as scipy_special

    def total(x):
        return jnp.sum(x[1:] * x[:-1]) + jnp.sum(jnp.sin(x))

    def vector(x):
        return x[1:] * x[:-1]

    def cond_in_while_condition(x):  # one in its body prints (tests/test_cond_in_loop.py)
        lax = pytest.importorskip("jax").lax

        def test(s):
            return lax.cond(s[1] < 2, lambda s: s[1] < 4, lambda s: s[1] < 3, s)

        return lax.while_loop(test, lambda s: (s[0] * 1.5 + x.sum(), s[1] + 1), (x @ x, 0))[0]

    x = np.linspace(0.5, 1.5, 4)
    two = from_trace("inputs: a, b\noutputs: y, z\ny = exp(a)*b\nz = a*b")
    one = from_trace("inputs: a, b\noutputs: y\ny = exp(a)*b")

    class PairSolver:  # a JAX library's solver: no JAX name in the function that calls it
        def run(self, x):
            def matvec(v):
                return (v[0] + v[1][0], v[0][:1])

            def solve(_, b):
                return (b[0] - b[1][0] + b[0][0], b[1])

            return jax.lax.custom_linear_solve(matvec, (x, x[:1]), solve)[0]

    make, hessian = dgraph.make_function, dgraph.hessian
    calls = {
        "jax-library-refused": lambda: make(lambda w: PairSolver().run(w), point=[x]),
        "complex-point": lambda: hessian(total, x + 1j),
        "jax-function-traced": lambda: from_function(total, sizes=[4]),
        "complex-point-jacobian": lambda: make(total, "jacobian", point=[x + 1j]),
        "complex-argument-jax": lambda: from_jax(total, x + 1j, level="array"),
        "text-point": lambda: hessian(total, np.array(["a", "b"])),
        "ragged-point": lambda: make(total, "hessian", point=[[[1.0], [1.0, 2.0]]]),
        # a tuple of arrays: a ValueError out of np.iscomplexobj before
        "tuple-point-jacobian": lambda: make(total, "jacobian", point=[(x, x[:2])]),
        "dict-point": lambda: make(total, "hessian", point=[{"w": x}]),
        # a graph of scalars' Lagrangian Hessian called without p: Python's TypeError before
        "scalar-weights-missing": lambda: make(two, "hessian", weights=[1.0, 2.0])(x[:2]),
        "empty-point": lambda: hessian(total, np.zeros(0)),
        # jax.hessian(f)'s call: "point= has 0 numbers" (no point= was given) before
        "no-example": lambda: hessian(total),
        # the array level's refusal had no hint of sizes= (the element level's had)
        "scalar-traced-vector": lambda: from_function(lambda x: x[0] * x[1], level="array"),
        "negative-size": lambda: hessian(total, -3),
        "huge-size": lambda: hessian(total, 10**12),
        "no-weights": lambda: hessian(vector, x),
        "weights-shape": lambda: hessian(vector, x, weights=np.ones(2)),
        "weights-text": lambda: hessian(vector, x, weights="abc"),
        "weights-complex": lambda: hessian(vector, x, weights=np.ones(3) * 1j),
        "weights-scalar-f": lambda: hessian(total, x, weights=[1.0, 2.0]),
        "graph-weights-count": lambda: make(two, "hessian", weights=[1, 2, 3]),
        "graph-weights-nan": lambda: make(two, "hessian", weights=[1, np.nan]),
        "graph-weights-text": lambda: make(two, "hvp", weights="ab"),
        "graph-one-output": lambda: make(one, "hessian", weights=[5.0]),
        "mode": lambda: make(total, "hessain", point=[x]),
        "hvp-sparse": lambda: make(total, "hvp", point=[x], sparse=True),
        "tril-two-arguments": lambda: hessian(lambda a, b: jnp.sum(a * b), x, x, tril=True),
        "accumulate-unknown": lambda: dgraph.accumulate_hessian(one, "edge_pushing"),
        "compare-unknown": lambda: dgraph.compare_hessian(one, ["symmetric", "nope"]),
        "method-array": lambda: dgraph.accumulate(one, np.ones(2)),  # was a TypeError
        "cond-in-while-condition": lambda: make(cond_in_while_condition, "hessian", point=[x]),
        "jax-expn-traced-order": lambda: hessian(
            lambda x: jnp.sum(jax_special.expn(jnp.round(x[0]).astype(int), x)), x
        ),
        "scipy-expn-fractional-order": lambda: hessian(
            lambda x: np.sum(scipy_special.expn(1.5, x)), x
        ),
        "jax-betainc-traced-shape": lambda: hessian(
            lambda x: jnp.sum(jax_special.betainc(2.0, x + 1.0, 0.3)), x
        ),
        "scipy-stdtr-traced-df": lambda: hessian(lambda x: np.sum(scipy_special.stdtr(x, 0.5)), x),
        "scipy-bdtr-k-beyond-n": lambda: hessian(lambda x: np.sum(scipy_special.bdtr(6, 5, x)), x),
        "scipy-lambertw-other-branch": lambda: hessian(
            lambda x: np.sum(scipy_special.lambertw(x, -1).real), x
        ),
        # a batch of points to an array-level sparse Hessian: was NumPy's reshape ValueError
        "sparse-batch": lambda: hessian(total, x, sparse=True)(np.stack([x, x + 0.1])),
        # the array level's sweeps, one point and one tangent a call: were NumPy's reshape
        # ValueError (a (1, 1, 4) point silently reshaped)
        "hvp-tangent-shape": lambda: make(total, "hvp", point=[x])(x, x[:3]),
        "jvp-batch": lambda: make(from_jax(vector, x, level="array"), "jvp")(x[None, None], x),
        "vjp-cotangent-shape": lambda: make(from_jax(vector, x, level="array"), "vjp")(x, x),
        # a Lagrangian's weights per call: were NumPy's reshape ValueError
        "hessian-weights-shape": lambda: hessian(vector, x, weights=np.ones(3))(x, x[:2]),
        "hvp-weights-batch": lambda: make(vector, "hvp", point=[x], weights=np.ones(3))(
            x, np.ones((2, 3)), x
        ),
        "bincount-index-data-no-minlength": lambda: make(
            lambda x, i: np.sum(np.bincount(i.astype(int), weights=x) ** 2),
            "jacobian",
            params=["i"],
            point=[x, np.array([0.0, 1.0, 1.0, 0.0])],
        ),
        # NumPy raises for a negative label and lengthens its result for one past minlength
        "bincount-index-data-negative": lambda: make(
            _bincount_index_data, "jacobian", params=["i"], point=[x, np.array([0.0, -1, 1, 2])]
        ),
        "bincount-index-data-past-minlength": lambda: make(
            _bincount_index_data, "jacobian", params=["i"], point=[x, np.array([0.0, 5, 1, 2])]
        ),
        "bincount-counts-no-minlength": lambda: make(
            lambda x, i: x * np.bincount(i.astype(int)),
            "jacobian",
            params=["i"],
            point=[x, np.array([0.0, 1, 1, 3])],
        ),
        "bincount-counts-past-minlength": lambda: make(
            lambda x, i: x * np.bincount(i.astype(int), minlength=4),
            "jacobian",
            params=["i"],
            point=[x, np.array([0.0, 5, 1, 2])],
        ),
        "fill-diagonal-unequal-axes": lambda: make(_fill_diagonal_3d, "jacobian", point=[x]),
        "fliplr-of-a-vector": lambda: make(lambda x: np.fliplr(x), "jacobian", point=[x]),
        "add-at-input-positions": lambda: make(_add_at_input_positions, "jacobian", point=[x]),
        "jax-float-index-data": lambda: make(
            lambda x, T: jnp.sum(x[T] ** 2), "jacobian", params=["T"], point=[x, np.ones((2, 3))]
        ),
        "jax-float-index-data-hessian": lambda: hessian(
            lambda x, T: jnp.sum(x[T] ** 2), x, np.ones((2, 3)), params=["T"]
        ),
        "integer-arguments-only": lambda: make(
            lambda T: jnp.sum(T**2), "jacobian", point=[np.arange(4)]
        ),
        "float-for-integer-argument": lambda: make(
            lambda x, T: jnp.sum(x[T] ** 2), "jacobian", point=[x, np.ones((2, 3), dtype=int)]
        )(x, np.ones((2, 3))),
        "hessian-float-for-integer-argument": lambda: hessian(
            lambda x, T: np.sum(x[T] ** 2), x, np.ones((2, 3), dtype=int)
        )(x, np.ones((2, 3))),
        "float-for-mask-argument": lambda: make(
            lambda x, m: jnp.sum(jnp.where(m, x**2, x)), "jacobian", point=[x, x > 1]
        )(x, np.ones(4)),
        "pytree-text-leaf": lambda: make(_pytree_loss, point=[{"a": "ab"}, x[:2]]),
        "pytree-registered-function-leaf": lambda: make(
            lambda m: jnp.sum(m.act(m.w)), point=[_registered_layer(jax)(x, jnp.tanh)]
        ),
        "pytree-complex-leaf": lambda: make(_pytree_loss, point=[{"a": x[:2] + 1j}, x[:2]]),
        "pytree-no-leaf": lambda: make(_pytree_loss, point=[{"a": None}, x[:2]]),
        "pytree-integer-leaf": lambda: make(
            _pytree_loss, point=[{"a": x[:2], "i": np.arange(2)}, x[:2]]
        ),
        "pytree-sizes": lambda: make(_pytree_loss, point=[{"a": x[:2]}, x[:2]], sizes=[2, 2]),
        "pytree-params-unknown": lambda: make(
            _pytree_loss, point=[{"a": x[:2]}, x[:2]], params=["q"]
        ),
        "pytree-count": lambda: _pytree_made()({"a": x[:2]}),
        "pytree-structure": lambda: _pytree_made()({"b": x[:2]}, x[:2]),
        "pytree-shape": lambda: _pytree_made()({"a": x[:3]}, x[:2]),
        "pytree-complex-call": lambda: _pytree_made()({"a": x[:2] + 1j}, x[:2]),
        "own-arguments-count": lambda: make(
            lambda A, b: jnp.tanh(A @ b), "vjp", point=[np.ones((3, 2)), x[:2]]
        )(np.ones((3, 2)), x[:2]),
        "add-at-index-data-out-of-range": lambda: make(
            _add_at_index_data, "jacobian", params=["i"], point=[x, np.array([0.0, 7, 1, 2])]
        ),
        "loop-count-other-value": lambda: _steps_made()(x[:3], 4),
        "loop-count-left-out": lambda: _steps_made()(x[:3]),
        "loop-count-jit": lambda: jax.jit(_steps_made())(x[:3], 3),
        "loop-count-float": lambda: make(_steps, point=[x[:3], 3.0], params=["n"]),
        "loop-count-differentiated": lambda: make(_steps, point=[x[:3], 3]),
        "jacobian-loop-count-differentiated": lambda: dgraph.jacobian(_steps, point=[x[:3], 3]),
        "jacobian-loop-count-float": lambda: dgraph.jacobian(
            _steps, point=[x[:3], 2.5], params=["n"]
        ),
        "from-function-loop-count-float": lambda: from_function(
            _steps, point=[x[:3], 2.5], params=["n"]
        ),
        "isfinite-matmul": lambda: make(
            lambda x: np.isfinite(np.log(x - 0.6)).astype(float) @ x**2, point=[x]
        ),
        "scipy-rotation-traced": lambda: make(_rotated, point=[x[:3]]),
        "mean-where-keeps-nothing": lambda: make(
            lambda x: np.mean(x**2, where=np.zeros(x.shape, bool)), "jacobian", point=[x]
        ),
        "hessian-mean-where-keeps-nothing": lambda: make(
            lambda x: np.mean(x**2, where=np.zeros(x.shape, bool)), "hessian", point=[x]
        ),
        "clip-bound-twice": lambda: make(lambda x: np.clip(x, 0.0, None, min=0.1), point=[x]),
        "ndimage-map-coordinates-traced": lambda: make(_warped, point=[x[:2]]),
        "warp-neighbour-past-the-axis": lambda: make(_past_the_axis, point=[x]),
        "convolve2d-boundary": lambda: make(
            lambda u: scipy_signal.convolve2d(u.reshape(2, 2), np.eye(2), boundary="reflect"),
            point=[x],
        ),
        "correlate2d-valid-mixed-shapes": lambda: make(
            lambda u: scipy_signal.correlate2d(u.reshape(2, 2), np.ones((1, 3)), "valid"),
            point=[x],
        ),
        "lfilter-zi-shape": lambda: make(
            lambda u: scipy_signal.lfilter(u[:2], [1.0, 0.5, 0.2], np.ones(5), zi=u[1:])[0],
            point=[x],
        ),
        "lfilter-complex-denominator": lambda: make(
            lambda u: scipy_signal.lfilter(u[:2], [1.0, 0.5j], np.ones(5)).real, point=[x]
        ),
        "filtfilt-padlen-too-long": lambda: make(
            lambda u: scipy_signal.filtfilt(u[:2], [1.0, 0.5], np.ones(9), padlen=9), point=[x]
        ),
        "sosfilt-sections-shape": lambda: make(
            lambda u: scipy_signal.sosfilt(u.reshape(1, 4), np.ones(5)), point=[x]
        ),
        "filtfilt-gust-traced": lambda: make(
            lambda u: scipy_signal.filtfilt(u[:2], [1.0, 0.5], np.ones(9), method="gust"),
            point=[x],
        ),
    }
    return calls[name]


def _past_the_axis(u):
    """``np.floor(np.clip(u, 0, 3))`` is within a 4-vector's axis, one more is not."""
    i = np.floor(np.clip(u, 0.0, 3.0)).astype(int)
    return np.outer(u, u)[i + 1, i]


def _warped(d):
    import scipy.ndimage

    image = np.arange(16.0).reshape(4, 4)
    yy, xx = np.mgrid[0:4, 0:4]
    return scipy.ndimage.map_coordinates(image, [yy + d[0], xx + d[1]], order=1).ravel()


def _rotated(w):
    from scipy.spatial.transform import Rotation

    return Rotation.from_rotvec(w).apply(np.eye(3)).ravel()


def _registered_layer(jax):
    """A dataclass of two data fields registered with ``jax.tree_util`` (what an equinox
    ``Module`` is)."""
    from dataclasses import dataclass

    @jax.tree_util.register_dataclass
    @dataclass
    class Layer:
        w: object
        act: object

    return Layer


def _pytree_loss(p, x):
    return np.sum(np.sin(p["a"]) * x)


@functools.cache
def _pytree_made():
    """``_pytree_loss``'s made Jacobian, of a dict ``p`` and an array ``x`` (made once for
    the cases that call it)."""
    import dgraph

    return dgraph.make_function(
        _pytree_loss, point=[{"a": np.ones(2)}, np.ones(2)], method="forward"
    )


def _steps(y, n):
    for _ in range(n):
        y = y + 0.1 * np.sin(y) * y[::-1]
    return y


@functools.cache
def _steps_made():
    """``_steps``' made Jacobian, its trip count ``n = 3`` closed over (made once for the
    cases that call it)."""
    import dgraph

    return dgraph.make_function(_steps, point=[np.ones(3), 3], params=["n"])


def _bincount_index_data(x, i):
    return np.bincount(i.astype(int), weights=x**2, minlength=4)


def _fill_diagonal_3d(x):
    r = np.zeros((2, 3, 4)) + x
    np.fill_diagonal(r, 1.0)  # NumPy: every axis of one length
    return r


def _add_at_input_positions(x):
    r = np.zeros(4)
    np.add.at(r, np.clip(np.floor(x), 0, 3).astype(int), x**2)
    return r


def _add_at_index_data(x, i):
    r = np.zeros(4)
    np.add.at(r, i.astype(int), x**2)
    return r


@pytest.mark.parametrize(("name", "needle"), API_CASES, ids=[c[0] for c in API_CASES])
def test_hessian_api_hostile_input_is_one_clear_error(name, needle):
    """Each refused with one DGraphError line before any code is made, and no warning on
    the way (a complex point gave only a ComplexWarning, its imaginary part dropped; a
    graph's weights of the wrong count, or for one output, were ignored)."""
    from dgraph.errors import DGraphError

    call = _api_call(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DGraphError) as raised:
            call()
    message = str(raised.value)
    assert needle in message and "\n" not in message and len(message) < 300, message


@pytest.mark.parametrize("lang", ["python", "jax", "c"])
def test_a_generated_hessian_refuses_a_complex_argument(lang):
    """Called at a complex point, JAX's sparse Hessian of this f gave 1042 where the
    Hessian at the real part is 1442 (two warnings, no error), NumPy's and C's the real
    part's with a ComplexWarning: the functions are of real arguments, as made."""
    import dgraph
    from dgraph.errors import DGraphError

    jnp = pytest.importorskip("jax.numpy")

    def rosenbrock(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    x = np.linspace(-1.0, 1.0, 4)
    H = dgraph.hessian(rosenbrock, x, sparse=True, lang=lang)
    h = H(x)
    h = h.toarray() if hasattr(h, "toarray") else np.asarray(h.todense())
    assert h[0, 0] == pytest.approx(1200 * x[0] ** 2 - 400 * x[1] + 2)
    for z in (x + 1j, x.astype(complex)):  # a complex type, even with no imaginary part
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(DGraphError, match="complex numbers"):
                H(z)


# -- --help and the error list the same choices ------------------------------------------


def _option(command: str, flag: str):
    sub = next(a for a in _parser()._actions if a.dest == "command").choices[command]
    return sub, next(a for a in sub._actions if flag in a.option_strings)


@pytest.mark.parametrize(
    ("command", "flag", "extra"),
    [
        ("accumulate", "--method", [SIN]),
        ("accumulate", "--strategy", [SIN]),
        ("accumulate", "--variant", [SIN]),
        ("accumulate", "--metagraph", [SIN]),
        ("render", "--style", [SIN, "-o", "g.svg"]),
        ("render", "--view", [SIN, "-o", "g.svg"]),
        ("render", "--variant", [SIN, "-o", "g.svg"]),
        ("render", "--method", [SIN, "-o", "g.svg"]),
        ("render", "--strategy", [SIN, "-o", "g.svg"]),
        ("bench", "--suite", []),
        ("codegen", "--lang", [SIN, "-o", "g.py"]),
    ],
)
def test_help_and_error_list_the_same_choices(capsys, command, flag, extra):
    parser, action = _option(command, flag)
    choices = list(action.choices)
    assert len(choices) >= 2
    assert main([command, *extra, flag, "nonsense"]) == 2
    err = capsys.readouterr().err
    assert re.findall(r"[\w-]+", err.partition("choose from")[2]) == choices, err
    help_text = " ".join(parser.format_help().split())
    assert all(c in help_text for c in choices)


@pytest.mark.parametrize(
    ("command", "flag", "extra"),
    [
        ("compare", "--methods", [SIN]),
        ("faces", "--method", [SIN]),
        ("render", "--highlight", [SIN, "-o", "g.svg"]),
    ],
)
def test_comma_lists_name_the_same_values_as_help(capsys, command, flag, extra):
    _, action = _option(command, flag)
    assert main([command, *extra, flag, "nonsense"]) == 2
    err = capsys.readouterr().err
    listed = err.partition("; use ")[2].strip().split(", ")
    assert len(listed) >= 3 and all(value in action.help for value in listed), err


# -- a handful in a real process ---------------------------------------------------------


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}


# each case its own process, forked from one that imported dgraph once (1-2 s of imports
# a process): ``python -m dgraph``'s module run in the child, which exits as that
# process would (its atexit handlers, its exit status); its stdout and stderr are files
_FORKED = """
import json, os, runpy, signal, sys
from dgraph.cli.main import _parser
_parser()  # every command's module imported
cases, results, seconds = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i, argv in enumerate(cases):
    pid = os.fork()
    if pid == 0:
        signal.alarm(seconds)  # a hang ends the child (SIGALRM's default action)
        for fd, name in ((1, "out"), (2, "err")):
            os.dup2(os.open(f"{results}/{i}.{name}", os.O_WRONLY | os.O_CREAT), fd)
        sys.argv = ["dgraph", *argv]
        runpy.run_module("dgraph", run_name="__main__", alter_sys=True)
        raise SystemExit(99)  # the module returned without exiting
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""

REAL_PROCESS_CASES = [
    (["accumulate", "fifo.trace"], "not a regular file"),  # an open that would block
    (["accumulate", DISCREPANCY, "-m", "vertex-optimal", "--budget", "nan"], "finite"),
    (["accumulate", H("inject.trace")], "inject.trace:3"),
    (["accumulate", "deep.json"], "deep.json"),
    # codegen's refusal before it writes -o (was tests/test_codegen_cli.py's own process)
    (["codegen", "unfinished.trace", "-o", "j.py"], "unfinished.trace:3: cannot parse"),
]


def test_real_processes(tmp_path, tmp_path_factory):
    """A FIFO, a budget that never ends, an injection, a 100,000-deep JSON, a statement
    cut short given to ``codegen -o``: each in a process of its own (``python -m dgraph``
    from the start: tests/test_cli.py)."""
    _make(tmp_path)
    before = _files(tmp_path)
    results = tmp_path_factory.mktemp("results")
    argvs = [argv for argv, _ in REAL_PROCESS_CASES]
    proc = subprocess.run(
        [sys.executable, "-c", _FORKED, json.dumps(argvs), str(results), str(SECONDS)],
        capture_output=True,
        text=True,
        timeout=SECONDS,
        cwd=tmp_path,
        env=_environment(),
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    codes = [int(line) for line in proc.stdout.split()]
    assert len(codes) == len(REAL_PROCESS_CASES)
    for i, ((_, needle), code) in enumerate(zip(REAL_PROCESS_CASES, codes, strict=True)):
        out, err = ((results / f"{i}.{name}").read_text() for name in ("out", "err"))
        _check(code, out, err, needle)
    assert _files(tmp_path) == before and not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    "function,route",
    [
        ("pendulum", "numpy"),
        ("spring", "jax"),
        ("scaled", "numpy"),
        ("cdf", "jax"),
        ("likelihood", "numpy"),
    ],
)
def test_the_mixed_module_s_functions_load_each_by_its_own_route(function, route, capsys):
    """The corpus's one module that must load: ``dgraph accumulate mixed_model.py:pendulum
    --inputs x:4`` exited 2 (JAX tried, as for every function of a module that imports
    it); ``structure`` says which route each function took."""
    pytest.importorskip("jax", reason="JAX is not installed")
    spec = H("mixed_model.py") + ":" + function
    assert main(["accumulate", spec, "--inputs", "x:4" if function != "spring" else "q:3"]) == 0
    capsys.readouterr()
    assert main(["structure", spec, "--inputs", "x:4" if function != "spring" else "q:3"]) == 0
    out, err = capsys.readouterr()
    assert f"traced with: {route}" in out.splitlines()
    fallback = "dgraph: note: scaled: JAX could not trace it (TracerArrayConversionError)"
    assert err.splitlines() == ([f"{fallback}; traced as NumPy"] if function == "scaled" else [])


# -- a Hessian too large to form (issue 55): refused before any pattern is built ---------


def _log_sum_exp(x):
    return np.log(np.sum(np.exp(x)))


def _small_limits(monkeypatch, sparse: int = 10**8, dense: int = 10**8) -> None:
    """The limits a real 10⁵-unknown ``logsumexp`` passes (10¹⁰ nonzeros), made small."""
    from dgraph.codegen.tensor import function

    monkeypatch.setattr(function, "SPARSE_LIMIT", sparse)
    monkeypatch.setattr(function, "DENSE_LIMIT", dense)


@pytest.mark.parametrize(
    "call",
    ["python", "jax", "c", "make_function", "value_gradient_hessian"],
)
def test_a_sparse_hessian_with_a_dense_pattern_is_refused_in_one_line(monkeypatch, call):
    """``logsumexp``'s Hessian is dense: ``hessian(f, x, sparse=True)`` at 10⁵ unknowns was a
    MemoryError traceback (75 GiB of row indices asked for by the code generator's walk),
    in every language. Its 40² = 1,600 nonzeros are counted on the priced blocks and
    refused above a limit of 1,599, in one line naming the count, the memory and hvp."""
    import dgraph
    from dgraph.errors import DGraphError

    pytest.importorskip("jax")
    _small_limits(monkeypatch, sparse=1599)
    x = np.linspace(-0.5, 0.5, 40)
    calls = {
        "make_function": lambda: dgraph.make_function(_log_sum_exp, "hessian", sparse=True,
                                                      point=[x]),
        "value_gradient_hessian": lambda: dgraph.make_function(
            _log_sum_exp, "value_gradient_hessian", sparse=True, point=[x]
        ),
    }  # fmt: skip
    with pytest.raises(DGraphError) as raised:
        calls.get(call, lambda: dgraph.hessian(_log_sum_exp, x, sparse=True, lang=call))()
    message = str(raised.value)
    # the Hessian's nonzeros alone: value_gradient_hessian's gradient row (40 more) is
    # not counted against the limit, nor in the message (it said 1,640)
    assert "a sparse Hessian of 1,600 nonzeros" in message, message
    assert "more than 1,599" in message and 'use mode "hvp"' in message, message
    assert "\n" not in message and len(message) < 300


def test_a_sparse_hessian_at_its_limit_is_built_and_right(monkeypatch):
    """The count is the pattern's own (not a bound above it): at a limit of exactly
    1,600 the same Hessian is built, its 1,600 values JAX's; and ``hvp``, which never
    forms H, is made under any limit, its H·t JAX's."""
    import dgraph

    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    _small_limits(monkeypatch, sparse=1600, dense=1)
    x = np.linspace(-0.5, 0.5, 40)
    from tests import jax_reference as jref

    expected = np.asarray(jref.hessian(jax.scipy.special.logsumexp)(x))  # jitted: one compile
    H = dgraph.hessian(_log_sum_exp, x, sparse=True)(x)
    assert H.nnz == 1600
    np.testing.assert_allclose(H.toarray(), expected, rtol=1e-12, atol=1e-15)
    t = np.cos(np.arange(40.0))
    hvp = dgraph.make_function(_log_sum_exp, "hvp", point=[x])
    np.testing.assert_allclose(hvp(x, t), expected @ t, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("lang", ["python", "c"])
def test_a_dense_hessian_past_its_limit_is_refused_in_every_language(monkeypatch, lang):
    """A dense Hessian of n² entries over the limit is refused before its Jacobian is
    accumulated; C's (its sparse values spread into n² doubles a call) was not refused
    at all, its 10⁵-unknown H a MemoryError."""
    import dgraph
    from dgraph.errors import DGraphError

    pytest.importorskip("jax")
    _small_limits(monkeypatch, dense=1599)
    x = np.linspace(-0.5, 0.5, 40)
    with pytest.raises(DGraphError) as raised:
        dgraph.hessian(lambda x: np.sum(np.sin(x)), x, lang=lang)  # sparse, but asked dense
    message = str(raised.value)
    assert message.startswith("a dense Hessian of 1,600 entries (0.0 GiB a call)"), message
    assert 'give sparse=True (--sparse), or use mode "hvp"' in message, message


def test_the_command_line_refuses_a_dense_pattern_s_sparse_hessian(monkeypatch, tmp_path, capsys):
    """``dgraph codegen numpy_model.py:log_sum_exp --mode hessian --sparse``: exit 2, one
    line, no file (was a MemoryError at 10⁵ unknowns)."""
    _small_limits(monkeypatch, sparse=1599)
    monkeypatch.chdir(tmp_path)
    code = main(
        ["codegen", H("numpy_model.py") + ":log_sum_exp", "--inputs", "x:40", "--sparse",
         *HESSIAN_OUT]
    )  # fmt: skip
    out, err = capsys.readouterr()
    _check(code, out, err, "a sparse Hessian of 1,600 nonzeros")
    assert "more than 1,599" in err and not list(tmp_path.iterdir())
