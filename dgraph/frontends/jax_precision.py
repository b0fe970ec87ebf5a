"""The precision dgraph runs JAX in, with NumPy constants converted for it.

Every trace and reference run of a user's JAX function runs in float64 (:func:`x64`),
whatever ``jax_enable_x64`` the user set. JAX (0.10.2) remembers the conversion of a
NumPy array to its own, keyed by the array's identity and kept while the converted copy
is alive, but not by ``jax_enable_x64``: a NumPy constant ``f`` closes over, converted
once in float32 and kept alive (by a ``jax.jit(f)(x)`` the user ran with x64 off: its
compiled program holds the copy), reached every later float64 trace as that float32
copy ("lax.sub requires arguments to have the same dtypes", or a constant silently
rounded to float32), and a float64 copy kept alive by dgraph's compiled references
reached the user's later float32 ``jax.jit(f)(x)`` the same way. Inside :func:`x64`
each NumPy array is converted through a view of it (a new identity: nothing remembered
about the array itself is read, and nothing is remembered under it), once per
outermost scope and precision, so that one constant stays one constant of the trace.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

__all__ = ["x64"]

_LOCK = threading.Lock()
_scopes = 0
_original: Callable[[Any], Any] | None = None  # JAX's own, while a block replaces it
_converted: dict[tuple[int, Any], tuple[np.ndarray, Any]] = {}


@contextlib.contextmanager
def x64(jax: Any) -> Iterator[None]:
    """JAX in float64 for the ``with`` block, NumPy constants converted anew for it
    (module docstring)."""
    with _float64(jax), _fresh_constants(jax):
        yield


def _float64(jax: Any) -> Any:
    """``jax_enable_x64`` on for a block (older JAX: the experimental one)."""
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    from jax.experimental import enable_x64

    return enable_x64()


@contextlib.contextmanager
def _fresh_constants(jax: Any) -> Iterator[None]:
    """JAX's conversion of a value (``jax._src.dtypes.canonicalize_value``: binding an
    operation, tracing, calls it) replaced by :func:`_fresh` while any thread is inside a
    block; a JAX without it (older or newer than 0.10): left as it is."""
    global _scopes, _original
    try:
        from jax._src import dtypes
    except ImportError:
        dtypes = None
    if dtypes is None or not callable(getattr(dtypes, "canonicalize_value", None)):
        yield
        return
    with _LOCK:
        if _scopes == 0:
            _original = dtypes.canonicalize_value
            dtypes.canonicalize_value = functools.partial(
                _fresh, _original, jax.dtypes.canonicalize_dtype
            )
        _scopes += 1
    try:
        yield
    finally:
        with _LOCK:
            _scopes -= 1
            if _scopes == 0:
                dtypes.canonicalize_value = _original
                _original = None
                _converted.clear()


def _fresh(original: Callable[[Any], Any], canonical: Callable[[Any], Any], value: Any) -> Any:
    """JAX's conversion (``original``) of ``value``; a NumPy array's made from a view of
    it, kept by the array's identity and the dtype it converts to now (``canonical``; the
    array kept with it: its identity is not reused) until the outermost :func:`x64` block
    ends."""
    if type(value) is not np.ndarray:
        return original(value)
    key = (id(value), canonical(value.dtype))
    kept = _converted.get(key)
    if kept is None:
        kept = _converted[key] = (value, original(value.view()))
    return kept[1]
