"""The array passes' ``optimize_statements`` replayed on the calls a test run made: CPU
seconds and an md5 of the outputs' text; with ``--against FILE`` (another checkout's
dgraph/codegen/array_passes.py, loaded as a module of this one's package) both, each
call given to one then the other in turn on copies of its own, so that the machine's
drifts fall on both alike.

Record the calls (a pytest plugin; each call's statements and results, pickled):

    PASSES_CAPTURE=/tmp/cil.pkl PYTHONPATH=.:benchmarks python -m pytest \\
        tests/test_cond_in_loop.py -n0 -q -p passes_replay

Replay them:

    PYTHONPATH=. python benchmarks/passes_replay.py /tmp/cil.pkl [--against OLD.py]
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
import time

from dgraph.codegen import array_passes, ir

MARKS = ("_optimized", "_text", "_shapes", "_shapes_of")  # what a pass keeps on a body

# -- recording (a pytest plugin) -----------------------------------------------------

_records: list = []
_plain = array_passes.optimize_statements


def _recorded(statements, results):
    statements, results = list(statements), list(results)
    out = _plain(statements, results)
    _records.append((statements, results))
    return out


def pytest_configure(config):
    if not os.environ.get("PASSES_CAPTURE"):
        return
    array_passes.optimize_statements = _recorded
    for name, module in list(sys.modules.items()):  # those that imported it by name
        if name.startswith("dgraph") and getattr(module, "optimize_statements", None) is _plain:
            module.optimize_statements = _recorded


def pytest_sessionfinish(session):
    path = os.environ.get("PASSES_CAPTURE")
    if path:
        with open(path, "wb") as f:
            pickle.dump(_records, f, protocol=pickle.HIGHEST_PROTOCOL)


# -- replay ----------------------------------------------------------------------------


def _unmarked(statements, seen: set) -> None:
    """The loop bodies' marks of an earlier pass taken off (as the run first saw them)."""
    for s in statements:
        v = s.value
        parts = []
        if isinstance(v, ir.Loop):
            parts = [v.body]
        elif isinstance(v, ir.While):
            parts = [v.body, v.cond]
        elif isinstance(v, ir.Cond):
            parts = list(v.branches)
        for part in parts:
            if id(part) not in seen:
                seen.add(id(part))
                for mark in MARKS:
                    part.__dict__.pop(mark, None)
                _unmarked(part.statements, seen)


def load(paths: list[str]) -> list:
    calls = []
    for path in paths:
        with open(path, "rb") as f:
            calls += pickle.load(f)
    seen: set = set()
    for statements, _ in calls:
        _unmarked(statements, seen)
    return calls


def _against(path: str):
    spec = importlib.util.spec_from_file_location("dgraph.codegen._against", path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "dgraph.codegen"
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    args = sys.argv[1:]
    other = None
    if "--against" in args:
        at = args.index("--against")
        other = _against(args[at + 1])
        del args[at : at + 2]
    passes = [("this", array_passes)] + ([("against", other)] if other else [])
    copies = {name: load(args) for name, _ in passes}
    spent = dict.fromkeys(copies, 0.0)
    digest = {name: hashlib.md5() for name in copies}
    for k in range(len(copies["this"])):
        order = passes if k % 2 == 0 else passes[::-1]
        for name, module in order:
            statements, results = copies[name][k]
            start = time.process_time()
            out = module.optimize_statements(statements, results)
            spent[name] += time.process_time() - start
            digest[name].update(repr(out).encode())
    for name in copies:
        md5 = digest[name].hexdigest()
        print(f"{name}: {len(copies[name])} calls, {spent[name]:.3f} CPU-s, md5 {md5}")
    if other:
        print(f"ratio this / against: {spent['this'] / spent['against']:.3f}")
