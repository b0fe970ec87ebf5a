"""JAX's reference values stored as data, keyed by everything that could change them.

A key is the sha256 of: JAX's version and x64 state; the transform and its options; the
function's primal program (``jax.make_jaxpr``'s printed closed jaxpr, a fraction of the
transform's trace, lowering and compile) with the bytes of every constant it closes over
(the printed text names them, not their values); and the inputs' structure, dtypes,
shapes and bytes. A JAX transform is a function of the primal program alone, except where
the program holds a rule or callback of Python code outside JAX (``custom_jvp``,
``custom_vjp`` defined in a test, ``pure_callback``): such a function has no key and is
always computed live, as is one that ``make_jaxpr`` refuses (Python control flow on
values).

Values are stored exactly (their own dtype and bits) in ``tests/jax_references/<test
module>.npz``, only values that JAX computed, and only when ``DGRAPH_WRITE_JAX_REFERENCES``
is set: each record is merged into its module's file under a file lock (safe under xdist).
``DGRAPH_JAX_REFERENCES`` names another directory for the store (an empty one: every
reference live, as in benchmarks/jax_references.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.extend.core as jcore
import numpy as np

DIRECTORY = Path(
    os.environ.get("DGRAPH_JAX_REFERENCES") or Path(__file__).parent / "jax_references"
)
WRITING = bool(os.environ.get("DGRAPH_WRITE_JAX_REFERENCES"))
LARGEST = 40_000  # entries in one stored reference (320 kB of doubles): larger ones live

_JAX_FILES = os.path.dirname(jax.__file__) + os.sep
_RULES = ("custom_jvp jvp", "custom_vjp fwd", "custom_vjp bwd")


class _Unkeyable(Exception):
    """The function's derivatives are not a function of its printed program and consts."""


def _walk(jaxpr: jcore.Jaxpr, consts: list[Any]) -> None:
    """The consts of ``jaxpr``'s nested closed jaxprs into ``consts``; raise where a rule or
    callback of Python code outside JAX decides values the text does not show."""
    for eqn in jaxpr.eqns:
        if "callback" in eqn.primitive.name:
            raise _Unkeyable
        for param in eqn.params.values():
            for item in param if isinstance(param, (tuple, list)) else (param,):
                if isinstance(item, jcore.ClosedJaxpr):
                    consts.extend(item.consts)
                    _walk(item.jaxpr, consts)
                elif isinstance(item, jcore.Jaxpr):
                    _walk(item, consts)
                info = getattr(item, "debug_info", None)
                if getattr(info, "traced_for", None) in _RULES:
                    source = info.func_src_info or ""
                    if not source.rpartition(" at ")[2].startswith(_JAX_FILES):
                        raise _Unkeyable


def _update(digest: Any, array: np.ndarray) -> None:
    digest.update(f"{array.dtype.str}{array.shape}".encode())
    digest.update(np.ascontiguousarray(array).tobytes())


def _numeric(leaf: Any) -> np.ndarray:
    array = np.asarray(leaf)
    if array.dtype.kind not in "biufc":
        raise _Unkeyable
    return array


_PROGRAMS: dict[tuple[Any, ...], str | None] = {}
_KEPT = 256  # programs' digests kept: a test's functions are new objects


def _program(
    g: Callable[..., Any], signature: tuple[Any, ...], args: tuple[Any, ...]
) -> str | None:
    """The digest of ``g``'s closed primal program at ``args``, kept per function and
    signature (the inputs' structure, types, shapes and dtypes, and x64), as ``jax.jit``
    keeps its traces."""
    if (g, signature) in _PROGRAMS:
        return _PROGRAMS[g, signature]
    try:
        closed = jax.make_jaxpr(g)(*args)
        consts = list(closed.consts)
        _walk(closed.jaxpr, consts)
        digest = hashlib.sha256(str(closed).encode())
        for const in consts:
            _update(digest, _numeric(const))
        program = digest.hexdigest()
    except Exception:  # unkeyable, or refused by make_jaxpr: the live path decides
        program = None
    if len(_PROGRAMS) >= _KEPT:
        del _PROGRAMS[next(iter(_PROGRAMS))]
    _PROGRAMS[g, signature] = program
    return program


