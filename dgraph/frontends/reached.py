"""The Python functions a user's function may call, read from their code: the functions
in its closure and its arguments' defaults, the globals its code (and its lambdas',
comprehensions' and inner functions' code) names, the functions a module it holds has
under those names (``helpers.bump(x)``), the methods of those names of the user's objects
it holds (``problem.fun(x)``; a bound method's own instance: ``self.helper(x)``), and
theirs in turn. The frontends decide with it
which reader reads a function (:func:`dgraph.frontends.functions.uses_jax`) and in which
modules the array tracer's NumPy, math and sympy take traced arrays
(:func:`dgraph.frontends.array_tracer.called_namespaces`)."""

from __future__ import annotations

import contextlib
import dis
import functools
import inspect
import os
import sys
import sysconfig
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "LIBRARIES",
    "REACHED_MOST",
    "Reached",
    "global_names",
    "is_library",
    "names_used",
    "reached",
]

REACHED_MOST = 200
"""How many functions :func:`reached` looks into, at most."""

Reached = tuple[Any, set[str], list[Any], dict[str, Any]]
"""A function reached, the names its code uses (globals and attributes), the values its
globals (and its closure's cells) hold, and its module's namespace."""


def names_used(code: types.CodeType) -> set[str]:
    """The names ``code`` and the code objects nested in it (lambdas, comprehensions,
    inner functions) read as globals or attributes."""
    names: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names


_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})


def global_names(code: types.CodeType) -> set[str]:
    """The names ``code`` and the code objects nested in it read as globals, not as
    attributes: ``stats.gamma.sf(x)`` reads ``stats``, not a global function ``sf``
    beside it in the module."""
    names: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names |= _global_loads(c)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names


@functools.lru_cache(maxsize=256)
def _global_loads(code: types.CodeType) -> frozenset[str]:
    """One code object's global loads, read once: a function is reached again by each
    reading of it (element level, array level, the checks: seven times in ``dgraph
    codegen``), and a 10⁴-statement function has 80,009 instructions, 0.17 CPU-s of
    ``dis`` a reading."""
    return frozenset(i.argval for i in dis.get_instructions(code) if i.opname in _GLOBAL_LOADS)


def reached(f: Callable[..., Any], library: Callable[[Any], bool]) -> Iterator[Reached]:
    """``f`` and each function it may call that is not a ``library``'s (``library(g)``:
    not looked into), each once, ``f`` first, at most :data:`REACHED_MOST`; a module it
    holds is looked into where it is the user's (not :func:`is_library`). A callable
    without Python code (a ufunc, a jitted function) is reached with no names, itself its
    one value.

    >>> import math
    >>> def inner(t):
    ...     return math.exp(t)
    >>> def outer(x):
    ...     return inner(x) + 1
    >>> [g.__name__ for g, *_ in reached(outer, lambda g: False)]
    ['outer', 'inner']
    """
    seen: set[int] = set()
    stack = [f]
    while stack and len(seen) < REACHED_MOST:
        g = stack.pop()
        if id(g) in seen:
            continue
        seen.add(id(g))
        code = getattr(g, "__code__", None)
        if not isinstance(code, types.CodeType):
            yield g, set(), [g], {}
            continue
        namespace = getattr(g, "__globals__", None) or {}
        names = names_used(code)
        values = [g, *(namespace[n] for n in global_names(code) if n in namespace)]
        if inspect.ismethod(g):  # self.helper(x): the instance's methods
            values.append(g.__self__)
        for cell in getattr(g, "__closure__", None) or ():
            with contextlib.suppress(ValueError):  # an empty cell
                values.append(cell.cell_contents)
        values.extend(getattr(g, "__defaults__", None) or ())  # def loss(x, act=helper)
        values.extend((getattr(g, "__kwdefaults__", None) or {}).values())
        yield g, names, values, namespace
        for v in values[1:]:
            if inspect.isfunction(v) and not library(v):
                stack.append(v)
            elif inspect.ismodule(v) and not is_library(v):
                held = vars(v)
                stack.extend(h for n in names if inspect.isfunction(h := held.get(n)))
            elif inspect.ismethod(v) and not library(v.__func__):
                stack.append(v)
            elif _users_class(type(v)):  # problem.fun(x), problem held in a closure
                stack.extend(h for n in names if (h := _method(type(v), n)) is not None)


def _method(cls: type, name: str) -> Any:
    """The plain function ``cls`` has as its method ``name`` (a static or class method's
    too), None where it has none."""
    h = inspect.getattr_static(cls, name, None)
    h = getattr(h, "__func__", h)
    return h if inspect.isfunction(h) else None


@functools.lru_cache(maxsize=256)
def _users_class(cls: type) -> bool:
    """Whether instances of ``cls`` are the user's objects, their methods the user's code:
    a class of the user's modules (not a builtin's, not a library's)."""
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    return module is not None and module.__name__ != "builtins" and not is_library(module)


LIBRARIES = frozenset(
    {"dgraph", "numpy", "scipy", "sympy", "jax", "jaxlib", "networkx", "autograd"}
)
"""Top-level packages that are libraries wherever they are installed (an editable
install's files are not under the interpreter's library directories)."""


def is_library(g: Any) -> bool:
    """Whether ``g`` (a function or a module) is an installed library's, not the user's:
    its module is the standard library's, in :data:`LIBRARIES`, or a file under the
    interpreter's library directories. A ``sympy.lambdify``-ed function (a namespace of
    its own, no file) is the user's."""
    namespace = vars(g) if inspect.ismodule(g) else getattr(g, "__globals__", None) or {}
    module = (namespace.get("__name__") or "").split(".")[0]
    if module in LIBRARIES or module in sys.stdlib_module_names:
        return True
    file = namespace.get("__file__")
    return bool(file) and any(
        os.path.abspath(file).startswith(root + os.sep) for root in _library_roots()
    )


@functools.cache
def _library_roots() -> tuple[str, ...]:
    """The interpreter's standard library and site-packages directories."""
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    return tuple(sorted(os.path.abspath(r) for r in roots))
