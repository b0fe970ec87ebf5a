"""Arrays the generated module holds as constants: index arrays of block patterns and
constant operands, computed once at generation time. Small ones are printed as literals;
the others as base64 text of their zlib-compressed bytes (one line each, whatever their
size), decoded once when the module is imported."""

from __future__ import annotations

import base64
import math
import zlib

import numpy as np

from ..ir import Name

__all__ = ["DECODER", "Constants", "decoder", "number_source"]

LITERAL_LIMIT = 8  # arrays of at most this many entries are printed as literals

DECODER = '''def _array(text, dtype, shape, delta=None, start=0, levels=None, count=None):
    """An array the generator computed, from its compressed bytes (an index array from
    the differences of its entries, of type ``delta``, the first from ``start``; an
    array of a few distinct values from each entry's place among ``levels``; ``count``
    entries 0 or, where a bit is set, the number of bits set so far)."""
    raw = zlib.decompress(base64.b64decode(text))
    if count is not None:
        bits = numpy.unpackbits(numpy.frombuffer(raw, numpy.uint8), count=count)
        return (numpy.cumsum(bits).astype(dtype) * bits).reshape(shape)
    if levels is not None:
        return numpy.asarray(levels, dtype)[numpy.frombuffer(raw, numpy.uint8)].reshape(shape)
    if delta is None:
        return numpy.frombuffer(raw, dtype).reshape(shape)
    flat = numpy.cumsum(numpy.frombuffer(raw, delta))
    if start:
        flat += start
    return flat.astype(dtype).reshape(shape)'''


def decoder(lang: str) -> str:
    """The module's ``_array``. A NumPy module widens its index arrays to ``numpy.intp``
    when it is imported: NumPy converts narrower indices on every gather and
    ``add.at`` (each some 2x slower with int32), while a JAX module keeps them narrow."""
    if lang != "python":
        return DECODER
    return DECODER.replace(".astype(dtype)", ".astype(numpy.intp)")


def number_source(value) -> str:
    """An entry as Python source: ``numpy.inf``, ``-numpy.inf`` and ``numpy.nan`` for the
    values whose ``repr`` names no Python value (``-inf``: a max reduction's start)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "numpy.nan" if math.isnan(value) else "numpy.inf" if value > 0 else "-numpy.inf"
    return repr(value)


def _entries(array: np.ndarray) -> str:
    """A small array's nested list as Python source (``array.tolist()`` written out)."""
    if array.ndim == 0:
        return number_source(array.item())
    if array.ndim == 1:
        return "[" + ", ".join(number_source(v) for v in array.tolist()) + "]"
    return "[" + ", ".join(_entries(row) for row in array) + "]"


def _steps(flat: np.ndarray) -> tuple[np.ndarray, int]:
    """The differences of an integer vector's entries, the first from the returned
    start (0, or the first entry where only it does not fit the narrow type), in the
    narrowest of int8, int16, int32 and int64 that holds them: a pattern's steps are
    mostly small, so fewer bytes to compress, store and decode (NumPy's ``cumsum`` of a
    narrow type sums in the platform integer). Computed in int32 when the entries are
    int32 and none is negative (each difference then lies strictly between -2³¹ and
    2³¹), else in int64."""
    if flat.dtype == np.int32 and flat.min() >= 0:
        steps = np.empty(flat.size, dtype=np.int32)
        steps[0] = flat[0]
        np.subtract(flat[1:], flat[:-1], out=steps[1:])
    else:
        steps = np.diff(flat.astype(np.int64), prepend=0)
    start = 0
    low, high = (int(steps[1:].min()), int(steps[1:].max())) if steps.size > 1 else (0, 0)
    for narrow in (np.int8, np.int16, np.int32):
        limits = np.iinfo(narrow)
        if limits.min <= low and high <= limits.max:
            if not limits.min <= steps[0] <= limits.max:
                start = int(steps[0])
                steps[0] = 0
            return (steps if steps.dtype == narrow else steps.astype(narrow)), start
    return steps, start


SAMPLE = 1 << 14  # entries of a large array its checksum reads (equal keys compared whole)


def _checksum(flat: np.ndarray) -> int:
    """A CRC-32 of a flat array's first and last entries and of an evenly strided sample
    of the rest: equal arrays get equal checksums, different ones almost always
    different ones, at a fixed cost per array."""
    if flat.size <= 3 * SAMPLE:
        return zlib.crc32(flat.view(np.uint8))
    step = flat.size // SAMPLE
    found = zlib.crc32(flat[:SAMPLE].view(np.uint8))
    found = zlib.crc32(flat[-SAMPLE:].view(np.uint8), found)
    return zlib.crc32(np.ascontiguousarray(flat[::step]).view(np.uint8), found)


