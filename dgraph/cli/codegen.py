"""``dgraph codegen GRAPH [--lang python|c|jax|cuda] [--method M] [--mode M] [--sparse]
-o FILE [-o FILE ...]``.

Several ``-o`` write several files (``-o jac.py -o jac.c``: each language from its
suffix) from one choice of method and one set of programs. The files are written only
after every generated text ran and agreed with the graph (:mod:`dgraph.codegen.check`),
each atomically: a temporary file beside it, then a rename, so a failure never leaves a
partial or unchecked file behind.

A tensor graph (``--inputs u:100x100`` on a Python function, or a dgraph/1 tensor graph
file) gets code on whole arrays (:mod:`dgraph.codegen.tensor`): ``--mode jacobian``
(the default), ``jvp`` or ``vjp``, in python or jax; in C its ``jvp`` and ``vjp`` (the
tangent and adjoint sweeps, ``--tape`` for a scan's checkpoints) and, with ``--sparse``,
the jacobian's values for its fixed pattern (``-o jac.c`` writes ``jac.c`` and its index
arrays ``jac.bin`` beside it, :mod:`dgraph.codegen.tensor.c_values`; ``-o jac.cu`` the
same statements as CUDA kernels, checked as C); other modes are refused with one line.

``--mode hessian`` (a function written with JAX or NumPy, read at the array level unless
``--level element``, or a graph of scalars) writes the Jacobian of its gradient graph
(:mod:`dgraph.codegen.hessian`), checked against JAX's forward-over-reverse, with
``hessian`` at its end, symmetric by construction (:func:`_python_hessian_tail`; one
array's sparse H mirrored in the module, with ``hessian_tril``); a function returning
an array needs ``--weights`` (the Lagrangian's, one number for all or one per output
entry), and its ``hessian(x, v)`` takes them last. In C: an array function's sparse
values (``--sparse``: the C file, its index file and ``hessian_mirror``), a graph of
scalars' ``hessian`` (and ``hessian_values``), each mirrored
(:func:`~dgraph.codegen.hessian.c_scalar_hessian`). In
CUDA (``-o hess.cu``, :mod:`dgraph.codegen.hessian_native`): an array function's values
as kernels (``--sparse``: with its index file, ``jacobian_values_launch`` then
``hessian_mirror_launch``), checked through their host build; a graph of scalars'
``jacobian`` kernels, which write the symmetric H.
"""

from __future__ import annotations

import argparse
import json
import math
import warnings
from dataclasses import replace
from pathlib import Path

from ..codegen.generate import LANGS, MODES, generate_all
from ..codegen.hessian import C_MIRROR_CSR, c_scalar_hessian, hessian_limits, hessian_source
from ..codegen.hessian_native import cuda_scalar_hessian, cuda_tensor_values
from ..codegen.tensor.c_dense import dense_hessian
from ..codegen.tensor.function import TENSOR_MODES, make_tensor_function
from ..codegen.tensor.regions import refuse_unprinted
from ..codegen.tensor.sweeps import SWEEP_MODES
from ..core.graph import DGraph
from ..errors import InputError
from .args import (
    BUDGET_HELP,
    budget,
    graph_args,
    load_graph,
    output_path,
    output_weights,
    user_code,
    write_atomic,
)

__all__ = ["SUFFIXES", "add_arguments", "language", "run"]

SUFFIXES = {".py": "python", ".c": "c", ".h": "c", ".cu": "cuda"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    graph_args(p)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        action="append",
        help="file to write (.py, .c or .cu); repeat for several files from one run",
    )
    p.add_argument(
        "--lang",
        choices=LANGS,
        help="python (NumPy), c (C99), jax (jax.numpy: jit, vmap, grad) or cuda (CUDA C++"
        " kernels, f32 and f64, both layouts); default: from the suffix of -o (.py python,"
        " .c or .h c, .cu cuda)",
    )
    p.add_argument(
        "--method",
        "-m",
        help="accumulation method, or symbolic (Bauer's formula with sympy's algebra); default:"
        " the deterministic candidate whose program is cheapest",
    )
    p.add_argument(
        "--mode",
        choices=(*MODES, "hessian", "hvp"),
        help="function to generate (default: jacobian; for jax and cuda: jacobian, jvp and vjp;"
        " for a tensor graph: jacobian; in c and cuda a tensor graph's jvp and vjp, or its"
        " jacobian and value_and_jacobian with --sparse); hessian: the Hessian of a function"
        " or a graph (python, jax; c and cuda: an array function's with --sparse); hvp: H·v as"
        " jvp(x, v) of the gradient graph, H never formed",
    )
    p.add_argument(
        "--weights",
        metavar="NUMBERS",
        help="--mode hessian of a function returning an array: the Lagrangian's weights at the"
        " point, one number for every output entry or one per entry (comma-separated)",
    )
    p.add_argument("--sparse", action="store_true", help="also emit the nonzero entries only")
    p.add_argument(
        "--tape",
        type=int,
        help="a tensor graph's vjp: at most this many states of each scan kept for its"
        " reverse sweep, the rest recomputed (binomial checkpointing)",
    )
    p.add_argument(
        "--budget",
        type=budget,
        help="with --method, for an exact search beyond its limit; without, every"
        " candidate's program is built (by default only those whose cost is known cheaply)"
        " and the search 'best' joins them with half of it as its work: " + BUDGET_HELP,
    )


