"""How the suite's processes compile with XLA: its flags, and one compilation cache for
the processes of a test run.

**Flags.** The tests compile thousands of small programs to check values, never speed
(benchmarks/ time the optimized code), so XLA's LLVM optimizations are off
(``--xla_backend_optimization_level=0``: the JAX-heavy files ~7 % less CPU), its CPU
backend emits fused loops by its older emitters (``--xla_cpu_use_fusion_emitters=false``:
each small program compiles in about a third of the CPU; test_rules_vs_jax 108 -> 75
CPU-s) and as one LLVM module (``--xla_cpu_parallel_codegen_split_count=1``: four
JAX-heavy files 81-83 -> 77-80 CPU-s, as ``ONE_MODULE`` in
dgraph/frontends/jaxpr_arrays.py). All are the same IEEE arithmetic. XLA aborts the
process on a flag it does not know, so the last two are set only where a process with
them has started JAX and compiled a program (one probe per run, remembered in pytest's
cache per jaxlib). ``XLA_FLAGS`` set
by the caller is kept; the processes a test starts inherit the flags.

**Cache.** A program one worker compiled, another loads instead of compiling it again
(JAX compiles each eager primitive once per shape *per process*, and each worker meets
most of them). JAX's own file cache writes an entry in place, so a process may read an entry another
is still writing (JAX then warns, which fails the tests that turn warnings into errors);
its locked variant rescans the whole directory on every write. This one writes each entry
to a temporary file and renames it into place (``os.replace``, atomic on one file
system): a reader finds a whole entry or none. The key is JAX's (the program's text,
jaxlib's version, the platform, XLA's flags and the compile options), so what a process
loads is what it would have compiled.

It is private to the run: the directory is made by the process that starts the run and
removed when it ends; it is passed to the workers in :data:`ENV`, never in JAX's own
variables, so the processes a test starts (the command line, notebook kernels) compile as
they would for a user. ``DGRAPH_TEST_XLA_CACHE=`` (empty) turns it off; a cache the
caller configured for JAX (``JAX_COMPILATION_CACHE_DIR``) is left alone. It relies on
names inside JAX (``jax._src.compilation_cache``); where they are missing it does nothing
and every program is compiled, as without it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

ENV = "DGRAPH_TEST_XLA_CACHE"
FLAGS = "--xla_backend_optimization_level=0"  # any XLA
PROBED = (  # where this XLA knows them: probed
    "--xla_cpu_use_fusion_emitters=false --xla_cpu_parallel_codegen_split_count=1"
)
_PROBE = "import jax.numpy as jnp; (jnp.arange(3.0) * 2.0).block_until_ready()"


def _flags(config) -> str:
    """:data:`FLAGS`, and :data:`PROBED` if a JAX process started with them compiles."""
    try:
        jaxlib = metadata.version("jaxlib")
    except metadata.PackageNotFoundError:
        return FLAGS
    cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
    seen = cache.get("dgraph/xla_probed", {}) if cache is not None else {}
    here = f"{sys.executable} jaxlib {jaxlib}"
    known = seen.get(here) if isinstance(seen, dict) else None
    if known is None:
        env = {**os.environ, "XLA_FLAGS": f"{FLAGS} {PROBED}"}
        try:
            run = subprocess.run(
                [sys.executable, "-c", _PROBE], env=env, capture_output=True, timeout=300
            )
            known = run.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return FLAGS  # not remembered: asked again next run
        if cache is not None:
            cache.set(
                "dgraph/xla_probed", {**(seen if isinstance(seen, dict) else {}), here: known}
            )
    return f"{FLAGS} {PROBED}" if known else FLAGS


class _AtomicFiles:
    """JAX's cache interface (``get``, ``put``) over one directory: an entry per file,
    written whole under a temporary name and renamed. Best effort: an entry that cannot
    be read is a miss and one that cannot be written is dropped (the program compiled is
    used either way), so a full disk does not turn into JAX's warning."""

    def __init__(self, path: str) -> None:
        self._path = Path(path)

    def get(self, key: str) -> bytes | None:
        try:
            return (self._path / key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, value: bytes) -> None:
        target = self._path / key
        if target.exists():
            return
        temporary = None
        try:
            fd, temporary = tempfile.mkstemp(dir=self._path, prefix=".part-")
            with os.fdopen(fd, "wb") as file:
                file.write(value)
            os.replace(temporary, target)
        except OSError:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)


def _install(path: str) -> bool:
    """Make ``path`` this process's JAX compilation cache; False where JAX is missing,
    its cache is already set up, or the names this needs are not there."""
    try:
        import jax
        from jax._src import compilation_cache as cc
    except ImportError:
        return False
    names = (
        "_cache",
        "_cache_initialized",
        "_cache_initialized_mutex",
        "is_persistent_cache_enabled",
    )
    if not all(hasattr(cc, n) for n in names) or cc.is_persistent_cache_enabled():
        return False
    with cc._cache_initialized_mutex:
        if cc._cache is not None or cc._cache_initialized:
            return False
        cc._cache = _AtomicFiles(path)
        cc._cache_initialized = True
    jax.config.update("jax_compilation_cache_dir", path)
    # the suite's programs all compile in under JAX's default threshold of a second
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return True


def configure(config) -> None:
    """``pytest_configure``, before any test (XLA reads its flags when JAX's backend
    starts): the process that starts the run sets the flags and makes the cache's
    directory (its workers inherit both); a process that runs tests installs the cache."""
    worker = hasattr(config, "workerinput")
    if not worker and "XLA_FLAGS" not in os.environ:
        os.environ["XLA_FLAGS"] = _flags(config)
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return
    if not worker and ENV not in os.environ:
        path = tempfile.mkdtemp(prefix="dgraph-xla-cache-")
        os.environ[ENV] = path
        config._dgraph_xla_cache = path  # removed by unconfigure
    path = os.environ.get(ENV, "")
    distributing = not worker and getattr(config.option, "dist", "no") != "no"
    if path and not distributing:
        _install(path)


def unconfigure(config) -> None:
    """``pytest_unconfigure``: the directory is removed by the process that made it."""
    path = getattr(config, "_dgraph_xla_cache", None)
    if path:
        shutil.rmtree(path, ignore_errors=True)
        os.environ.pop(ENV, None)
