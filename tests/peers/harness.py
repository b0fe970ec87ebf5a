"""One peer case through dgraph: ``from_jax(f, *args, level="array")``, then
``make_function(g, "jacobian", lang, sparse=...)`` at the peer's own test point, compared
with JAX's own Jacobian there, at float64; the outcome one of :data:`CATEGORIES`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CATEGORIES = ("right", "refused", "wrong", "crash", "self-check", "unclear")
"""right: the Jacobian equals JAX's; refused: an InputError/DGraphError in one line;
wrong: a Jacobian returned that differs from JAX's; crash: any other exception;
self-check: dgraph refused because its own check failed ("did not verify");
unclear: a refusal whose message is not one line."""

COMBOS = (("python", False), ("python", True), ("jax", False), ("jax", True))


@dataclass(frozen=True)
class Case:
    """A peer's test function at its own test point: ``args()`` builds the arguments
    (called under x64), ``reference`` is the JAX transform the peer compares with."""

    name: str
    cite: str
    fn: Callable[..., Any]
    args: Callable[[], tuple]
    reference: str = "jacrev"
    combos: tuple[tuple[str, bool], ...] = field(default=(("python", False),))


@dataclass(frozen=True)
class Outcome:
    category: str
    message: str = ""


def x64():
    """JAX's x64 mode for the block only (the flag is restored after)."""
    import jax

    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    return jax.experimental.enable_x64()


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _reference(case: Case, args: tuple) -> tuple[list[str], list[list[np.ndarray]]]:
    """The output keys dgraph names the returned arrays by, and JAX's blocks
    ``[output][argument]`` (each of shape ``out.shape + arg.shape``), read-only.

    The transform is jitted (one compilation of the whole Jacobian instead of each
    primitive dispatched and compiled op by op) with the options dgraph's own references
    compile with (XLA's lowest backend optimization level, LLVM's expensive passes off:
    same IEEE arithmetic, a quicker compilation of a program run once), and kept
    per case and arguments: the combinations of one case share it. Where the calling test
    module stores JAX's references (tests/jax_reference_store.py, keyed by the transform,
    the primal program and the point), the stored values are read instead."""
    key = _key(case, args)
    if key not in _REFERENCES:
        stored = _stored(case, args)
        if stored is not None:
            _REFERENCES[key] = _blocks(case, args, stored)
    if key not in _REFERENCES and _small(args):
        _REFERENCES.update(_small_references(case))
    if key not in _REFERENCES:
        _REFERENCES[key] = _jax_reference(case, args)
    return _REFERENCES[key]


def _store_key(case: Case, args: tuple) -> tuple[str, str] | None:
    """The calling test module and the key of ``case``'s Jacobian at ``args`` in its store
    of JAX's references (tests/jax_reference_store.py: the transform, the primal program,
    the point), or None where the module stores none or the function has no key."""
    from tests import jax_reference_store as store

    module = store.caller_module()
    if module is None or not (store.WRITING or store.has_store(module)):
        return None
    key = store.key_of(case.reference, case.fn, args, tuple(range(len(args))))
    return None if key is None else (module, key)


def _stored(case: Case, args: tuple) -> Any | None:
    """``case``'s Jacobian at ``args`` as ``_transform`` returns it, from the calling test
    module's store (read-only NumPy arrays), or None where it holds none."""
    from tests import jax_reference_store as store

    where = _store_key(case, args)
    return None if where is None else store.lookup(*where)


def _recorded(case: Case, args: tuple, jac: Any) -> Any:
    """``jac`` (``case``'s Jacobian at ``args``, computed by JAX), recorded in the calling
    test module's store where it is being written (DGRAPH_WRITE_JAX_REFERENCES)."""
    from tests import jax_reference_store as store

    if store.WRITING and (where := _store_key(case, args)) is not None:
        store.record(*where, store.as_numpy(jac))
    return jac


