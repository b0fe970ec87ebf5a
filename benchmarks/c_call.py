"""The cost of one call of generated C at batch 1: dgraph's ``load_c`` wrapper against a
direct ctypes call of the same C function, in one run.

    python benchmarks/c_call.py [--repeat 7] [--number 20000]

For a few graphs (the bundled spherical coordinates, the double pendulum of
benchmarks/codegen_functions.py and the Roe flux), the generated ``jacobian`` is compiled
once (-O2) and called on one point by:

- ``ctypes``: the C function ``jacobian(x, J)`` through ctypes with argument types set
  and both addresses computed beforehand (the floor: the call and the arithmetic);
- ``ctypes+addr``: the same, reading ``x.ctypes.data`` and ``J.ctypes.data`` each call
  (what a direct call from NumPy arrays costs);
- ``load_c``: ``module.jacobian(x)`` (allocates J), and ``load_c out=``:
  ``module.jacobian(x, out=J)``;
- ``numpy``: the generated NumPy module's ``jacobian(x)``.

Times are the median of ``--repeat`` timeit runs of ``--number`` calls, in microseconds;
the overheads are differences against ``ctypes`` measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codegen_functions import FUNCTIONS

from dgraph.bench.realworld import roe_flux
from dgraph.codegen import generate, load_c, load_python
from dgraph.frontends import bundled

GRAPHS = {
    "spherical-coordinates": lambda: bundled("spherical_coordinates.trace"),
    "double-pendulum": FUNCTIONS["double-pendulum"],
    "roe-flux": roe_flux,
}


def median_us(call, number: int, repeat: int) -> float:
    runs = timeit.repeat(call, number=number, repeat=repeat)
    return statistics.median(runs) / number * 1e6


def measure(name: str, build, number: int, repeat: int) -> dict:
    graph = build()
    c_module = load_c(generate(graph, "c").text)
    py_module = load_python(generate(graph, "python").text)
    n, m = len(graph.inputs), len(graph.outputs)
    x = np.random.default_rng(0).uniform(0.5, 1.5, n)
    J = np.empty((m, n))
    function = c_module.library.jacobian  # argument types set by load_c
    xp, Jp = x.ctypes.data, J.ctypes.data
    assert np.allclose(c_module.jacobian(x), py_module.jacobian(x))
    calls = {
        "ctypes": lambda: function(xp, Jp),
        "ctypes+addr": lambda: function(x.ctypes.data, J.ctypes.data),
        "load_c": lambda: c_module.jacobian(x),
        "load_c out=": lambda: c_module.jacobian(x, out=J),
        "numpy": lambda: py_module.jacobian(x),
    }
    return {"function": name, **{k: median_us(f, number, repeat) for k, f in calls.items()}}


def markdown(rows: list[dict]) -> str:
    lines = [
        "| function | ctypes µs | ctypes+addr µs | load_c µs | load_c out= µs | numpy µs"
        " | load_c − ctypes µs | load_c out= − ctypes µs | load_c / numpy |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['function']} | {r['ctypes']:.2f} | {r['ctypes+addr']:.2f} | {r['load_c']:.2f}"
            f" | {r['load_c out=']:.2f} | {r['numpy']:.1f} | {r['load_c'] - r['ctypes']:.2f}"
            f" | {r['load_c out='] - r['ctypes']:.2f} | {r['load_c'] / r['numpy']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    rows = [measure(name, build, args.number, args.repeat) for name, build in GRAPHS.items()]
    print(markdown(rows))


if __name__ == "__main__":
    main()
