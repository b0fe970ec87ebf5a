"""The suite's XLA setup (tests/xla_compile.py): the shared compilation cache writes whole
entries only, and the process running these tests compiles through it."""

from __future__ import annotations

import os

import numpy as np

from tests import xla_compile
from tests.xla_compile import _AtomicFiles


def test_an_entry_is_read_back_whole_and_written_once(tmp_path):
    cache = _AtomicFiles(str(tmp_path))
    assert cache.get("jit_f-0") is None
    cache.put("jit_f-0", b"first")
    cache.put("jit_f-0", b"second")  # a key is written once: the first entry stays
    assert cache.get("jit_f-0") == b"first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jit_f-0"]  # no part left


def test_a_failed_write_leaves_neither_entry_nor_part(tmp_path, monkeypatch):
    """The entry is dropped, not raised (JAX would warn, failing warnings-as-errors
    tests): the program compiled is used either way."""
    cache = _AtomicFiles(str(tmp_path))
    refused = []

    def refuse(source, target):
        refused.append(target)
        raise OSError("disk full")

    monkeypatch.setattr(xla_compile.os, "replace", refuse)
    cache.put("jit_g-1", b"x" * 1000)
    assert refused == [tmp_path / "jit_g-1"]
    assert list(tmp_path.iterdir()) == []
    assert cache.get("jit_g-1") is None
    missing = _AtomicFiles(str(tmp_path / "removed"))  # the run's directory gone
    missing.put("jit_h-2", b"y")
    assert missing.get("jit_h-2") is None


def test_this_process_compiles_with_the_suite_s_flags_and_cache():
    """XLA's flags are set before JAX starts; where the run made a cache (not turned off,
    no cache of the caller's), a program this process compiles is written to it."""
    assert xla_compile.FLAGS in os.environ["XLA_FLAGS"]
    path = os.environ.get(xla_compile.ENV, "")
    if not path or "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return  # the caller turned it off, or brought JAX a cache of their own
    import jax
    from jax._src import compilation_cache

    assert isinstance(compilation_cache._cache, _AtomicFiles)
    before = set(os.listdir(path))
    scale = float(np.random.default_rng().uniform(2.0, 3.0))  # a program no test compiled
    got = jax.jit(lambda x: x * scale + 1.0)(np.arange(3.0))
    np.testing.assert_allclose(np.asarray(got), np.arange(3.0) * scale + 1.0)
    assert set(os.listdir(path)) - before
