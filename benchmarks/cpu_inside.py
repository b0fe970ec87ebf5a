"""A pytest plugin: the calls to some functions and the CPU seconds inside them (the
outermost call of each nesting only), printed when the session ends; the functions
named in ``CPU_INSIDE`` as ``module:name,name;module:name``, each replaced wherever a
dgraph module imported it by name.

    CPU_INSIDE="dgraph.codegen.array_passes:node_shapes,array_shapes,count_array_ops" \\
        PYTHONPATH=.:benchmarks python -m pytest tests/test_dynamic_scatter.py -n0 -q -p cpu_inside
    CPU_INSIDE="dgraph.core.regions:tangent_sweep" ...   # a loop's tangent sweeps
"""

from __future__ import annotations

import importlib
import os
import sys
import time

_state = {"depth": 0, "calls": 0, "cpu": 0.0}
_swapped: dict = {}  # the function -> its timed stand-in


def _timed(f):
    def timed(*args, **kwargs):
        if _state["depth"]:
            return f(*args, **kwargs)
        _state["depth"] += 1
        _state["calls"] += 1
        start = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            _state["cpu"] += time.process_time() - start
            _state["depth"] -= 1

    return timed


def _swap() -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith("dgraph") and module is not None:
            for attribute, value in list(vars(module).items()):
                if callable(value) and value in _swapped:
                    setattr(module, attribute, _swapped[value])


def pytest_configure(config):
    for part in filter(None, os.environ.get("CPU_INSIDE", "").split(";")):
        module_name, _, names = part.partition(":")
        module = importlib.import_module(module_name)
        for name in names.split(","):
            f = getattr(module, name)
            _swapped[f] = _timed(f)
    _swap()


def pytest_collection_finish(session):
    _swap()  # the modules the tests imported since


def pytest_sessionfinish(session):
    if _swapped:
        print(f"\ncpu_inside: {_state['calls']} outermost calls, {_state['cpu']:.3f} CPU-s")