_REFERENCES: dict[tuple, tuple[list[str], list[list[np.ndarray]]]] = {}

SMALL = 64
"""The most argument entries of a case whose reference is compiled with the other small
cases of its run of :data:`SMALL_RUN` in the corpus, as one program: XLA's cost per
program dominates theirs (the corpus's 120 small cases, CPU-s: 9.5 one program each,
7.5 in runs of 8, 6.9 in runs of 32, 8.2 in one)."""

SMALL_RUN = 32
_FAILED_RUNS: set[int] = set()  # the runs that did not compile as one, by their first case


def _key(case: Case, args: tuple) -> tuple:
    return (case.name, case.reference, tuple((a.shape, a.tobytes()) for a in args))


def _small(args: tuple) -> bool:
    return sum(np.size(a) for a in args) <= SMALL


def _small_references(case: Case) -> dict[tuple, tuple[list[str], list[list[np.ndarray]]]]:
    """The references of the small cases of ``case``'s run of :data:`SMALL_RUN` in the
    corpus (``tests.peers.CASES``), compiled as one program, by their keys; none where
    ``case`` is not in the corpus or the run does not trace or compile as one (each case
    is then compiled alone, as before)."""
    import jax

    from dgraph.frontends.jaxpr_arrays import REFERENCE_COMPILE
    from tests.peers import CASES

    names = [c.name for c in CASES]
    if case.name not in names:
        return {}
    i = names.index(case.name)
    if i - i % SMALL_RUN in _FAILED_RUNS:
        return {}
    run, found = [], {}
    for c in CASES[i - i % SMALL_RUN :][:SMALL_RUN]:
        args = tuple(np.asarray(a, dtype=np.float64) for a in c.args())
        if _small(args) and _key(c, args) not in _REFERENCES:
            stored = _stored(c, args)
            if stored is None:
                run.append((c, args))
            else:
                found[_key(c, args)] = _blocks(c, args, stored)
    if not run:
        return found
    transforms = [_transform(c, len(args)) for c, args in run]

    def program(every: list) -> list:
        return [t(*args) for t, args in zip(transforms, every, strict=True)]

    every = [args for _, args in run]
    try:
        jacs = compile_reference(jax.jit(program).lower(every), REFERENCE_COMPILE)(every)
    except Exception:
        _FAILED_RUNS.add(i - i % SMALL_RUN)
        return found
    for (c, args), jac in zip(run, jacs, strict=True):
        found[_key(c, args)] = _blocks(c, args, _recorded(c, args, jac))
    return found


def _transform(case: Case, n: int) -> Callable[..., Any]:
    """JAX's ``jacrev`` (or ``jacfwd``) of ``case.fn`` in its ``n`` arguments."""
    import jax

    transform = jax.jacfwd if case.reference == "jacfwd" else jax.jacrev
    return transform(case.fn, argnums=tuple(range(n)))


def _jax_reference(case: Case, args: tuple) -> tuple[list[str], list[list[np.ndarray]]]:
    import jax

    from dgraph.frontends.jaxpr_arrays import REFERENCE_COMPILE

    jitted = jax.jit(_transform(case, len(args)))
    compiled = compile_reference(jitted.lower(*args), REFERENCE_COMPILE)
    return _blocks(case, args, _recorded(case, args, compiled(*args)))


def _blocks(case: Case, args: tuple, jac: Any) -> tuple[list[str], list[list[np.ndarray]]]:
    """The output keys and JAX's blocks ``[output][argument]`` of the Jacobian ``jac``
    (as ``_transform`` returns it), read-only."""
    import jax

    from dgraph.frontends.jaxpr import output_keys as _output_keys

    shape = jax.eval_shape(case.fn, *args)
    tree = jax.tree_util.tree_structure(shape)
    per_output = tree.flatten_up_to(jac)
    names = set(_parameter_names(case.fn, len(args)))
    keys = _output_keys(tree, tree.num_leaves, names, jax)
    # JAX's own buffers, viewed (no copy: Simple_50x50's four 6.25M-entry blocks cost a second)
    blocks = [[np.asarray(b, dtype=np.float64) for b in row] for row in per_output]
    for row in blocks:
        for b in row:
            b.setflags(write=False)
    return keys, blocks