def _words(array: np.ndarray) -> np.ndarray:
    """A contiguous array's bytes as unsigned integers of its item size (1, 2, 4 or 8
    bytes; else bytes): equal exactly where the bytes are (-0.0 and 0.0 differ, a NaN
    equals itself), compared a word at a time, not a byte at a time (some twice as fast
    for 10⁷ entries)."""
    flat = array.reshape(-1)
    size = flat.dtype.itemsize
    return flat.view(f"u{size}" if size in (1, 2, 4, 8) else np.uint8)


class Constants:
    """The module-level arrays, each once (equal arrays share a name)."""

    def __init__(self, keep_arrays: bool = False) -> None:
        self._text: dict[str, str] = {}  # by name: its line, once made
        self._pending: dict[str, tuple[np.ndarray | str, bool]] = {}  # by name: line to make
        self.arrays: dict[str, np.ndarray] = {}  # by name: what folding and the C printer read
        self.shapes: dict[str, tuple[int, ...]] = {}  # by name
        self.keep_arrays = keep_arrays
        self._names: dict[tuple[str, tuple[int, ...], int], list[str]] = {}  # by checksum
        self._made = 0  # names given (kept or dropped): a new name never repeats one
        self._derived: dict[str, tuple[str, tuple[str, ...]]] = {}  # by text: name, reads

    def index(self, array: np.ndarray) -> Name:
        """An integer array, stored in the narrowest of int32 and int64 that holds it (a
        boolean one as it is: a mask)."""
        array = np.asarray(array)
        if array.dtype == np.bool_:
            return self.add(array)
        if array.dtype != np.int32:
            array = np.asarray(array, dtype=np.int64)
            small = array.size == 0 or (array.min() >= -(2**31) and array.max() < 2**31)
            array = array.astype(np.int32) if small else array
        return self.add(array, delta=True)

    def add(self, array: np.ndarray, delta: bool = False) -> Name:
        """The name of a module-level constant holding ``array`` (``delta``: an integer
        array stored as the differences of its entries, which compress far better: a
        pattern's column indices repeat the same few steps)."""
        array = np.ascontiguousarray(array).reshape(np.shape(array))  # a 0-d array stays 0-d
        # keyed by a checksum of a sample, not the bytes (10⁷ entries each); equal keys
        # compared whole
        data = _words(array)
        key = (array.dtype.str, tuple(array.shape), _checksum(array.reshape(-1)))
        for known in self._names.get(key, ()):
            if np.array_equal(_words(self.arrays[known]), data):
                return Name(known)
        name = f"_K{self._made}"
        self._made += 1
        self._names.setdefault(key, []).append(name)
        self.shapes[name] = tuple(array.shape)
        self.arrays[name] = array
        self._pending[name] = (array, delta)
        return Name(name)

    def derived(self, text: str, reads: tuple[Name, ...]) -> Name:
        """The name of a module-level value computed once, at import, by the expression
        ``text`` from the constants ``reads`` (made before it: its line follows theirs),
        each expression once; kept where its name is (:meth:`keep`), with its reads."""
        if text in self._derived:
            return Name(self._derived[text][0])
        name = f"_K{self._made}"
        self._made += 1
        self._derived[text] = (name, tuple(r.id for r in reads))
        self._pending[name] = (text, False)  # its line's text, not an array's
        return Name(name)

    @property
    def lines(self) -> list[str]:
        """The module's constant lines, in the order the constants were made: each
        array's text (compressed, base64) made the first time the lines are read, so
        that a constant dropped before then (:meth:`keep`) is never encoded."""
        for name, (array, delta) in self._pending.items():
            made = array if isinstance(array, str) else _text(array, delta)  # derived: text
            self._text[name] = f"{name} = {made}"
        self._pending.clear()
        return list(self._text.values())

    @property
    def needs_scipy_sparse(self) -> bool:
        """Whether a derived value is a SciPy sparse matrix (the module imports
        ``scipy.sparse`` then, dense or not)."""
        return any(text.startswith("scipy.sparse.") for text in self._derived)

    def keep(self, used: set[str]) -> None:
        """Drop the constants no name in ``used`` refers to (those only folded code read)
        but those a kept derived value reads."""
        derived = dict(self._derived.values())
        used = set(used)
        used |= {r for name in used & derived.keys() for r in derived[name]}
        self._derived = {k: v for k, v in self._derived.items() if v[0] in used}
        self._pending = {k: v for k, v in self._pending.items() if k in used}
        self._text = {k: v for k, v in self._text.items() if k in used}
        self.arrays = {k: v for k, v in self.arrays.items() if k in used}
        self.shapes = {k: v for k, v in self.shapes.items() if k in used}
        kept = {key: [n for n in names if n in used] for key, names in self._names.items()}
        self._names = {key: names for key, names in kept.items() if names}

    def park(self, read: set[str]) -> None:
        """Let go of the arrays no name in ``read`` refers to, nor a derived value (the
        inputs of folded code, dead once folded: some 0.5 GB of indices held to the end
        at 10⁶ unknowns otherwise), as :meth:`keep` drops them, their shapes kept: a name
        once let go is not given again (an equal array added later gets a new one)."""
        used = set(read) | {r for name, reads in self._derived.values() for r in (name, *reads)}
        self._pending = {k: v for k, v in self._pending.items() if k in used}
        self._text = {k: v for k, v in self._text.items() if k in used}
        self.arrays = {k: v for k, v in self.arrays.items() if k in used}
        kept = {key: [n for n in names if n in used] for key, names in self._names.items()}
        self._names = {key: names for key, names in kept.items() if names}

    @property
    def needs_decoder(self) -> bool:
        return any("_array(" in line for line in self.lines)


