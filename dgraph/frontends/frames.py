"""A traced function's local variables as it returned, from one untraced call: they name
the vertices that compute the values they hold."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

__all__ = ["call_keeping_locals"]


def call_keeping_locals(f: Callable[..., Any], args: list[Any]) -> tuple[Any, dict[str, Any]]:
    """``f(*args)`` and ``f``'s local variables as it returned (``{}`` where ``f`` has no
    Python code of its own: a builtin, a class instance).

    A trace hook sees only the call event of ``f``'s frame and switches itself off there,
    keeping the frame object: Python moves a finished frame's variables into its frame
    object while something refers to it. So ``f`` runs once and untraced, and the names
    depend on the program only. A tracer that was set before (a debugger, coverage) is put
    back at that call and traces ``f`` as usual."""
    code = getattr(f, "__code__", None)
    if code is None:
        return f(*args), {}
    frames: list[Any] = []
    previous = sys.gettrace()

    def hook(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is not code:  # a call before f's own (none for a plain function)
            return None
        frames.append(frame)
        sys.settrace(previous)
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(hook)
    try:
        result = f(*args)
    finally:
        sys.settrace(previous)
    return result, dict(frames[0].f_locals) if frames else {}
