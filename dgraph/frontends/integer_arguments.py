"""Arguments given as integer arrays (a mesh's triangles ``T``, a graph's edges, ids):
index data, never differentiated, as JAX's ``jacfwd`` refuses integer inputs unless
``argnums`` leaves them out. Such an argument becomes one of the function's ``params``
and the function is read as if it wrote ``T.astype(int)`` wherever it reads ``T``
(:class:`IntegerArguments`): the readers trace every argument as float64, so the cast
makes ``E[T]`` the gather at integer positions that ``E[T.astype(int)]`` already is in
both readers (:mod:`.integer_casts`; the NumPy tracer's ``astype``, JAX's
``convert_element_type``): one graph, one path, the same checks and generated code,
which reads the positions from its argument at each call. An argument given as a boolean
array (a mask ``m`` for ``where(m, a, b)``) is one the same way, read as ``m != 0`` (a
boolean array in both readers, whose selects read it at each call)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = [
    "INT_OF_TRACED",
    "PRESENTED",
    "ClosedOver",
    "IntegerArguments",
    "integer_arguments",
    "integer_inputs_hint",
    "integer_inputs_hinted",
    "integer_kind",
    "integer_scalars",
]

#: how the NumPy tracer's refusal of ``int()`` of a traced value (``range(n)``,
#: ``np.zeros(n)``, ``x[:n]`` of a differentiated ``n``) begins
INT_OF_TRACED = "int() of a value that depends on the inputs"

#: the attributes a reader reads off a function to find its code, names and modules
PRESENTED = ("__name__", "__qualname__", "__module__", "__doc__", "__code__", "__globals__",
              "__closure__", "__defaults__", "__kwdefaults__")  # fmt: skip


def integer_kind(value: Any) -> str | None:
    """The dtype of ``value`` where it is an array (at least one axis) of integers, signed
    or not, or of booleans (NumPy's, JAX's: anything with such a ``dtype``), else None.
    Python ints and integer scalars stay numbers, as before (read as float64 and
    differentiated); a boolean array is a mask, not differentiated (JAX's convention)."""
    dtype = getattr(value, "dtype", None)
    if dtype is None or np.ndim(value) == 0:
        return None
    try:
        kind = np.dtype(dtype).kind
    except TypeError:
        return None
    return str(np.dtype(dtype)) if kind in "iub" else None


def integer_scalars(
    f: Callable[..., Any], point: Sequence[Any] | None, params: Sequence[str]
) -> dict[int, tuple[str, int | bool]]:
    """The parameters of ``f`` (named in ``params``) whose ``point`` value is one integer
    or boolean (a Python int or bool, a NumPy integer, a 0-d integer array), by position:
    ``(name, value)``. Such a value may fix the program's structure (a trip count,
    ``range(n)``, a ``fori_loop`` bound, a shape, a static index, a flag), which a reading
    of it as a number cannot follow; {} where there is none (or no point, or ``f`` has no
    signature of one argument per point entry)."""
    if point is None or not params:
        return {}
    try:
        names = list(inspect.signature(f).parameters)[: len(point)]
    except (TypeError, ValueError):
        return {}
    if len(names) != len(point):
        return {}
    found: dict[int, tuple[str, int | bool]] = {}
    for k, (name, value) in enumerate(zip(names, point, strict=True)):
        if name not in params:
            continue
        try:
            array = np.asarray(value)
        except Exception:  # a ragged list, a tracer: no integer given here
            continue
        if array.ndim == 0 and array.dtype.kind in "iub":
            kind = array.dtype.kind
            found[k] = (name, bool(value) if kind == "b" else int(value))
    return found


def integer_inputs_hint(
    f: Callable[..., Any], point: Sequence[Any] | None, params: Sequence[str]
) -> str:
    """A refusal's hint where an argument differentiated (not in ``params``) was given as
    an integer in ``point``: a count is a parameter; empty where none was."""
    try:
        names = [n for n in inspect.signature(f).parameters if n not in params]
    except (TypeError, ValueError):
        return ""
    found = [
        (name, value)
        for name, value in integer_scalars(f, point, names).values()
        if not isinstance(value, bool)
    ]
    if not found:
        return ""
    name, value = found[0]
    return (
        f"; {name} is given as the integer {value} but differentiated: a count or a size"
        f" is a parameter (params=[{name!r}])"
    )


def integer_inputs_hinted(
    error: InputError, f: Callable[..., Any], point: Sequence[Any] | None, params: Sequence[str]
) -> InputError:
    """``error``, a reading's refusal, ending with :func:`integer_inputs_hint` where an
    argument differentiated was given as an integer and no parameter was (closing those
    over came first); the tracer's ``int()`` line (:data:`INT_OF_TRACED`: ``range(n)`` of
    such an ``n``) cut to its first clause, whose advice (``np.floor``) is not for a
    count; another line (a branch, on ``n`` or on another value) kept whole; unchanged
    where no such argument was given."""
    hint = integer_inputs_hint(f, point, params)
    line = str(error)
    if hint and hint not in line and not integer_scalars(f, point, params):
        kept = ": ".join(line.split(": ")[:2]) if INT_OF_TRACED in line else line
        error.args = (kept + hint,)
    return error


class IntegerArguments:
    """``f`` that casts its arguments at ``positions`` (named ``names``) to integers
    (``astype(int)``) before it runs: what the readers call in place of ``f``. It
    presents ``f``'s code, globals, closure and signature, so the readers name the
    vertices after ``f``'s local variables, choose JAX or NumPy by ``f``'s code and trace
    NumPy in ``f``'s modules as for ``f`` itself; picklable where ``f`` is."""

    def __init__(
        self,
        f: Callable[..., Any],
        positions: Sequence[int],
        names: Sequence[str] = (),
        masks: Sequence[int] = (),
    ) -> None:
        self.f, self.positions, self.names = f, tuple(positions), tuple(names)
        self.masks = tuple(masks)  # the positions given as boolean arrays: read as m != 0
        self.__wrapped__ = f  # inspect.signature reads f's
        for name in PRESENTED:
            if hasattr(f, name):
                setattr(self, name, getattr(f, name))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        cast = [
            (_as_bool(a) if k in self.masks else _as_int(a)) if k in self.positions else a
            for k, a in enumerate(args)
        ]
        return self.f(*cast, **kwargs)

    @property
    def mask_names(self) -> tuple[str, ...]:
        """The names of the arguments given as boolean arrays (masks)."""
        return tuple(n for k, n in zip(self.positions, self.names) if k in self.masks)  # noqa: B905

    def __reduce__(self) -> tuple[Any, ...]:
        return IntegerArguments, (self.f, self.positions, self.names, self.masks)


class ClosedOver:
    """``f`` with its arguments at the positions of ``values`` given those values, as
    constants in the function: what a sparse function of index data is made from (its
    pattern that of these positions alone, not of every position a call could give). It
    presents ``f``'s code, globals and closure (the readers name vertices after its local
    variables and choose JAX or NumPy by its code) and ``f``'s signature less those
    arguments; picklable where ``f`` is. ``named``: the values by name where they fix
    the program's structure (:mod:`.fixed_parameters`), which a graph read of it says."""

    def __init__(
        self,
        f: Callable[..., Any],
        values: Mapping[int, Any],
        named: Mapping[str, int | bool] | None = None,
    ) -> None:
        self.f, self.values = f, dict(values)
        self.fixed_values = dict(named or {})
        for name in PRESENTED:
            if hasattr(f, name):
                setattr(self, name, getattr(f, name))
        signature = inspect.signature(f)
        kept = [p for k, p in enumerate(signature.parameters.values()) if k not in self.values]
        self.__signature__ = signature.replace(parameters=kept)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        rest = iter(args)
        n = len(args) + len(self.values)
        return self.f(*(self.values[k] if k in self.values else next(rest) for k in range(n)),
                      **kwargs)  # fmt: skip

    def __reduce__(self) -> tuple[Any, ...]:
        return ClosedOver, (self.f, self.values, self.fixed_values)


def _as_int(value: Any) -> Any:
    """``value.astype(int)``: a traced array's integer cast (NumPy's tracer, JAX's), or a
    NumPy array's (the checks that run ``f`` at the point)."""
    astype = getattr(value, "astype", None)
    return astype(int) if astype is not None else np.asarray(value).astype(int)


def _as_bool(value: Any) -> Any:
    """``value != 0``: a traced array's mask (a comparison both readers read as a boolean
    array of the parameters alone, where ``astype(bool)`` is refused by the NumPy
    tracer), or a NumPy array's (the checks that run ``f`` at the point)."""
    if isinstance(value, np.ndarray) or np.isscalar(value):
        return np.asarray(value) != 0
    return value != 0


def integer_arguments(
    f: Callable[..., Any], point: Sequence[Any] | None, params: Sequence[str], label: str = ""
) -> tuple[Callable[..., Any], list[str]]:
    """``f`` and ``params`` with each argument whose ``point`` value is an integer array
    (:func:`integer_kind`) made a parameter that ``f`` reads cast to integers
    (:class:`IntegerArguments`); ``f`` and ``params`` as given where there is none (or
    no ``point``, or ``f`` is one already).

    Raises
    ------
    InputError
        Every argument is an integer array or a parameter: nothing is left to
        differentiate (JAX's ``jacfwd`` refuses integer inputs too).
    """
    params = list(params)
    if point is None or isinstance(f, IntegerArguments):
        return f, params
    kinds = [integer_kind(value) for value in point]
    if not any(kinds):
        return f, params
    try:
        names = list(inspect.signature(f).parameters)[: len(point)]
    except (TypeError, ValueError):
        return f, params  # the reader refuses a function without a signature itself
    if len(names) != len(point):
        return f, params  # one point entry per argument, or the reader says so
    positions = [k for k, kind in enumerate(kinds) if kind]
    if all(kinds[k] or n in params for k, n in enumerate(names)):
        k = positions[0]
        raise InputError(
            f"{label or getattr(f, '__name__', 'f')}: point= entry {k} ({names[k]!r}) is an"
            f" array of {kinds[k]}: integer arguments are index data, not differentiated (as"
            " jax.jacfwd), and no other argument is left to differentiate; give floats"
            f" ({names[k]}.astype(float)) to differentiate it"
        )
    added = [names[k] for k in positions if names[k] not in params]
    masks = [k for k in positions if np.dtype(kinds[k]).kind == "b"]
    cast = IntegerArguments(f, positions, [names[k] for k in positions], masks)
    return cast, params + added
