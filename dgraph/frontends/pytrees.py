"""Arguments and results that are pytrees (JAX's nested containers of arrays), flattened
at the boundary.

A JAX program takes its parameters as a dict of arrays (``loss(params, x)``), a list of
``(W, b)`` tuples per layer or a NamedTuple, and may return a dict. Every reader reads
arrays, so such a function is read as :class:`Pytrees` makes it: a function of the
leaves (``jax.tree_util.tree_flatten``'s order), each an argument named by its key path
(``params_W1`` for ``params['W1']``, ``layers_0_1`` for ``layers[0][1]``), which rebuilds
the arguments, calls the function and returns its result's leaves (a dict of them, keyed
by their key paths, where that keeps their order; else a tuple). The made function
flattens a call's arguments the same way and nests its results as JAX does
(:class:`~dgraph.codegen.own_arguments.PytreeCall`). Needs JAX (its ``tree_util``); without
it a pytree is refused in one line, as before.

>>> import numpy as np
>>> def loss(params, x):
...     return np.sum(np.tanh(params["W"] @ x + params["b"]) ** 2)
>>> point = [{"W": np.ones((2, 3)), "b": np.zeros(2)}, np.ones(3)]
>>> trees = pytrees_of(loss, point, ())
>>> trees.names, trees.labels
(['params_W', 'params_b', 'x'], ["params['W']", "params['b']", 'x'])
>>> round(float(trees.flat(*trees.leaves)), 4)
1.9803
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from .integer_arguments import PRESENTED, integer_kind
from .jax_precision import x64

__all__ = ["Leaves", "Pytrees", "flat_arguments", "is_pytree", "output_is_pytree", "pytrees_of"]

Shape = tuple[int, ...]


def is_pytree(value: Any) -> bool:
    """Whether ``value`` is a pytree of arrays rather than one array: a mapping, a
    NamedTuple, None, an object of a class registered with ``jax.tree_util`` (an equinox
    ``Module``: optimistix's ``simple_nn`` minimises over an ``eqx.nn.MLP``), a list or
    tuple holding a JAX array (optimistix's ``[jnp.array(2.0), jnp.array(2.5)]``, which
    ``jax.jacobian`` answers with a list), or one NumPy does not read as one array of
    numbers (ragged, or holding a mapping); a list of numbers, or of NumPy arrays of one
    shape, stays the array it always was."""
    if value is None or isinstance(value, Mapping):
        return True
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return True
    if not isinstance(value, (list, tuple)):
        return _registered_node(value)
    if any(_jax_array(v) for v in value):
        return True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return True
    return False


def _jax_array(value: Any) -> bool:
    """Whether ``value`` is a JAX array (JAX already imported: the user's arrays are)."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(value, jax.Array)


def _registered_node(value: Any) -> bool:
    """Whether ``value`` is an inner node of JAX's pytrees other than the containers
    :func:`is_pytree` names (a class registered with ``jax.tree_util``): never an array
    or a number. JAX is imported already where such a class exists."""
    jax = sys.modules.get("jax")
    if jax is None or isinstance(value, (np.ndarray, np.generic, int, float, complex, str)):
        return False
    if isinstance(value, jax.Array):
        return False
    try:
        return not jax.tree_util.treedef_is_leaf(jax.tree_util.tree_structure(value))
    except Exception:  # a value JAX cannot walk is no pytree of arrays
        return False


def _key_text(key: Any) -> str:
    """One key of a key path as a name's part: a dict's key, an index, an attribute."""
    for attribute in ("key", "idx", "name"):
        if hasattr(key, attribute):
            return str(getattr(key, attribute))
    return str(key)


def _identifier(parts: Sequence[str], taken: set[str]) -> str:
    """``parts`` joined by ``_`` as a new identifier (other characters ``_``; ``_``
    appended until no other name has it)."""
    name = re.sub(r"\W", "_", "_".join(parts), flags=re.ASCII) or "_"
    name = name if not name[0].isdigit() else "y" + name  # an output's index
    while name in taken:
        name += "_"
    taken.add(name)
    return name


class Pytrees:
    """A function ``f`` of pytrees read as the function :meth:`flat` of its leaves.

    ``arguments``: the names of ``f``'s arguments the point gives; ``treedefs``: each
    one's structure (None for an array: one leaf, itself); ``names``: the leaves'
    argument names, ``labels`` their key paths (``params['W1']``), ``shapes`` and
    ``leaves`` (the point's values), in flatten order; ``params``: the leaves that are
    parameters (all those of an argument named in ``params=``); ``out_treedef`` and
    ``output_shapes``: the structure of ``f``'s result at the point and its leaves'
    shapes; ``output``: whether the flat function returns that result as its leaves
    (None: one array, returned as it is), ``output_keys`` the names it returns them
    under (None: a tuple)."""

    def __init__(self, f: Callable[..., Any], point: Sequence[Any], params: Sequence[str]):
        self.f = f
        label = getattr(f, "__name__", "f")
        try:
            signature = list(inspect.signature(f).parameters)
        except (TypeError, ValueError):
            raise InputError(f"{label}: cannot read the function's parameters") from None
        if len(signature) < len(point):
            raise InputError(
                f"{label}: point= gives {len(point)} arguments for {len(signature)} parameters"
            )
        self.arguments = signature[: len(point)]
        unknown = [p for p in params if p not in self.arguments]
        if unknown:
            raise InputError(
                f"{label}: params= names {unknown[0]!r}, not an argument point= gives a value"
                " (with pytree arguments point= gives every argument, the parameters' too)"
            )
        taken = set(signature)
        self.treedefs: list[Any] = []
        self.names: list[str] = []
        self.labels: list[str] = []
        self.leaves: list[Any] = []
        self.params: list[str] = []
        for argument, value in zip(self.arguments, point, strict=True):
            names = self._flatten_argument(argument, value, taken, params)
            self.params += names if argument in params else []
        self.shapes: list[Shape] = [tuple(np.shape(v)) for v in self.leaves]
        if len(self.params) == len(self.names):
            raise InputError(f"{label}: every argument is in params: nothing to differentiate")
        self.output, self.output_keys = self._output_structure(point)

    def _flatten_argument(
        self, argument: str, value: Any, taken: set[str], params: Sequence[str]
    ) -> list[str]:
        """Add ``value``'s leaves (one argument's) to the point; their names."""
        if not is_pytree(value):
            self.treedefs.append(None)
            self.names.append(argument)
            self.labels.append(argument)
            self.leaves.append(value)
            return [argument]
        taken.discard(argument)  # its leaves' names may start with it
        paths, treedef = _tree_util().tree_flatten_with_path(value)
        if not paths:
            raise InputError(f"argument {argument}: a pytree with no arrays (no leaf)")
        names = []
        for path, leaf in paths:
            where = argument + _tree_util().keystr(path)
            if np.iscomplexobj(leaf):
                raise InputError(
                    f"argument {where} is complex: the derivatives are of real arguments"
                    " (give its real and imaginary parts as leaves of their own)"
                )
            if not _numbers(leaf):
                raise InputError(f"argument {where}: a {type(leaf).__name__}, not numbers")
            if argument not in params and integer_kind(leaf):
                raise InputError(
                    f"argument {where}: an array of {integer_kind(leaf)} in a differentiated"
                    " pytree; index data is an argument of its own, or one named in params="
                )
            names.append(_identifier([argument, *map(_key_text, path)], taken))
            self.labels.append(where)
            self.leaves.append(leaf)
        self.treedefs.append(treedef)
        self.names += names
        return names

    def _output_structure(self, point: Sequence[Any]) -> tuple[Any, list[str] | None]:
        """The structure of ``f``'s result at the point (:attr:`out_treedef`, its leaves'
        shapes :attr:`output_shapes`) and the names the flat function returns its leaves
        under (None: a tuple); ``(None, None)`` where it is one array (returned as it is).

        Raises
        ------
        InputError
            ``f`` raised at the point: one line naming the exception (a function that
            takes no pytree there, ``x[1:]`` of a dict).
        """
        try:
            out = _result_of(self.f, point)
        except Exception as exc:  # any failure of the user's code: one line
            why = " ".join(f"{type(exc).__name__}: {exc}".split())
            why = why if len(why) <= 120 else why[:119] + "…"
            raise InputError(
                f"{getattr(self.f, '__name__', 'f')}: called with the point's pytrees it"
                f" raised {why}"
            ) from None
        paths, self.out_treedef = _tree_util().tree_flatten_with_path(out)
        self.output_shapes = [
            tuple(v.shape if hasattr(v, "shape") else np.shape(v)) for _, v in paths
        ]
        if len(paths) == 1 and not self.out_treedef.children():
            return None, None
        taken: set[str] = set()
        keys = [_identifier([_key_text(k) for k in p], taken) for p, _ in paths]
        dicts = isinstance(out, Mapping) and keys == sorted(keys)  # JAX sorts a dict's keys
        return True, (keys if dicts else None)

    def unflatten_arguments(self, leaves: Sequence[Any]) -> list[Any]:
        """``f``'s arguments rebuilt from ``leaves`` (one per leaf, flatten order)."""
        rest = iter(leaves)
        arguments = []
        for treedef in self.treedefs:
            if treedef is None:
                arguments.append(next(rest))
            else:
                arguments.append(
                    _tree_util().tree_unflatten(
                        treedef, [next(rest) for _ in range(treedef.num_leaves)]
                    )
                )
        return arguments

    def output_leaves(self, out: Any) -> Any:
        """``f``'s result as the flat function returns it: itself where it is not a
        pytree, else its leaves (a dict keyed by :attr:`output_keys`, or a tuple)."""
        if self.output is None:
            return out
        leaves = _tree_util().tree_leaves(out)
        if len(leaves) == 1:
            return leaves[0]
        if self.output_keys is None:
            return tuple(leaves)
        return dict(zip(self.output_keys, leaves, strict=True))

    @property
    def flat(self) -> Leaves:
        """The function of the leaves, which the readers read (:class:`Leaves`)."""
        return Leaves(self)

    def add_note(self, graph: Any) -> None:
        """Add to ``graph``'s notes the one naming the pytrees' leaves, its inputs (none
        where every argument is an array)."""
        named = [f"{n} = {k}" for n, k in zip(self.names, self.labels, strict=True) if n != k]
        if named:
            graph.notes.append("the pytree arguments' leaves are its inputs: " + ", ".join(named))


class Leaves:
    """``f`` of pytrees (:class:`Pytrees`) as the function of their leaves: it rebuilds
    the pytrees, calls ``f`` and returns its result's leaves. It presents ``f``'s code,
    globals and closure (the readers name vertices after ``f``'s local variables and
    choose JAX or NumPy by its code, as for ``f`` itself) and a signature of the leaves'
    names; picklable where ``f`` is."""

    def __init__(self, trees: Pytrees) -> None:
        self.trees = trees
        for name in PRESENTED:
            if hasattr(trees.f, name):
                setattr(self, name, getattr(trees.f, name))
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        self.__signature__ = inspect.Signature([inspect.Parameter(n, kind) for n in trees.names])

    def __call__(self, *leaves: Any) -> Any:
        trees = self.trees
        return trees.output_leaves(trees.f(*trees.unflatten_arguments(leaves)))

    def __reduce__(self) -> tuple[Any, ...]:
        return Leaves, (self.trees,)


def _result_of(f: Callable[..., Any], point: Sequence[Any]) -> Any:
    """``f``'s result at ``point``, its structure and shapes what is wanted: traced by
    ``jax.eval_shape`` (no JAX operation compiled or run: a fresh process compiled each
    one, 0.18 CPU-s for an MLP), else, where JAX cannot trace it (NumPy's functions of
    its values), ``f`` run."""
    import jax

    with warnings.catch_warnings(), np.errstate(all="ignore"), x64(jax):
        warnings.simplefilter("ignore")
        try:
            return jax.eval_shape(f, *point)
        except Exception:  # a NumPy function: run, and what it raises is f's
            return f(*point)


def _tree_util() -> Any:
    """JAX's ``tree_util`` (imported where a pytree is met: JAX is optional)."""
    from jax import tree_util

    return tree_util


def _numbers(leaf: Any) -> bool:
    """Whether a leaf is an array of numbers (or a number)."""
    try:
        return np.asarray(leaf).dtype.kind in "biuf"
    except (TypeError, ValueError):
        return False


def has_jax() -> bool:
    """Whether JAX (its ``tree_util``) is installed: pytrees need it."""
    return importlib.util.find_spec("jax") is not None


def pytrees_of(
    f: Callable[..., Any], point: Sequence[Any] | None, params: Sequence[str], output: bool = False
) -> Pytrees | None:
    """``f`` of the pytree arguments in ``point`` as a function of their leaves
    (:class:`Pytrees`); None where no point entry is a pytree (unless ``output``: its
    result is one, :func:`output_is_pytree`), or JAX is not installed (the reader refuses
    the pytree then, as before)."""
    if point is None or isinstance(point, (str, bytes)) or not isinstance(point, Sequence):
        return None
    if not (output or any(is_pytree(v) for v in point)) or not has_jax():
        return None
    return Pytrees(f, point, params)


def output_is_pytree(f: Callable[..., Any], point: Sequence[Any], traced: bool) -> bool:
    """Whether ``f``'s result at ``point`` is a pytree other than one array or a flat
    tuple or list of them (those keep their flat results): a dict, a NamedTuple, a
    nesting. ``traced``: ``f`` uses JAX, and ``jax.eval_shape`` traces it without
    running it; else it is run. False where it fails (the reader read it, so it does
    not) or JAX is not installed."""
    if not has_jax():
        return False
    import jax

    try:  # in float64, as every reading: a float32 run would leave JAX a float32 copy
        # of f's NumPy constants (jax_precision), which the reading after it would read
        with warnings.catch_warnings(), np.errstate(all="ignore"), x64(jax):
            warnings.simplefilter("ignore")
            out = _result_of(f, point) if traced else f(*point)
    except Exception:  # the reader read f; a failure here keeps the flat results
        return False
    if isinstance(out, (list, tuple)) and not hasattr(out, "_fields"):
        return any(isinstance(v, (list, tuple, Mapping)) for v in out)
    return isinstance(out, Mapping) or hasattr(out, "_fields")


def flat_arguments(
    f: Callable[..., Any], point: Sequence[Any] | None, params: Sequence[str], sizes: Any
) -> tuple[Callable[..., Any], Sequence[Any] | None, Sequence[str], Pytrees | None]:
    """``(f, point, params, trees)`` read as the readers read them: of the leaves where
    ``point`` holds pytrees (``trees`` their :class:`Pytrees`), as given otherwise.

    Raises
    ------
    InputError
        ``sizes=`` beside pytree arguments (their shapes are the point's).
    """
    trees = pytrees_of(f, point, params)
    if trees is None:
        return f, point, params, None
    if sizes is not None:
        raise InputError("pytree arguments: give point= alone (sizes= cannot say a pytree)")
    return trees.flat, trees.leaves, trees.params, trees
