"""A function of ``*args`` read with several arguments: one parameter each.

``lambda *xs: lax.clamp(*xs)`` (as JAX's own tests write an operation of ``nargs``
arguments) has one parameter, ``xs``; the readers name a graph's inputs, match ``sizes=``
and ``point=`` and make the generated function's call from the parameters. Given more
arguments than the named positional parameters, the function is read as the same
function of ``xs0, xs1, ...`` (those beyond the named ones), as ``jax.jacobian`` takes
``f(*args)`` with ``argnums`` over every argument.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["spread"]


def spread(f: Callable[..., Any], given: int | None) -> Callable[..., Any]:
    """``f`` itself, or where ``f`` takes ``*args`` and ``given`` arguments exceed its
    positional parameters, ``f`` with a signature of one parameter per argument
    (``*xs``'s named ``xs0, xs1, ...``; keyword-only parameters kept).

    >>> list(inspect.signature(spread(lambda a, *xs: 0, 3)).parameters)
    ['a', 'xs0', 'xs1']
    >>> g = lambda x, y: 0
    >>> spread(g, 2) is g
    True
    """
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):
        return f
    params = list(signature.parameters.values())
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p for p in params if p.kind in kinds]
    star = [p for p in params if p.kind == inspect.Parameter.VAR_POSITIONAL]
    if given is None or not star or given <= len(positional):
        return f
    taken = {p.name for p in params}
    extra = []
    for k in range(given - len(positional)):
        name = f"{star[0].name}{k}"
        while name in taken:
            name += "_"
        extra.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY))
    rest = [p for p in params if p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    head = [p.replace(kind=inspect.Parameter.POSITIONAL_ONLY) for p in positional]

    @functools.wraps(f)
    def spread_f(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    spread_f.__signature__ = signature.replace(parameters=[*head, *extra, *rest])  # type: ignore[attr-defined]
    del spread_f.__wrapped__  # inspect.signature reads __signature__, not f's
    return spread_f
