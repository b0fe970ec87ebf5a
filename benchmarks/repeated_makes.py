"""How much of the suite's ``make_function`` work repeats an earlier make (session 54).

A pytest plugin, for measuring only (never part of the suite)::

    PYTHONPATH=.:benchmarks python -m pytest -p repeated_makes -n 0 -p no:randomly tests/...

records every outermost ``make_function`` call: the test, the source (a function by its
module and qualified name, anything else by identity), the mode, the language, whether
sparse, a digest of its point, sizes, weights and params, and its CPU seconds; at the end
it prints how many makes (and CPU-s) repeat an earlier one's source, point and kind
(Jacobian, Hessian, value-gradient-Hessian) in the same process and within the same test,
and writes the records to ``$REPEATED_MAKES_OUT`` (default ``/tmp/repeated_makes.json``).

With ``REPEATED_MAKES_SHARE=1`` it also memoizes :func:`dgraph.codegen.hessian.
hessian_source` by the source's identity and the digest: an UPPER BOUND of what sharing a
gradient graph (its kept expression set, its verification, its JAX reference) across
makes could save. It is unsound: a rule monkeypatched between two makes of one function
is not seen (tests/test_cond_in_loop.py::test_a_wrong_rule_in_one_branch_is_caught and
tests/test_loop_hessians.py::test_a_counter_folded_wrong_is_caught fail with it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from typing import Any

import numpy as np

HESSIAN_MODES = ("hessian", "hvp", "value_gradient_hessian")
_records: list[dict] = []
_current = ["?"]
_depth = [0]


def _digest(value: Any) -> str:
    """A digest of nested lists, tuples, dicts and arrays (their bytes), else their repr."""
    found = hashlib.sha256()

    def add(v: Any) -> None:
        if v is None:
            found.update(b"N")
        elif isinstance(v, (list, tuple)):
            found.update(b"(")
            for u in v:
                add(u)
            found.update(b")")
        elif isinstance(v, dict):
            for k in sorted(v, key=str):
                found.update(str(k).encode())
                add(v[k])
        else:
            a = np.asarray(v)
            if a.dtype == object:
                found.update(repr(v).encode())
            else:
                found.update(f"{a.shape}{a.dtype.str}".encode() + a.tobytes())

    add(value)
    return found.hexdigest()[:16]


def _source_key(source: Any) -> str:
    if callable(source) and not hasattr(source, "nx"):
        module = getattr(source, "__module__", "")
        return f"fn:{module}.{getattr(source, '__qualname__', type(source).__name__)}"
    return f"obj:{type(source).__name__}:{id(source)}"


def _share_sources() -> None:
    """Memoize ``hessian_source`` by the source's identity and its arguments' digest."""
    import dgraph.codegen.hessian as hessian

    original = hessian.hessian_source
    kept: dict[tuple, tuple] = {}

    @functools.wraps(original)
    def shared(source: Any, **options: Any) -> Any:
        key = (id(source), _digest([options.get(k) for k in sorted(options)]))
        hit = kept.get(key)
        if hit is not None and hit[0] is source:
            return hit[1]
        made = original(source, **options)
        kept[key] = (source, made)  # the source kept alive: its id is not reused
        return made

    hessian.hessian_source = shared


def pytest_configure(config: Any) -> None:
    import dgraph.codegen.function as function

    original = function.make_function

    @functools.wraps(original)
    def recorded(source: Any, mode: str = "jacobian", *args: Any, **options: Any) -> Any:
        if _depth[0]:
            return original(source, mode, *args, **options)
        _depth[0] += 1
        start = time.process_time()
        try:
            return original(source, mode, *args, **options)
        finally:
            _depth[0] -= 1
            given = [options.get(k) for k in ("point", "sizes", "weights", "params")]
            _records.append(
                {
                    "test": _current[0],
                    "source": _source_key(source),
                    "mode": mode,
                    "lang": options.get("lang", args[0] if args else "python"),
                    "sparse": bool(options.get("sparse")),
                    "given": _digest(given),
                    "cpu": time.process_time() - start,
                }
            )

    function.make_function = recorded
    if os.environ.get("REPEATED_MAKES_SHARE") == "1":
        _share_sources()


def pytest_runtest_setup(item: Any) -> None:
    _current[0] = item.nodeid


def _kind(mode: str) -> str:
    if mode == "value_gradient_hessian":
        return "value_gradient_hessian"
    return "hessian" if mode in HESSIAN_MODES else "jacobian"


def pytest_sessionfinish(session: Any) -> None:
    seen: set[tuple] = set()
    in_test: set[tuple] = set()
    again = [0, 0.0]
    again_in_test = [0, 0.0]
    for r in _records:
        key = (r["source"], r["given"], _kind(r["mode"]))
        if key in seen:
            again[0] += 1
            again[1] += r["cpu"]
        if (r["test"], *key) in in_test:
            again_in_test[0] += 1
            again_in_test[1] += r["cpu"]
        seen.add(key)
        in_test.add((r["test"], *key))
    total = sum(r["cpu"] for r in _records)
    print(
        f"\nrepeated_makes: {len(_records)} makes, {total:.1f} CPU-s; repeating an earlier"
        f" one's source, point and kind: {again[0]} ({again[1]:.1f} CPU-s), within the"
        f" same test: {again_in_test[0]} ({again_in_test[1]:.1f} CPU-s)"
    )
    with open(os.environ.get("REPEATED_MAKES_OUT", "/tmp/repeated_makes.json"), "w") as out:
        json.dump(_records, out)
