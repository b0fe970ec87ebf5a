"""Arrays the generated module holds as constants: index arrays of block patterns and
constant operands, computed once at generation time. Small ones are printed as literals;
the others as base64 text of their zlib-compressed bytes (one line each, whatever their
size), decoded once when the module is imported."""

from __future__ import annotations

import base64
import hashlib
import math
import zlib

import numpy as np

from ..ir import Name

__all__ = ["DECODER", "Constants", "decoder"]

LITERAL_LIMIT = 8  # arrays of at most this many entries are printed as literals

DECODER = '''def _array(text, dtype, shape, delta=None):
    """An array the generator computed, from its compressed bytes (an index array from
    the differences of its entries, of type ``delta``)."""
    raw = zlib.decompress(base64.b64decode(text))
    if delta is None:
        return numpy.frombuffer(raw, dtype).reshape(shape)
    return numpy.cumsum(numpy.frombuffer(raw, delta)).astype(dtype).reshape(shape)'''


def decoder(lang: str) -> str:
    """The module's ``_array``. A NumPy module widens its index arrays to ``numpy.intp``
    when it is imported: NumPy converts narrower indices on every gather and
    ``add.at`` (each some 2x slower with int32), while a JAX module keeps them narrow."""
    if lang != "python":
        return DECODER
    return DECODER.replace(".astype(dtype)", ".astype(numpy.intp)")


def _number(value) -> str:
    """An entry as Python source: ``numpy.inf``, ``-numpy.inf`` and ``numpy.nan`` for the
    values whose ``repr`` names no Python value (``-inf``: a max reduction's start)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "numpy.nan" if math.isnan(value) else "numpy.inf" if value > 0 else "-numpy.inf"
    return repr(value)


def _entries(array: np.ndarray) -> str:
    """A small array's nested list as Python source (``array.tolist()`` written out)."""
    if array.ndim == 0:
        return _number(array.item())
    if array.ndim == 1:
        return "[" + ", ".join(_number(v) for v in array.tolist()) + "]"
    return "[" + ", ".join(_entries(row) for row in array) + "]"


class Constants:
    """The module-level arrays, each once (equal arrays share a name)."""

    def __init__(self, keep_arrays: bool = False) -> None:
        self.lines: list[str] = []
        self.arrays: dict[str, np.ndarray] = {}  # by name: what folding and the C printer read
        self.shapes: dict[str, tuple[int, ...]] = {}  # by name
        self.keep_arrays = keep_arrays
        self._names: dict[tuple[str, tuple[int, ...], bytes], str] = {}  # by content's hash
        self._dropped = 0  # names given and dropped: a new name never repeats one

    def index(self, array: np.ndarray) -> Name:
        """An integer array, stored in the narrowest of int32 and int64 that holds it."""
        array = np.asarray(array, dtype=np.int64)
        small = array.size == 0 or (array.min() >= -(2**31) and array.max() < 2**31)
        return self.add(array.astype(np.int32) if small else array, delta=True)

    def add(self, array: np.ndarray, delta: bool = False) -> Name:
        """The name of a module-level constant holding ``array`` (``delta``: an integer
        array stored as the differences of its entries, which compress far better: a
        pattern's column indices repeat the same few steps)."""
        array = np.ascontiguousarray(array).reshape(np.shape(array))  # a 0-d array stays 0-d
        digest = hashlib.blake2b(array.reshape(-1).view(np.uint8), digest_size=32).digest()
        key = (array.dtype.str, tuple(array.shape), digest)  # not the bytes: 10⁷ entries each
        if key in self._names:
            return Name(self._names[key])
        name = f"_K{len(self._names) + self._dropped}"
        self._names[key] = name
        self.shapes[name] = tuple(array.shape)
        self.arrays[name] = array
        dtype = array.dtype.name
        if array.size <= LITERAL_LIMIT:
            text = f"numpy.array({_entries(array)}, dtype=numpy.{dtype})"
        elif delta:
            steps = np.diff(array.ravel().astype(np.int64), prepend=0)
            fits = steps.min() >= -(2**31) and steps.max() < 2**31
            steps = steps.astype(np.int32 if fits else np.int64)
            packed = base64.b64encode(zlib.compress(steps.tobytes(), 1)).decode("ascii")
            text = (
                f"_array({packed!r}, numpy.{dtype}, {tuple(array.shape)!r},"
                f" numpy.{steps.dtype.name})"
            )
        else:
            packed = base64.b64encode(zlib.compress(array.tobytes(), 1)).decode("ascii")
            text = f"_array({packed!r}, numpy.{dtype}, {tuple(array.shape)!r})"
        self.lines.append(f"{name} = {text}")
        return Name(name)

    def keep(self, used: set[str]) -> None:
        """Drop the constants no name in ``used`` refers to (those only folded code read)."""
        self.lines = [line for line in self.lines if line.partition(" = ")[0] in used]
        self.arrays = {k: v for k, v in self.arrays.items() if k in used}
        self.shapes = {k: v for k, v in self.shapes.items() if k in used}
        kept = {key: name for key, name in self._names.items() if name in used}
        self._dropped += len(self._names) - len(kept)
        self._names = kept

    @property
    def needs_decoder(self) -> bool:
        return any("_array(" in line for line in self.lines)
