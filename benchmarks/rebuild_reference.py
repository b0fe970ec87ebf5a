"""Repeated builds of one program in one process (issue 55, the check's jit_jvp): CPU
seconds per build, XLA compiles of the reference ``jit(jvp)`` and resident memory.

    PYTHONPATH=CHECKOUT python benchmarks/rebuild_reference.py PROGRAM SIZE BUILDS

``make_function(f, mode, "python", point=[x])`` of ``benchmarks/real_programs_hessian.py``'s
PROGRAM at SIZE, BUILDS times, the modes hessian, hvp and value_gradient_hessian in turn,
one line each (CPU seconds by :func:`time.process_time`; the compiles' wall seconds as
JAX logs them); the last line sums builds 2.. (the first pays the process's one-off
compiles).
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MODES = ("hessian", "hvp", "value_gradient_hessian")


class _Compiles(logging.Handler):
    """The wall seconds of each XLA compile of ``jit(jvp)`` JAX logs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seconds: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("Finished XLA compilation of jit(jvp)"):
            self.seconds.append(float(message.split(" in ")[1].split()[0]))


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def main(name: str, size: int, builds: int) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import real_programs_hessian as programs

    import dgraph

    compiles = _Compiles()
    logging.getLogger("jax._src.dispatch").addHandler(compiles)
    logging.getLogger("jax").propagate = False
    jax.config.update("jax_log_compiles", True)
    spent = []
    for b in range(builds):
        p = programs.PROGRAMS[name][0](size)
        before, t0 = len(compiles.seconds), time.process_time()
        dgraph.make_function(p.f, MODES[b % 3], "python", point=[p.x])
        spent.append(time.process_time() - t0)
        new = compiles.seconds[before:]
        print(
            f"{name} build {b} ({MODES[b % 3]}): {spent[-1]:.2f} CPU-s, jit(jvp) compiles"
            f" {len(new)} ({sum(new):.2f} s wall), rss {_rss_mb():.0f} MB",
            flush=True,
        )
    print(
        f"{name}: builds 2..: {sum(spent[1:]):.2f} CPU-s; jit(jvp) compiles"
        f" {len(compiles.seconds)}",
        flush=True,
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