def key_of(transform: str, g: Callable[..., Any], args: Sequence[Any], argnums: Any) -> str | None:
    """The store's key of ``transform`` (with ``argnums``) of ``g`` at ``args``, or None
    where there is none (the reference is then computed live)."""
    leaves, tree = jax.tree_util.tree_flatten(tuple(args))
    if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
        return None
    try:
        arrays = [_numeric(leaf) for leaf in leaves]
    except _Unkeyable:
        return None
    x64 = bool(jax.config.jax_enable_x64)
    signature = (
        str(tree),
        x64,
        tuple((type(leaf), a.shape, a.dtype.str) for leaf, a in zip(leaves, arrays, strict=True)),
    )
    try:
        program = _program(g, signature, tuple(args))
    except TypeError:  # an unhashable function
        return None
    if program is None:
        return None
    digest = hashlib.sha256(repr((jax.__version__, transform, argnums, signature)).encode())
    digest.update(program.encode())
    for array in arrays:
        _update(digest, array)
    return digest.hexdigest()


def caller_module() -> str | None:
    """The innermost test module (``test_…``) on the stack: its store's name."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.startswith("tests.test_"):
            return name.removeprefix("tests.")
        frame = frame.f_back
    return None


def _encode(value: Any, leaves: list[np.ndarray]) -> Any:
    """``value``'s structure as JSON (tuples, lists, string-keyed dicts), its arrays
    appended to ``leaves``."""
    if isinstance(value, tuple):
        return {"t": [_encode(v, leaves) for v in value]}
    if isinstance(value, list):
        return {"l": [_encode(v, leaves) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"d": {k: _encode(v, leaves) for k, v in value.items()}}
    leaves.append(_numeric(value))
    return len(leaves) - 1


def _decode(tree: Any, leaves: Callable[[int], np.ndarray]) -> Any:
    if isinstance(tree, int):
        return leaves(tree)
    ((kind, items),) = tree.items()
    if kind == "d":
        return {k: _decode(v, leaves) for k, v in items.items()}
    decoded = [_decode(v, leaves) for v in items]
    return tuple(decoded) if kind == "t" else decoded


def as_numpy(value: Any) -> Any:
    """``value`` (a pytree of JAX arrays) as read-only NumPy arrays."""

    def read_only(leaf: Any) -> np.ndarray:
        array = np.array(leaf)
        array.setflags(write=False)
        return array

    return jax.tree_util.tree_map(read_only, value)


_OPEN: dict[str, tuple[Any, frozenset[str]] | None] = {}


def _opened(module: str) -> tuple[Any, frozenset[str]] | None:
    if module not in _OPEN:
        path = DIRECTORY / f"{module}.npz"
        stored = np.load(path, allow_pickle=False) if path.exists() else None
        _OPEN[module] = None if stored is None else (stored, frozenset(stored.files))
    return _OPEN[module]


def has_store(module: str) -> bool:
    """Whether ``module`` has stored references."""
    return _opened(module) is not None


def lookup(module: str, key: str) -> Any | None:
    """The value stored under ``key`` in ``module``'s store (read-only arrays), or None."""
    opened = _opened(module)
    if opened is None or f"{key}.tree" not in opened[1]:
        return None
    stored = opened[0]

    def leaf(i: int) -> np.ndarray:
        array = stored[f"{key}.{i}"]
        array.setflags(write=False)
        return array

    return _decode(json.loads(str(stored[f"{key}.tree"])), leaf)


def record(module: str, key: str, value: Any) -> None:
    """Merge ``value`` (NumPy arrays, as JAX computed them) into ``module``'s store under
    ``key``; one too large or of another structure is not stored."""
    leaves: list[np.ndarray] = []
    try:
        tree = _encode(value, leaves)
    except _Unkeyable:
        return
    if sum(a.size for a in leaves) > LARGEST:
        return
    entries = {f"{key}.tree": np.array(json.dumps(tree))}
    entries.update({f"{key}.{i}": a for i, a in enumerate(leaves)})
    DIRECTORY.mkdir(exist_ok=True)
    path = DIRECTORY / f"{module}.npz"
    lock = os.open(DIRECTORY, os.O_RDONLY)  # the directory's lock: one writer at a time
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            with np.load(path, allow_pickle=False) as stored:
                entries = {name: stored[name] for name in stored.files} | entries
        partial = path.with_name(f".{module}.{os.getpid()}.npz")
        np.savez_compressed(partial, **dict(sorted(entries.items())))
        os.replace(partial, path)
    finally:
        os.close(lock)  # releases the lock
    opened = _OPEN.pop(module, None)
    if opened is not None:
        opened[0].close()