def language(output: str, lang: str | None) -> str:
    """``lang`` when given (any suffix then), else the language of the suffix of ``output``:
    ``.py`` python, ``.c`` and ``.h`` c, ``.cu`` cuda; any other suffix is an error."""
    if lang is not None:
        return lang
    suffix = Path(output).suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(
            f"{output}: cannot tell the language from the suffix {suffix or '(none)'!r}: use"
            " .py (python), .c or .h (c), .cu (cuda), or give --lang python|c|jax|cuda"
        )
    return SUFFIXES[suffix]


def run(args: argparse.Namespace) -> int:
    """``dgraph codegen``; code whose values could not be checked says so in the report
    (and ``verified`` in its JSON), so make_function's warning of it is not printed too."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "dgraph: generated code NOT verified", UserWarning)
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    outputs = _outputs(args.output)  # refused before any work: a directory, no parent
    langs = [language(o, args.lang) for o in args.output]
    if args.mode == "hessian":
        return _run_hessian(args, outputs, langs)
    if args.mode == "hvp":
        return _run_hvp(args, outputs, langs)
    if args.weights is not None:
        raise InputError("--weights is for --mode hessian and hvp")
    graph = load_graph(args, lambda g: _refuse(g, args, langs))  # one line, alone
    return _run_graph(args, outputs, langs, graph)


def _run_hvp(args: argparse.Namespace, outputs: list[Path], langs: list[str]) -> int:
    """``codegen --mode hvp``: the Hessian-vector product as the gradient graph's tangent
    sweep, ``jvp(x, v)`` (forward over reverse: H is never formed), the function read as
    ``--mode hessian`` reads it."""
    graph = _hessian_graph(args, langs)
    weights = None if args.weights is None else output_weights(args.weights, graph)
    with user_code():
        gradient = hessian_source(graph, weights=weights).graph
    _refuse(gradient, _with_mode(args, "jvp"), langs)
    return _run_graph(_with_mode(args, "jvp"), outputs, langs, gradient, _hvp_tail)


def _hvp_tail(code) -> str:
    """What ends a ``--mode hvp`` file: in Python and JAX ``hvp = jvp``; C and CUDA name
    H·v ``jvp`` (the gradient graph's tangent sweep)."""
    if code.lang in ("c", "cuda"):
        return ""
    return "\n\nhvp = jvp  # H·v: the gradient graph's tangent sweep, H never formed\n"


def _with_mode(args: argparse.Namespace, mode: str) -> argparse.Namespace:
    """``args`` with another ``--mode``."""
    return argparse.Namespace(**{**vars(args), "mode": mode})


def _run_graph(
    args: argparse.Namespace, outputs: list[Path], langs: list[str], graph: DGraph, tail=None
) -> int:
    """Generate, check and write ``args.mode`` of ``graph`` (a tensor graph's by
    :func:`_run_tensor`), each file ending with ``tail(code)`` where given."""
    tail = tail or (lambda code: "")
    if graph.is_tensor:
        return _run_tensor(args, outputs, langs, graph, tail)
    if args.tape is not None:
        raise InputError("--tape is for a tensor graph's vjp (its loops' states)")
    modes = {
        lang: (args.mode,)
        if args.mode
        else ("jacobian", "jvp", "vjp")
        if lang in ("jax", "cuda")
        else ("jacobian",)
        for lang in langs
    }
    with user_code():  # the check may run a JAX function again (its jvp)
        generated = generate_all(graph, langs, args.method, modes, args.sparse, args.budget)
    for output, code in zip(outputs, generated, strict=True):
        write_atomic(output, code.text + tail(code))  # only once every check passed
    for name, code in zip(args.output, generated, strict=True):
        summary = code.summary(name)
        if args.json:
            print(json.dumps(summary))
            continue
        print(
            f"wrote {name} ({code.lang}): {', '.join(code.programs)} from method "
            f"{summary['method']}"
        )
        for function, program in code.programs.items():
            print(f"  {function}: {program.ops}")
        if code.check is not None:
            print(code.check.summary())
    return 0


def _refuse(graph: DGraph, args: argparse.Namespace, langs: list[str]) -> None:
    """What ``codegen`` refuses of the graph it read, before the builder's notes are
    said (a refusal's line comes alone)."""
    refuse_unprinted(graph, langs)
    if graph.is_tensor:
        _refuse_tensor_options(args, langs)


def _refuse_tensor_options(args: argparse.Namespace, langs: list[str]) -> None:
    """The options a tensor graph's code does not take."""
    mode = args.mode or "jacobian"
    if mode not in TENSOR_MODES:
        raise InputError(
            f"--mode {mode}: a tensor graph's code is {', '.join(TENSOR_MODES)}, not {mode}"
        )
    for name, lang in zip(args.output, langs, strict=True):
        dense_c = lang == "c" and mode == "jacobian"  # J spread in C (tensor/c_dense.py)
        if lang in ("c", "cuda") and mode not in SWEEP_MODES and not args.sparse and not dense_c:
            raise InputError(
                f"{name}: a tensor graph's {lang.upper()} code is the values of the sparse"
                f" {mode}; give --sparse (or --mode jvp or vjp)"
            )
    if args.sparse and mode not in ("jacobian", "value_and_jacobian"):
        raise InputError(f"--sparse is for the jacobian; {mode} returns arrays")
    if args.tape is not None and (mode != "vjp" or args.tape < 1):
        raise InputError(f"--tape {args.tape}: the states a vjp keeps, a positive integer")


def _run_tensor(
    args: argparse.Namespace, outputs: list[Path], langs: list[str], graph: DGraph, tail
) -> int:
    """``codegen`` of a tensor graph: one checked module per ``-o``, written only once
    every one was generated and checked (its options refused before, :func:`_refuse`)."""
    mode = args.mode or "jacobian"
    companions = [
        _index_path(o) if lang in ("c", "cuda") else None
        for o, lang in zip(outputs, langs, strict=True)
    ]
    taken = {o.resolve() for o in outputs}
    for output, companion in zip(outputs, companions, strict=True):
        if companion is not None and companion.resolve() in taken:
            raise InputError(f"{companion}: the index file of {output} is also given as -o")
    made = []
    for lang in langs:  # CUDA: the C values' statements as kernels, checked as C here
        with user_code():  # the check may run a JAX function again (its jvp)
            code = make_tensor_function(
                graph,
                mode,
                "c" if lang == "cuda" else lang,
                args.method,
                args.budget,
                args.sparse,
                tape=args.tape,
            )[0]
        made.append(replace(code, text=code.values.cuda, lang=lang) if lang == "cuda" else code)
    for output, code, companion in zip(outputs, made, companions, strict=True):
        if companion is not None:
            write_atomic(companion, code.values.index_bytes())  # once every check passed
        write_atomic(output, code.text + tail(code))
    for name, code, companion in zip(args.output, made, companions, strict=True):
        if args.json:
            summary = code.summary(name)
            if companion is not None:
                summary["index_file"] = str(companion)
            print(json.dumps(summary))
            continue
        beside = "" if companion is None else f" and {companion} (its index arrays)"
        print(
            f"wrote {name}{beside} ({code.lang}): {mode} of a tensor graph, method"
            f" {code.method}, {code.mults} mults of block products"
        )
        if code.ops is not None:
            print(f"  {mode}: {code.ops} (the array program, in scalar operations)")
        print(code.check.detail if code.check.ran else f"NOT verified: {code.check.detail}")
    return 0


def _run_hessian(args: argparse.Namespace, outputs: list[Path], langs: list[str]) -> int:
    """``codegen --mode hessian``: the checked Jacobian of the gradient graph, one module
    per ``-o``, ``hessian`` at its end, written once all were checked."""
    graph = _hessian_graph(args, langs)
    weights = None if args.weights is None else output_weights(args.weights, graph)
    with user_code():  # a JAX function is read again: jax.grad(f), its jvp in the check
        gradient = hessian_source(graph, weights=weights).graph
        made = _hessian_programs(gradient, langs, args)
    tails = [_hessian_tail(code, gradient, args.sparse) for code in made]
    companions = [
        _index_path(o) if code.lang in ("c", "cuda") and gradient.is_tensor else None
        for o, code in zip(outputs, made, strict=True)
    ]
    for output, code, tail, companion in zip(outputs, made, tails, companions, strict=True):
        if companion is not None:
            write_atomic(companion, code.values.index_bytes())  # once every check passed
        write_atomic(output, code.text.rstrip("\n") + tail)
    for name, code, companion in zip(args.output, made, companions, strict=True):
        if args.json:
            summary = {**code.summary(name), "mode": "hessian"}
            if companion is not None:
                summary["index_file"] = str(companion)
            print(json.dumps(summary))
            continue
        beside = "" if companion is None else f" and {companion} (its index arrays)"
        print(f"wrote {name}{beside} ({code.lang}): hessian, the Jacobian of"
              f" {gradient.name or 'the'} gradient graph ({len(gradient)} vertices),"
              f" method {code.method}")  # fmt: skip
        if not gradient.is_tensor:  # the scalar graph's check, reported as codegen's
            print(code.check.summary())
            continue
        print(code.check.detail if code.check.ran else f"NOT verified: {code.check.detail}")
    return 0


def _hessian_programs(gradient: DGraph, langs: list[str], args: argparse.Namespace) -> list:
    """``--mode hessian``'s checked programs, one per language: the Jacobian of the
    gradient graph (an array function's, :func:`_tensor_hessian`; a graph of scalars' by
    :func:`generate_all`, CUDA's by :func:`cuda_scalar_hessian`)."""
    if gradient.is_tensor:
        if "cuda" in langs and not args.sparse:
            raise InputError(
                "--mode hessian --lang cuda of a function read at the array level"
                " writes the sparse Hessian's values: give --sparse"
            )
        with hessian_limits():
            made = [_tensor_hessian(gradient, lang, args) for lang in langs]
    else:
        plain = [lang for lang in langs if lang != "cuda"]
        modes = {lang: ("jacobian",) for lang in plain}
        found = iter(generate_all(gradient, plain, args.method, modes, args.sparse, args.budget)
                     if plain else [])  # fmt: skip
        made = [
            cuda_scalar_hessian(gradient, "hessian", args.method, args.budget, args.sparse)
            if lang == "cuda"
            else next(found)
            for lang in langs
        ]
    return made


def _hessian_graph(args: argparse.Namespace, langs: list[str]) -> DGraph:
    """The graph ``--mode hessian`` differentiates: a function at the array level unless
    ``--level`` says otherwise; a Python function the array tracer refuses (sympy's
    functions of its entries, ``GRAD.subs({a: x[0]})``) at the element level, run on sympy
    symbols, as ``make_function``'s Hessian falls back to it
    (:func:`~dgraph.codegen.hessian.hessian_source`); where that fails too, the array
    level's refusal. C or CUDA without ``--sparse`` write a dense ``hessian(x, H)``, which
    only a graph of scalars has: there the level is the one read when none is named (the
    element level of a small function)."""
    if args.level is not None or (not args.sparse and {"c", "cuda"} & set(langs)):
        return load_graph(args)
    args.level = "array"
    try:
        return load_graph(args)
    except InputError as array_failure:
        if not args.graph.partition(":")[0].endswith(".py"):
            raise
        args.level = "element"
        try:
            return load_graph(args)
        except InputError:
            raise array_failure from None


def _tensor_hessian(gradient: DGraph, lang: str, args: argparse.Namespace):
    """The checked Jacobian of an array function's gradient graph in ``lang``; CUDA: the
    C values' statements as kernels, checked through their host build, with
    ``hessian_mirror_launch`` (:func:`~dgraph.codegen.hessian_native.cuda_tensor_values`).
    One array's sparse H in Python or JAX is computed on and below the diagonal and
    mirrored in the module, as ``make_function``'s is (``symmetric``); every sparse
    pattern keeps only the entries whose mirror images are in it (``mirrored``: C's
    ``hessian_mirror`` reads it as symmetric)."""
    native = "c" if lang == "cuda" else lang
    symmetric = args.sparse and native != "c" and _one_block(gradient)
    code = make_tensor_function(
        gradient, "jacobian", native, args.method, args.budget, args.sparse,
        symmetric=symmetric, mirrored=True,
    )  # fmt: skip
    if lang == "c" and not args.sparse:  # J dense, then H: its lower triangle mirrored
        values = dense_hessian(code[0].values)
        return replace(code[0], text=values.text, values=values)
    return cuda_tensor_values(code[0], "jacobian")[0] if lang == "cuda" else code[0]


def _one_block(gradient: DGraph) -> bool:
    """Whether the Hessian is one square block: one differentiated array, one gradient."""
    return len(gradient.inputs) == 1 and len(gradient.outputs) == 1


def _hessian_tail(code, gradient: DGraph, sparse: bool) -> str:
    """What ends a ``--mode hessian`` file: in Python ``hessian = jacobian``; in C a
    graph of scalars' ``hessian`` (and ``hessian_values``) mirrored
    (:func:`~dgraph.codegen.hessian.c_scalar_hessian`), a tensor graph's
    ``hessian_mirror`` for the values of its CSR pattern; in CUDA nothing (a graph of
    scalars' ``jacobian`` kernels write the symmetric H, a tensor graph's file ends with
    ``hessian_mirror_launch``)."""
    if code.lang == "cuda":
        return "\n"
    if code.lang != "c":
        return _python_hessian_tail(code, gradient, sparse)
    if gradient.is_tensor:
        return "\n" + C_MIRROR_CSR
    keys = [k for k, _ in code.programs["jacobian"].results]
    rows, cols = [k[0] for k in keys], [k[1] for k in keys]
    n = len(gradient.inputs)
    return "\n" + c_scalar_hessian(rows, cols, n, bool(gradient.parameters), sparse)


def _python_hessian_tail(code, gradient: DGraph, sparse: bool) -> str:
    """A Python or JAX file's ``hessian``: symmetric by construction, as
    ``make_function``'s (:class:`~dgraph.codegen.hessian.Symmetric`): one array's sparse
    H is mirrored by its module (``hessian_tril`` its lower triangle), a dense H and a
    graph of scalars' H (``(n, n)`` or ``(B, n, n)``) take each entry above the diagonal
    from its mirror image below; several arrays' blocks are the Jacobian's."""
    head = "\n\n"
    if gradient.is_tensor and not _one_block(gradient):
        return head + "hessian = jacobian  # H: the Jacobian of the gradient graph, by blocks\n"
    if gradient.is_tensor and sparse:
        return (
            head + "hessian = jacobian  # H: the Jacobian of the gradient graph, mirrored\n"
            "hessian_tril = jacobian_tril  # its lower triangle (what IPOPT reads)\n"
        )
    xp = "jnp" if code.lang == "jax" else "numpy"
    if gradient.is_tensor:  # shape x.shape + x.shape
        n = math.prod(gradient.shape(gradient.inputs[0]))
        square = f"{xp}.reshape(J, ({n}, {n}))"
        mirrored = f"{xp}.reshape(lower + {xp}.tril(square, -1).T, J.shape)"
    else:  # (n, n) or a batch (B, n, n)
        square = "J"
        mirrored = f"lower + {xp}.swapaxes({xp}.tril(square, -1), -1, -2)"
    return (
        f"{head}def hessian(*args):\n"
        '    """H: the Jacobian of the gradient graph, symmetric by construction: each entry\n'
        '    above the diagonal is its mirror image\'s (the lower triangle\'s)."""\n'
        "    J = jacobian(*args)\n"
        f"    square = {square}\n"
        f"    lower = {xp}.tril(square)\n"
        f"    return {mirrored}\n"
    )


def _index_path(output: Path) -> Path:
    """Where the index arrays of a tensor graph's C file go: beside it, ``.bin``."""
    return output.with_suffix(".bin")


def _outputs(names: list[str]) -> list[Path]:
    """The ``-o`` paths, each checked (:func:`output_path`); one given twice is refused."""
    paths = [output_path(name) for name in names]
    seen: dict[Path, str] = {}
    for name, path in zip(names, paths, strict=True):
        key = path.resolve()
        if key in seen:
            raise InputError(f"{name}: given twice as -o (as {seen[key]!r} before)")
        seen[key] = name
    return paths
