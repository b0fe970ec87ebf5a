"""False alarms of the value check on linear maps (session 63, kinks63).

``python value_check_false_alarms.py [CASES] [SEED]``: ``CASES`` random linear programs
(default 300) of the forms below, each through ``dgraph.make_function(f, point=[a])``
(the generated gradient's value check: central differences, the program being NumPy),
counted by the check's status and its reason. A linear map has no kink, and its
differences are exact but for rounding: every "not verified" here is a false alarm.

Forms (``a`` the point, ``b`` a constant of the same shape, normal numbers; shapes drawn
from 3, 10, 4×4, 5×7): ``sum(x * b)``, ``dot``, ``einsum("ij,ij->")``, ``x @ B`` (a
vector out), and ``sum(x * b)`` with ``b`` made nearly orthogonal to ``a`` (a value
10⁻³ to 10⁻⁹ of its terms: cancellation).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections import Counter

import numpy as np

import dgraph

warnings.simplefilter("ignore")
SHAPES = [(3,), (10,), (4, 4), (5, 7)]
FORMS = ["sum", "dot", "einsum", "matmul", "cancel"]


def program(form: str, b: np.ndarray):
    """The linear map of ``form`` with the constant ``b``."""
    flat = b.reshape(-1)
    if form == "dot":
        return lambda x: np.dot(x.reshape(-1), flat)
    if form == "einsum":
        return lambda x: np.einsum("i,i->", x.reshape(-1), flat)
    if form == "matmul":
        m = np.outer(flat, np.linspace(-1.0, 1.0, 3))
        return lambda x: x.reshape(-1) @ m
    return lambda x: np.sum(x * b)


def draw(rng: np.random.Generator, form: str) -> tuple[np.ndarray, np.ndarray]:
    shape = SHAPES[rng.integers(len(SHAPES))]
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    if form == "cancel":  # b·a about 10⁻³ .. 10⁻⁹ of Σ|a·b|
        b = b - np.sum(a * b) / np.sum(a * a) * a
        b = b + 10.0 ** rng.uniform(-9, -3) * np.sum(np.abs(a * b)) / np.sum(a * a) * a
    return a, b


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    counts: Counter = Counter()
    start = time.process_time()
    for k in range(cases):
        form = FORMS[k % len(FORMS)]
        a, b = draw(rng, form)
        made = dgraph.make_function(program(form, b), point=[a])
        gen = made.generated
        if gen.verified is True:
            counts[(form, "verified")] += 1
            continue
        why = str(getattr(gen.check, "detail", "") or gen.check)
        reason = why.split("): ", 1)[-1].split(" (")[0][:70]
        counts[(form, f"not verified: {reason}")] += 1
    for (form, what), n in sorted(counts.items()):
        print(f"{form:7s} {n:4d}  {what}")
    alarms = sum(n for (_, what), n in counts.items() if what != "verified")
    print(f"{alarms} false alarms of {cases}; {time.process_time() - start:.1f} CPU-s")


if __name__ == "__main__":
    main()