def compile_reference(lowered: Any, options: dict | None = None) -> Any:
    """``lowered.compile`` with ``options`` and dgraph's :data:`ONE_MODULE` (XLA's CPU
    backend emits the program as one LLVM module: a reference compiles in about three
    quarters of the CPU, the first 60 cases of tests/peers/: 5.8 -> 4.3 CPU-s; its values
    JAX's to the last bit or two, well inside the tests' tolerances), or without that
    option where this XLA does not know it."""
    from dgraph.frontends.jaxpr_arrays import ONE_MODULE

    try:
        return lowered.compile({**(options or {}), **ONE_MODULE})
    except Exception as exc:
        if "No such compile option" not in str(exc):
            raise
        return lowered.compile({k: v for k, v in (options or {}).items() if k not in ONE_MODULE})


def _parameter_names(fn: Callable[..., Any], n: int) -> list[str]:
    from dgraph.frontends.jaxpr import parameter_names as _parameter_names

    return list(_parameter_names(fn, n))


def _close(got: np.ndarray, want: np.ndarray) -> float | None:
    """None where ``got`` equals ``want`` (NaN where JAX has NaN), else the largest error
    relative to the block's scale."""
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        return float("inf")
    return _close_grid(got.reshape(1, -1), [[want.reshape(1, -1)]])


def _close_grid(got: np.ndarray, grid: list[list[np.ndarray]]) -> float | None:
    """:func:`_close` of ``got`` and the matrix ``np.block(grid)`` (rows of 2-D blocks),
    without building that matrix: each block against its slice of ``got``. Only the
    entries where the two differ (``!=``, NaN included) are checked further: an entry
    equal in both is finite or an equal infinity, within any tolerance and no error, so
    the outcome is the whole matrices' (the peers' large blocks are mostly equal zeros)."""
    got = np.asarray(got, dtype=np.float64)
    rows = [row[0].shape[0] for row in grid]
    cols = [b.shape[1] for b in grid[0]] if grid else []
    if got.shape != (sum(rows), sum(cols)):
        return float("inf")
    scale = 1.0  # max(1, the largest |entry| of the matrix but NaN), without |want|'s copy
    for row in grid:
        for w in row:
            if w.size:
                scale = max(
                    scale, float(np.nanmax(w, initial=0.0)), -float(np.nanmin(w, initial=0.0))
                )
    pairs = []
    r0 = 0
    for row, nr in zip(grid, rows, strict=True):
        c0 = 0
        for w, nc in zip(row, cols, strict=True):
            g = got[r0 : r0 + nr, c0 : c0 + nc]
            differ = g != w
            if differ.any():
                pairs.append((g[differ], w[differ]))
            c0 += nc
        r0 += nr
    g = np.concatenate([g for g, _ in pairs]) if pairs else np.zeros(0)
    w = np.concatenate([w for _, w in pairs]) if pairs else np.zeros(0)
    if np.array_equal(np.isnan(g), np.isnan(w)) and np.allclose(
        g, w, rtol=1e-7, atol=1e-10 * scale, equal_nan=True
    ):
        return None
    with np.errstate(invalid="ignore"):
        return float(np.nanmax(np.abs(g - w), initial=0.0) / scale)


def densified(result: Any) -> np.ndarray:
    """A sparse Jacobian as a dense float64 array: SciPy's by ``todense``; JAX's BCOO of
    plain coordinates (no batch or dense dimensions) in NumPy, as its ``todense`` does
    (the entries summed at their indices, an index out of the shape dropped), without
    an XLA compilation of JAX's scatter for each shape."""
    if getattr(result, "n_batch", None) == 0 and getattr(result, "n_dense", None) == 0:
        indices = np.asarray(result.indices)
        data = np.asarray(result.data, dtype=np.float64)
        dense = np.zeros(result.shape, dtype=np.float64)
        inside = np.all(indices < np.asarray(result.shape), axis=1)
        np.add.at(dense, tuple(indices[inside].T), data[inside])
        return dense
    return np.asarray(result.todense(), dtype=np.float64)