def _text(array: np.ndarray, delta: bool) -> str:
    """An array as Python source: a literal when small, else ``_array(...)`` of its
    compressed bytes (``delta``: of the differences of its entries)."""
    dtype = array.dtype.name
    if array.size == 0 and array.ndim > 1:  # a nested list would lose its shape: (0, 2)
        return f"numpy.zeros({tuple(array.shape)!r}, dtype=numpy.{dtype})"
    if array.size <= LITERAL_LIMIT:
        return f"numpy.array({_entries(array)}, dtype=numpy.{dtype})"
    if delta and _counts(array.reshape(-1)):  # a scatter's places read as a gather
        packed = base64.b64encode(zlib.compress(np.packbits(array != 0), 1)).decode()
        shape = tuple(array.shape)
        return f"_array({packed!r}, numpy.{dtype}, {shape!r}, count={array.size})"
    if delta:
        steps, start = _steps(array.reshape(-1))
        packed = base64.b64encode(zlib.compress(steps, 1)).decode("ascii")
        shape = tuple(array.shape)
        tail = f", {start}" if start else ""
        return f"_array({packed!r}, numpy.{dtype}, {shape!r}, numpy.{steps.dtype.name}{tail})"
    found = _levels(array.reshape(-1))
    if found is not None:  # each entry's level, a byte each
        levels, codes = found
        packed = base64.b64encode(zlib.compress(codes, 1)).decode("ascii")
        listed = "[" + ", ".join(number_source(v) for v in levels) + "]"
        return f"_array({packed!r}, numpy.{dtype}, {tuple(array.shape)!r}, levels={listed})"
    packed = base64.b64encode(zlib.compress(_bytes(array), 1)).decode("ascii")
    return f"_array({packed!r}, numpy.{dtype}, {tuple(array.shape)!r})"


def _bytes(array: np.ndarray):
    """A contiguous array's bytes for ``zlib.compress``, not copied (its buffer, as
    ``tobytes`` would copy it, C order), a 0-d or empty array's copied."""
    if array.ndim and array.size and array.flags.c_contiguous:
        return array.reshape(-1).view(np.uint8)
    return array.tobytes()


def _counts(flat: np.ndarray) -> bool:
    """Whether a large integer vector's entries are 0 or, where not, 1, 2, 3, … in order
    (the places of a scatter's values in a vector padded with one 0 in front): stored as
    one bit an entry, where the differences of its entries would take four bytes."""
    if flat.size < 4 * LEVELS or flat.dtype.kind not in "iu" or flat[0] not in (0, 1):
        return False
    head = flat[: 4 * LEVELS]  # most index vectors leave the order in their first entries
    if not np.array_equal(head, np.cumsum(head != 0) * (head != 0)):
        return False
    bits = flat != 0
    return bool(np.array_equal(flat, np.cumsum(bits, dtype=flat.dtype) * bits))


LEVELS = 16  # distinct values up to which a float array is stored as each entry's level


def _levels(flat: np.ndarray) -> tuple[list[float], np.ndarray] | None:
    """A float64 array of at most :data:`LEVELS` distinct finite values (a stencil's
    coefficients, folded): those values and each entry's place among them (uint8), the
    entries compared bit for bit; None for any other array. Found from the first
    entries' values, then one comparison per value over the whole array."""
    if flat.dtype != np.float64 or flat.size < 4 * LEVELS:
        return None
    bits = flat.view(np.int64)
    seen = np.unique(bits[: 64 * LEVELS])
    if seen.size > LEVELS or not np.isfinite(seen.view(np.float64)).all():
        return None
    codes = np.zeros(flat.size, dtype=np.uint8)
    counted = 0
    for k, level in enumerate(seen):
        hit = bits == level
        counted += int(np.count_nonzero(hit))
        if k:  # the first level's code is 0 already
            codes[hit] = k
    if counted != flat.size:  # a value the first entries do not hold
        return None
    return [float(v) for v in seen.view(np.float64)], codes