def _by_key(g, result: Any) -> dict:
    """``make_function``'s dense Jacobian (the array for one output and one input, else
    ``jax.jacobian``'s tuples) keyed by (output, input)."""
    inputs, outputs = list(g.inputs), list(g.outputs)
    rows = result if len(outputs) > 1 else (result,)
    return {
        (y, x): block
        for y, row in zip(outputs, rows, strict=True)
        for x, block in zip(inputs, row if len(inputs) > 1 else (row,), strict=True)
    }


def _compare(g, result: Any, sparse: bool, keys: list[str], blocks, args) -> Outcome:
    inputs = list(g.inputs)
    if sorted(g.outputs) != sorted(keys):
        return Outcome("wrong", f"outputs {list(g.outputs)}, JAX returns {keys}")
    if sparse:
        index = {k: i for i, k in enumerate(keys)}
        grid = [
            [blocks[index[y]][j].reshape(-1, np.size(a)) for j, a in enumerate(args)]
            for y in g.outputs
        ]
        got = densified(result)
        err = _close_grid(got, grid)
        return Outcome("right") if err is None else Outcome("wrong", f"max error {err:.2g}")
    for i, y in enumerate(keys):
        for j, x in enumerate(inputs):
            want = blocks[i][j]
            got = result.get((y, x))
            got = np.zeros_like(want) if got is None else np.asarray(got, dtype=np.float64)
            err = _close(got.reshape(want.shape) if got.size == want.size else got, want)
            if err is not None:
                return Outcome("wrong", f"max error {err:.2g} (d{y}/d{x})")
    return Outcome("right")


def array_graph(case: Case, args: tuple) -> Any:
    """``from_jax(case.fn, *args, level="array")``, built once per case and arguments and
    kept (or the refusal it raised, raised again): the case's combinations and its
    element-level run read the same graph, as a user's calls of ``make_function`` on one
    graph would. Called under x64."""
    key = (case.name, tuple((a.shape, a.tobytes()) for a in args))
    if key not in _GRAPHS:
        import dgraph
        from dgraph.errors import DGraphError

        try:
            _GRAPHS[key] = dgraph.from_jax(
                case.fn, *args, level="array", name=case.name.split("/")[-1]
            )
        except DGraphError as exc:
            _GRAPHS[key] = exc
    found = _GRAPHS[key]
    if isinstance(found, BaseException):
        raise found
    return found


_GRAPHS: dict[tuple, Any] = {}


def run(case: Case, lang: str, sparse: bool) -> Outcome:
    """The outcome of ``case`` in ``lang``, dense or sparse (module docstring)."""
    import dgraph
    from dgraph.errors import DGraphError, VerificationError

    with x64():
        args = tuple(np.asarray(a, dtype=np.float64) for a in case.args())
        keys, blocks = _reference(case, args)
        try:
            g = array_graph(case, args)
            J = dgraph.make_function(g, "jacobian", lang, sparse=sparse)
            result = J.stacked(*args) if sparse else _by_key(g, J(*args))
        except DGraphError as exc:
            message = str(exc)
            if isinstance(exc, VerificationError) or "verif" in message:
                return Outcome("self-check", _one_line(exc))
            if "\n" in message.strip() or not message.strip():
                return Outcome("unclear", _one_line(exc).replace("\n", " ⏎ ")[:300])
            return Outcome("refused", message)
        except Exception as exc:
            return Outcome("crash", _one_line(exc).splitlines()[0][:300])
        return _compare(g, result, sparse, keys, blocks, args)
