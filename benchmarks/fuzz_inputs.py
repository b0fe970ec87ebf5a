"""Hostile input found by mutation: a seeded fuzzer over the inputs the repository ships.

Plain :mod:`random` with a fixed seed, not hypothesis: case ``k`` of seed ``s`` is drawn
from ``random.Random(f"{s}:{k}")`` alone, so any case is rerun by its number
(``--case K``) without a database, and the counts are the same on every machine.

Seeds: the bundled graphs (``dgraph/data``), the hostile corpus's valid neighbours
(``overflow.trace``), ``tests/data``'s JSON, a tensor graph and a scalar graph with labels
and a point written here, and the chain example. Mutations: byte flips, truncation,
deleted or duplicated keys, values of the wrong type (strings for numbers, lists for
objects, nesting 10^4 deep, huge integers, NaN/Inf, unicode, long names), swapped vertex
ids, cycles, self-loops, dangling edges, shapes that disagree; lines of a trace deleted,
duplicated, swapped or rewritten.

Each case runs ``dgraph.cli.main(argv)`` in a process forked from one that imported
dgraph once, in a folder of its own, under a memory limit and a CPU-time limit, and is
classified: ``ok`` (exit 0), ``refused`` (exit 2, one ``dgraph: error:`` line, notes
allowed before it, nothing on stdout), ``internal`` (exit 1: a traceback reported as an
internal error), ``noisy`` (exit 2 with stdout or more than one error line), ``partial``
(an error that left a file), ``hang`` (past the limit), ``crash`` (a signal or another
exit status).

With ``--judge`` an accepted input's answer is judged too (:func:`judge_case`): its
Jacobian code's values (Python; C for a scalar graph) against sympy's own ``diff`` of the
composed statements at 50 digits (mpmath), or central differences where there is no
element level, at the input's point, random points and ±1, classified ``right``,
``rounding``, ``false-verified``, ``wrong`` or ``unjudged``. ``.py`` models, which the
command line imports and runs, are mutated by tokens from fixed lists only
(:func:`_model`), never by bytes.

    python benchmarks/fuzz_inputs.py --cases 3000 --seed 66 --out /tmp/fuzz
    python benchmarks/fuzz_inputs.py --cases 1500 --seed 67 --judge --seconds 10
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dgraph import load  # noqa: E402
from dgraph.cli import main  # noqa: E402
from dgraph.cli.main import _parser  # noqa: E402

DATA = ROOT / "dgraph" / "data"
MEMORY = 3 * 2**30  # bytes of address space a case may use

TENSOR_SEED = {
    "format": "dgraph/1",
    "inputs": ["x", "w"],
    "outputs": ["y"],
    "vertices": [
        {"id": "x", "shape": [3]},
        {"id": "w", "shape": [2, 3]},
        {
            "id": "t1",
            "shape": [2],
            "op": {
                "primitive": "dot_general",
                "operands": ["w", "x"],
                "params": {"dimension_numbers": [[[1], [0]], [[], []]]},
            },
        },
        {"id": "t2", "shape": [2], "op": {"primitive": "tanh", "operands": ["t1"]}},
        {
            "id": "y",
            "shape": [],
            "op": {"primitive": "reduce_sum", "operands": ["t2"], "params": {"axes": [0]}},
        },
    ],
    "edges": [
        {"source": "x", "target": "t1", "block": "dense"},
        {"source": "w", "target": "t1"},
        {"source": "t1", "target": "t2", "block": "diagonal"},
        {"source": "t2", "target": "y"},
    ],
    "point": {"x": [1.0, 2.0, 3.0], "w": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]},
}

LABELLED_SEED = {
    "format": "dgraph/1",
    "name": "labelled",
    "inputs": ["a", "x"],
    "outputs": ["y", "z"],
    "parameters": ["c"],
    "vertices": [{"id": "t", "expr": "a*x"}, {"id": "y", "expr": "sin(t) + c*x"}],
    "edges": [
        {"source": "a", "target": "t", "label": "x"},
        {"source": "x", "target": "t", "label": "a"},
        {"source": "t", "target": "y", "label": "cos(t)"},
        {"source": "x", "target": "y", "label": "c"},
        {"source": "t", "target": "z", "label": 2},
    ],
    "point": {"a": 0.5, "x": 2, "c": 3},
}

# array functions whose tensor graphs (as dgraph/1 JSON) are seeds too
MODELS = """
import numpy as np
def dense(x, w):
    return np.tanh(w @ x).sum() * np.exp(x[0])
def joined(u):
    z = np.concatenate([u ** 2, np.sort(u)])
    return z.reshape(2, 3).T @ np.ones(2)
def leaky(a):
    b = np.where(a > 0, a, 0.5 * a)
    return np.cumsum(b)[::-1] + np.linalg.det(np.outer(a[:2], a[1:3]) + np.eye(2))
def solved(m):
    return np.linalg.solve(m + 3 * np.eye(3), np.max(m, axis=0))
"""
MODEL_INPUTS = {"dense": "x:3,w:2x3", "joined": "u:3", "leaky": "a:3", "solved": "m:3x3"}

# .py models (``file.py:f`` on the command line): the CLI imports and runs them, so they
# are mutated by tokens from these lists only (:func:`_model`), never by bytes: what runs
# is this text with other numbers, functions and operators, nothing a mutation wrote
PY_MODELS = [
    "# inputs: x:3\nimport numpy as np\n\n\ndef f(x):\n"
    "    return np.sin(2.0 * x) * x[0]**3 + np.exp(-0.5 * x).sum()\n",
    "# inputs: x:2,y:2\nimport numpy as np\n\n\ndef f(x, y):\n"
    "    return np.tanh(x @ np.outer(y, x)) + np.log1p(x**2) / 3.0\n",
    "# inputs: a:3\nimport numpy as np\n\n\ndef f(a):\n"
    "    b = np.where(a > 0.2, a**2, 0.5 * a)\n    return np.cumsum(b) * np.sqrt(a**2 + 1.0)\n",
    "# inputs: x:4\nimport numpy as np\n\n\ndef f(x):\n"
    "    return np.max(x) * np.prod(x[1:3]) - np.arctan(x / 4.0).mean()\n",
    "# inputs: x,y\nfrom sympy import exp, sin\n\n\ndef f(x, y):\n"
    "    t = sin(x * y) + x**2 / y\n    return t * exp(-1.5 * x), t - y**3\n",
    "# inputs: x:3\nimport jax.numpy as jnp\n\n\ndef f(x):\n"
    "    return jnp.sum(jnp.sin(x)**3 * x) + jnp.cos(x[1] * 2.5)\n",
]
PY_NUMBERS = ["0", "1", "-1", "2", "3", "7", "0.5", "1e-300", "1e300", "1e-320", "2**53 + 1",
              "10**41", "-10**41 - 1", "100000000000000000000000000000000000000001"]  # fmt: skip
PY_FUNCTIONS = ["sin", "cos", "tanh", "exp", "log", "log1p", "sqrt", "abs", "arctan", "sinh",
                "expm1", "square", "cbrt", "sign", "floor", "arcsin", "arccosh"]  # fmt: skip
PY_OPERATORS = [" + ", " - ", " * ", " / ", "**"]

SQUARE_TRACE = "inputs: a, b\noutputs: y1, y2\nt = a*b\ny1 = exp(t) + a\ny2 = t - b**2\n"

# values of the wrong kind, in place of any JSON value
ODD_VALUES: list = [
    None,
    True,
    0,
    -1,
    2**70,
    10**400,
    1e308,
    -0.0,
    "",
    "x",
    "nan",
    "inf",
    "1e999",
    "α",
    "\u202e",
    "a" * 5000,
    "__import__('os')",
    "x(",
    [],
    [1, 2],
    ["x"],
    {},
    {"id": 1},
    [[[]]],
]


def seeds() -> list[tuple[str, str]]:
    """(suffix, text) of every valid input the fuzzer mutates."""
    out = [
        (p.suffix, p.read_text()) for p in sorted(DATA.glob("*")) if p.suffix in (".json", ".trace")
    ]
    out.append((".json", (ROOT / "tests" / "data" / "lotka_volterra_elements.json").read_text()))
    out.append((".trace", (ROOT / "tests" / "hostile" / "overflow.trace").read_text()))
    out.append((".trace", SQUARE_TRACE))
    out.append((".json", json.dumps(TENSOR_SEED)))
    out.append((".json", json.dumps(LABELLED_SEED)))
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "models.py").write_text(MODELS)
        for name, inputs in MODEL_INPUTS.items():
            graph = load(f"{folder}/models.py:{name}", inputs=inputs)
            out.append((".json", graph.to_json()))
    out.append((".txt", (ROOT / "dgraph" / "chain" / "data" / "example_s5.txt").read_text()))
    out += [(".py", text) for text in PY_MODELS]
    return out


# -- mutations ------------------------------------------------------------------------


def _bytes(rng: random.Random, text: str) -> str:
    """A byte-level change: flip, delete, duplicate, truncate, insert."""
    data = bytearray(text.encode(errors="surrogateescape"))
    if not data:
        return text
    kind = rng.choice(["flip", "delete", "duplicate", "truncate", "insert"])
    i = rng.randrange(len(data))
    if kind == "flip":
        data[i] ^= 1 << rng.randrange(8)
    elif kind == "delete":
        del data[i : i + rng.randint(1, 20)]
    elif kind == "duplicate":
        j = min(len(data), i + rng.randint(1, 40))
        data[j:j] = data[i:j]
    elif kind == "truncate":
        del data[i:]
    else:
        data[i:i] = rng.choice(
            [
                b"(",
                b")",
                b"[",
                b"]",
                b"{",
                b"}",
                b",",
                b'"',
                b"\\",
                b"\x00",
                b"**",
                b"/0",
                b"\xff",
                b"9" * 30,
                b" ",
                b"\n",
                b"e999",
                b"-",
            ]
        )
    return data.decode(errors="surrogateescape")


def _paths(value, path=()):
    """Every (path, value) inside a JSON value."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from _paths(v, (*path, k))


def _get(value, path):
    for p in path:
        value = value[p]
    return value


def _odd(rng: random.Random):
    kind = rng.randrange(len(ODD_VALUES) + 2)
    if kind == len(ODD_VALUES):
        depth = rng.choice([50, 1000, 10_000])
        return json.loads("[" * depth + "]" * depth) if depth < 900 else ("DEEP", depth)
    if kind == len(ODD_VALUES) + 1:
        return float(rng.choice(["nan", "inf", "-inf"]))
    return ODD_VALUES[kind]


def _names(data) -> list[str]:
    names = [*data.get("inputs", []), *data.get("outputs", [])]
    names += [v.get("id") for v in data.get("vertices", []) if isinstance(v, dict)]
    return [n for n in names if isinstance(n, str)]


def _json(rng: random.Random, text: str) -> str:
    """A structural change to a JSON graph."""
    data = json.loads(text)
    kind = rng.choice(
        [
            "odd",
            "odd",
            "delete",
            "duplicate-key",
            "swap-ids",
            "cycle",
            "self-loop",
            "dangling",
            "shape",
            "edge-twice",
            "rename",
            "primitive",
            "list-for-dict",
            "number",
            "number",
            "operand",
            "function",
            "function",
        ]
    )
    names = _names(data)
    edges = data.get("edges", [])
    deep = None
    if kind == "odd":
        path, _ = rng.choice(list(_paths(data))[1:])
        value = _odd(rng)
        if isinstance(value, tuple):
            deep, value = value[1], "@DEEP@"
        _get(data, path[:-1])[path[-1]] = value
    elif kind == "delete":
        path, _ = rng.choice(list(_paths(data))[1:])
        del _get(data, path[:-1])[path[-1]]
    elif kind == "duplicate-key":
        key = rng.choice(list(data))
        body = json.dumps(data)
        value = _odd(rng) if rng.random() < 0.5 else data[key]
        return body[:-1] + f", {json.dumps(key)}: {json.dumps(value, default=str)}}}"
    elif kind == "swap-ids" and len(names) > 1:
        a, b = rng.sample(names, 2)
        body = json.dumps(data)
        return body.replace(f'"{a}"', "@A@").replace(f'"{b}"', f'"{a}"').replace("@A@", f'"{b}"')
    elif kind == "cycle" and edges:
        e = rng.choice(edges)
        edges.append({"source": e["target"], "target": e["source"]})
    elif kind == "self-loop" and names:
        v = rng.choice(names)
        edges.append({"source": v, "target": v, "label": "1"})
    elif kind == "dangling" and names:
        v = rng.choice(names)
        edges.append(
            {"source": v, "target": "nowhere"}
            if rng.random() < 0.5
            else {"source": "nowhere", "target": v}
        )
    elif kind == "shape":
        shaped = [v for v in data.get("vertices", []) if "shape" in v]
        if shaped:
            v = rng.choice(shaped)
            v["shape"] = rng.choice(
                [[0], [-1], [2**40], [2, 2], [1.5], ["3"], [3, 0], [10**5, 10**5], None, 3]
            )
        elif "point" in data:
            k = rng.choice(list(data["point"]))
            data["point"][k] = rng.choice([[1, 2], [[1]], [], "1", None])
    elif kind == "edge-twice" and edges:
        edges.append(dict(rng.choice(edges)))
    elif kind == "rename" and names:
        a = rng.choice(names)
        b = rng.choice(
            [
                "x",
                "y",
                "d_y_x",
                "sin",
                "E",
                "I",
                "pi",
                "oo",
                "lambda",
                "None",
                "x.y",
                "1a",
                "a b",
                "A" * 300,
                "é",
                "Sum",
                "x0[0]",
                "",
            ]
        )
        body = json.dumps(data)
        return body.replace(f'"{a}"', json.dumps(b))
    elif kind == "primitive":
        ops = [p for p, v in _paths(data) if isinstance(v, dict) and "primitive" in v]
        if ops:
            op = _get(data, rng.choice(ops))
            op["primitive"] = rng.choice(
                [
                    "add",
                    "mul",
                    "exp",
                    "dot_general",
                    "reshape",
                    "concatenate",
                    "sort",
                    "div",
                    "pow",
                    "slice",
                    "transpose",
                    "select_n",
                ]
            )
        elif edges:
            e = rng.choice(edges)
            e["label"] = rng.choice(
                [
                    "1/0",
                    "x**x",
                    "zoo",
                    "log(0)",
                    "sqrt(-1)",
                    "Derivative(x, x)",
                    "x[0]",
                    "y",
                    "exp(1000)",
                    "1e-400",
                    "factorial(x)",
                    "x if x else 1",
                ]
            )
    elif kind == "number":
        leaves = [
            p for p, v in _paths(data) if isinstance(v, (int, float)) and not isinstance(v, bool)
        ]
        if leaves:
            path = rng.choice(leaves)
            _get(data, path[:-1])[path[-1]] = rng.choice(
                [-1, 0, 1, 2, 3, 7, 99, 2**31, 2**63, -(2**63), 1.5, -0.5, 1e-320]
            )
    elif kind == "operand":
        ops = [p for p, v in _paths(data) if isinstance(v, dict) and "operands" in v]
        if ops:
            op = _get(data, rng.choice(ops))
            choice = rng.randrange(4)
            if choice == 0 and op["operands"]:
                op["operands"].pop()
            elif choice == 1:
                op["operands"].append(
                    rng.choice(
                        [
                            *names,
                            {"const": [1, 2], "shape": [2]},
                            {"const": 1, "shape": []},
                            "nowhere",
                        ]
                    )
                )
            elif choice == 2 and names:
                op["operands"][0] = rng.choice(names)
            else:
                op["operands"][0] = {
                    "const": rng.choice([[[1]], "nan", [1, "x"], []]),
                    "shape": rng.choice([[1, 1], [], [2], [0]]),
                }
    elif kind == "function":
        texts = [
            p for p, v in _paths(data) if p and p[-1] in ("expr", "label") and isinstance(v, str)
        ]
        if texts:
            path = rng.choice(texts)
            _get(data, path[:-1])[path[-1]] = _function(rng, _get(data, path))
    elif kind == "list-for-dict":
        key = rng.choice(list(data))
        value = data[key]
        data[key] = list(value.items()) if isinstance(value, dict) else {"0": value}
    body = json.dumps(data, default=str, allow_nan=True)
    if deep:
        body = body.replace('"@DEEP@"', "[" * deep + "]" * deep)
    return body


# functions the expression grammar may or may not know, wrapped around a statement
FUNCTIONS = [
    "asinh({})",
    "erf({})",
    "erfc({})",
    "erfinv({})",
    "gamma({})",
    "loggamma({})",
    "digamma({})",
    "polygamma(1, {})",
    "besselj(0, {})",
    "besselk(1, {})",
    "Heaviside({})",
    "floor({})",
    "ceiling({})",
    "sign({})",
    "Abs({})",
    "Min({}, 1)",
    "Max({}, 0, -{})",
    "atan2({}, 1)",
    "Mod({}, 2)",
    "log({}, 2)",
    "root({}, 3)",
    "sec({})",
    "cot({})",
    "acot({})",
    "sinc({})",
    "LambertW({})",
    "zeta({})",
    "factorial({})",
    "binomial({}, 2)",
    "Piecewise(({}, {} > 0), (0, True))",
    "re({})",
    "conjugate({})",
    "DiracDelta({})",
    "expint(1, {})",
    "Ei({})",
    "Si({})",
    "fresnels({})",
    "airyai({})",
    "beta({}, 2)",
    "uppergamma(2, {})",
    "lowergamma(2, {})",
    "exp({})**{}",
    "{}**0.5",
    "({})**-3",
    "1/({} - {})",
    "{}**{}",
    "sqrt({})",
    "cbrt({})",
    "tanh({})**2",
    "acosh({})",
    "atanh({})",
    "Rational(1, 3)*{}",
    "0*{}",
    "{} - {}",
    "1e-300*{}",
    "1e300*{}**2",
    "{}/{}",
]


def _function(rng: random.Random, expression: str) -> str:
    form = rng.choice(FUNCTIONS)
    return form.format(*[f"({expression})"] * form.count("{}"))


def _trace(rng: random.Random, text: str) -> str:
    """A line-level change to a trace."""
    lines = text.splitlines()
    kind = rng.choice(
        [
            "delete",
            "duplicate",
            "swap",
            "rewrite",
            "self",
            "cycle",
            "header",
            "token",
            "function",
            "function",
            "function",
        ]
    )
    body = [k for k, line in enumerate(lines) if "=" in line]
    heads = [k for k, line in enumerate(lines) if line.startswith(("inputs:", "outputs:"))]
    k = rng.randrange(len(lines))
    if kind == "delete":
        del lines[k]
    elif kind == "duplicate":
        lines.insert(k, lines[k])
    elif kind == "swap" and len(lines) > 1:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif kind == "rewrite" and body:
        k = rng.choice(body)
        name = lines[k].split("=")[0].strip()
        lines[k] = f"{name} = " + rng.choice(
            [
                "x0[1]",
                "1/0",
                "zoo*x0",
                "Piecewise((x0, x0 > 0))",
                "x0 if x0 else 1",
                "lambda: 1",
                "x0 ** 10 ** 10",
                "Max(x0)",
                "sin()",
                "sin(x0, x1)",
                "9" * 500,
                "x0" + "+x0" * 2000,
                "log(0)",
                "f(x0)",
                "x0 @ x0",
                "[x0]",
                "{x0}",
                "x0 = 1",
                "x0.__class__",
                "nan",
                "oo",
                "Integral(x0, x0)",
                "re(x0)",
                "x0 > 1",
                "Abs(x0)",
                "exp(exp(exp(x0)))",
                "-",
                "(",
                "",
            ]
        )
    elif kind == "function" and body:
        k = rng.choice(body)
        name, _, expression = lines[k].partition("=")
        lines[k] = f"{name.strip()} = {_function(rng, expression.strip())}"
    elif kind == "self" and body:
        k = rng.choice(body)
        name = lines[k].split("=")[0].strip()
        lines[k] = lines[k] + f" + {name}"
    elif kind == "cycle" and len(body) > 1:
        a, b = body[0], body[-1]
        late = lines[b].split("=")[0].strip()
        lines[a] = lines[a] + f" * {late}"
    elif kind == "header" and heads:
        k = rng.choice(heads)
        head = lines[k].split(":")[0]
        lines[k] = f"{head}: " + rng.choice(
            ["", "x0, x0", "y", "1x", "α", "x0,,x1", "x0 x1", "a" * 3000, "v1"]
        )
    else:
        line = lines[k]
        i = rng.randrange(len(line) + 1)
        lines[k] = (
            line[:i]
            + rng.choice(["(", ")", ",", "**", "=", ":", "#", "'", "\\", "\t", "\x00", " "])
            + line[i:]
        )
    return "\n".join(lines) + "\n"


def _chain(rng: random.Random, text: str) -> str:
    """A number of a chain problem rewritten, or a line deleted or duplicated."""
    lines = [line.split() for line in text.splitlines()]
    k = rng.randrange(len(lines))
    kind = rng.choice(["token", "token", "delete", "duplicate"])
    if kind == "delete":
        del lines[k]
    elif kind == "duplicate":
        lines.insert(k, lines[k])
    elif lines[k]:
        lines[k][rng.randrange(len(lines[k]))] = rng.choice(
            ["0", "-1", "1.5", "x", "10" * 10, "1e3", "", "2 2", "999999", "1" * 20, "+3", "٣"]
        )
    return "\n".join(" ".join(line) for line in lines) + "\n"


def _model(rng: random.Random, text: str) -> str:
    """A number, a function or an operator of a .py model's body replaced by one from
    :data:`PY_NUMBERS`, :data:`PY_FUNCTIONS` or :data:`PY_OPERATORS` (the header kept)."""
    import re

    head, _, body = text.partition("\n\n\n")
    kind = rng.choice(["number", "number", "function", "operator"])
    patterns = {
        "number": r"(?<![\w.*])\d+\.?\d*(e-?\d+)?(\*\*\d+( [+-] \d+)?)?(?![\w\[])",
        "function": r"(?<=np\.|np\.)("
        + "|".join(PY_FUNCTIONS)
        + r")(?=\()|(?<=jnp\.)(sin|cos)(?=\()",
        "operator": r" [-+*/] |\*\*",
    }
    found = [
        m
        for m in re.finditer(patterns[kind], body)
        if "def " not in body[: m.start()].split("\n")[-1]
    ]
    if not found:
        return text
    m = rng.choice(found)
    new = rng.choice(
        {"number": PY_NUMBERS, "function": PY_FUNCTIONS, "operator": PY_OPERATORS}[kind]
    )
    if kind == "function" and "jnp." in body[max(0, m.start() - 4) : m.start()]:
        new = rng.choice(["sin", "cos", "tanh", "exp", "log", "sqrt", "abs"])
    if kind == "number":
        new = f"({new})"
    return f"{head}\n\n\n{body[: m.start()]}{new}{body[m.end() :]}"


def mutate(rng: random.Random, suffix: str, text: str) -> str:
    """One to three mutations of a seed, structural or byte-level."""
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if suffix == ".py":  # code: by tokens from fixed lists only, never bytes
            text = _model(rng, text)
            continue
        try:
            if rng.random() < 0.3:
                text = _bytes(rng, text)
            elif suffix == ".json":
                text = _json(rng, text)
            elif suffix == ".trace":
                text = _trace(rng, text)
            else:
                text = _chain(rng, text)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
            text = _bytes(rng, text)  # an earlier mutation broke the JSON
    return text


def commands(suffix: str, name: str) -> list[list[str]]:
    """Every command a graph or a chain goes through."""
    if suffix == ".txt":
        return [["chain", name, "--json"], ["chain", "--hessian", name, "--json"]]
    if suffix == ".py":
        return [
            ["accumulate", name, "--json"],
            ["compare", name, "--json", "--quiet"],
            ["codegen", name, "--lang", "python", "-o", "j.py"],
            ["codegen", name, "--lang", "c", "-o", "j.c"],
        ]
    return [
        ["accumulate", name, "--json"],
        ["accumulate", name, "-m", "forward"],
        ["compare", name, "--json", "--quiet"],
        ["structure", name, "--json"],
        ["render", name, "-o", "g.svg"],
        ["faces", name, "--json"],
        ["chain", "--graph", name, "--json"],
        ["inverse", name, "--vector", "1,1", "--json"],
        ["codegen", name, "--lang", "python", "-o", "j.py"],
        ["codegen", name, "--lang", "c", "-o", "j.c"],
        ["codegen", name, "--mode", "hessian", "-o", "h.py"],
    ]


def case(seed: int, k: int, pool: list[tuple[str, str]]) -> tuple[str, str, list[str]]:
    """Case ``k``: (suffix, text, argv), a function of ``seed`` and ``k`` alone."""
    rng = random.Random(f"{seed}:{k}")
    suffix, text = rng.choice(pool)
    text = mutate(rng, suffix, text)
    name = "input" + suffix
    argv = rng.choice(commands(suffix, name))
    if suffix == ".py":  # the model's function and its inputs' shapes, from its header
        inputs = text.partition("\n")[0].removeprefix("# inputs: ")
        argv = [a if a != name else f"{name}:f" for a in argv] + ["--inputs", inputs]
    return suffix, text, argv


# -- judging an answer ------------------------------------------------------------------

JUDGE_TOLERANCE = 1e-6  # of |J|·|v|: code rounding passes, a wrong rule's 1e-3 does not
JUDGE_SIZE = 60  # the most inputs or outputs a judged Jacobian has (entries, flattened)
JUDGE_OPS = 4000  # the most operations a composed output may have before it is not judged
DIGITS = 50  # mpmath's working precision for the reference


class Unjudged(Exception):
    """No independent reference for this answer (said, counted, not a verdict)."""


def _composed(graph) -> tuple[list, list, list, list]:
    """(inputs' symbols, parameters' symbols, outputs as sympy expressions of them, every
    vertex's): the statements substituted into each other (no elimination, no edge
    labels)."""
    import sympy

    from dgraph.core.graph import vertex_symbol

    known: dict = {}
    for v in graph.order():
        if graph.role(v) == "input":
            continue
        e = graph.expr(v)
        if e is None:
            raise Unjudged("a vertex without an expression (labels only)")
        e = e.xreplace(known)
        if sympy.count_ops(e) > JUDGE_OPS:
            raise Unjudged("an output too large to compose")
        known[vertex_symbol(v)] = e
    xs = [vertex_symbol(x) for x in graph.inputs]
    ps = [vertex_symbol(q) for q in graph.parameters]
    outputs = [known.get(vertex_symbol(y), vertex_symbol(y)) for y in graph.outputs]
    return xs, ps, outputs, list(known.values())


def _sympy_reference(graph):
    """J(x, p) by sympy's own ``diff`` of the composed statements, evaluated by mpmath at
    :data:`DIGITS` digits: shares no code with dgraph's elimination or its code."""
    import mpmath
    import sympy

    xs, ps, ys, every = _composed(graph)
    if len(xs) > JUDGE_SIZE or len(ys) > JUDGE_SIZE:
        raise Unjudged("too many entries")
    J = sympy.Matrix([[sympy.diff(y, x) for x in xs] for y in ys])
    try:
        f = sympy.lambdify([*xs, *ps], J, modules="mpmath")
        values = sympy.lambdify([*xs, *ps], every, modules="mpmath")
    except Exception as exc:  # a function mpmath does not have
        raise Unjudged(f"mpmath cannot evaluate it ({type(exc).__name__})") from None

    def at(x: np.ndarray, p: np.ndarray) -> np.ndarray | None:
        with mpmath.workdps(DIGITS):
            try:
                args = [mpmath.mpf(float(v)) for v in (*x, *p)]
                if any(complex(v).imag for v in values(*args)):
                    return None  # a vertex complex there ((-1)**2.5): no real function
                m = f(*args)
                rows = [[complex(m[i, j]) for j in range(len(xs))] for i in range(len(ys))]
            except Exception:  # a pole, a domain mpmath refuses
                return None
        out = np.array(rows)
        if np.abs(out.imag).max(initial=0.0) > 0:
            return None  # complex there: not a real derivative
        return out.real

    return at


def _difference_reference(graph):
    """J·v by central differences of dgraph's NumPy evaluation (the program, not its
    derivatives), Richardson-extrapolated once: the error estimate comes back too."""
    from dgraph.core.block_values import vertex_values

    sizes = [int(np.prod(graph.shape(x))) for x in graph.inputs]

    def f(flat: np.ndarray) -> np.ndarray:
        parts = np.split(flat, np.cumsum(sizes)[:-1])
        inputs = {x: v.reshape(graph.shape(x)) for x, v in zip(graph.inputs, parts, strict=True)}
        inputs.update(graph.parameter_point)
        with np.errstate(all="ignore"):
            values = vertex_values(graph, inputs, {})
        return np.concatenate([np.ravel(values[y]) for y in graph.outputs])

    def jv(x: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        h = 1e-3 * max(float(np.abs(x).max(initial=0.0)), 1e-3)

        def d(t: float) -> np.ndarray:
            return (f(x + t * v) - f(x - t * v)) / (2 * t)

        d1, d2, d4 = d(h), d(h / 2), d(h / 4)
        r1, r2 = (4 * d2 - d1) / 3, (4 * d4 - d2) / 3
        if not (np.isfinite(r1).all() and np.isfinite(r2).all()):
            return None
        here = f(x)

        def gap(t: float) -> np.ndarray:  # one-sided slopes apart: O(t) where smooth
            return np.abs(f(x + t * v) + f(x - t * v) - 2 * here) / t

        g2, g4 = gap(h / 2), gap(h / 4)
        kink = (g4 > 0.75 * g2) & (g4 > 1e-6 * (np.abs(r2) + np.max(np.abs(r2), initial=0)))
        if kink.any():
            return None  # a slope that jumps (a sort's tie, a max): no derivative there
        return r2, np.abs(r2 - r1)

    return jv


def _code_jacobian(graph, text: str):
    """The generated Python's ``jacobian`` as x (flat) -> J (outputs × inputs, flat)."""
    namespace: dict = {}
    exec(compile(text, "judged.py", "exec"), namespace)  # dgraph's own output, not input
    jacobian = namespace["jacobian"]
    if not graph.is_tensor:
        has_p = bool(graph.parameters)
        return lambda x, p: np.asarray(jacobian(x, p) if has_p else jacobian(x), dtype=float)
    if graph.parameters:
        raise Unjudged("a tensor graph with parameters")
    shapes = [graph.shape(x) for x in graph.inputs]
    sizes = [int(np.prod(s)) for s in shapes]
    rows = [int(np.prod(graph.shape(y))) for y in graph.outputs]

    def J(x: np.ndarray, p: np.ndarray) -> np.ndarray:
        parts = np.split(x, np.cumsum(sizes)[:-1])
        got = jacobian(*[v.reshape(s) for v, s in zip(parts, shapes, strict=True)])
        m, n = len(rows), len(sizes)
        if m == 1 and n == 1:
            got = ((got,),)
        elif m == 1:
            got = (got,)
        elif n == 1:
            got = tuple((g,) for g in got)
        return np.block([[np.reshape(got[i][j], (rows[i], sizes[j])) for j in range(n)]
                         for i in range(m)])  # fmt: skip

    return J


def _c_jacobian(graph, path: Path):
    """A scalar graph's C ``jacobian(x[, p], J)``, compiled and called (None: no compiler,
    or a tensor graph's C, whose constants and interface are its own)."""
    import ctypes
    import subprocess

    if graph.is_tensor or not shutil.which("cc"):
        return None
    library = path.with_suffix(".so")
    made = subprocess.run(["cc", "-O1", "-shared", "-fPIC", str(path), "-o", str(library), "-lm"],
                          capture_output=True, timeout=60)  # fmt: skip
    if made.returncode:
        raise Unjudged("the C code does not compile here")
    c = ctypes.CDLL(str(library.resolve())).jacobian
    m, n = len(graph.outputs), len(graph.inputs)
    doubles = ctypes.POINTER(ctypes.c_double)

    def J(x: np.ndarray, p: np.ndarray) -> np.ndarray:
        out = np.empty(m * n)
        args = [np.ascontiguousarray(x, dtype=float)]
        if graph.parameters:
            args.append(np.ascontiguousarray(p, dtype=float))
        c(*[a.ctypes.data_as(doubles) for a in args], out.ctypes.data_as(doubles))
        return out.reshape(m, n)

    return J


SPECIAL = (1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0.25, 3.0)  # where x**y is ±1: the informative


def judge_points(graph, n: int, seed: int) -> list[np.ndarray]:
    """The user's point, then random ones in [0.5, 1.5), [-1, 1), [1, 3), and the
    :data:`SPECIAL` values in turn (distinct for up to 8 entries: no ties for a sort or a
    max to kink at), negated, and rotated by one."""
    rng = np.random.default_rng(seed)
    points = []
    if graph.point is not None:
        points.append(np.concatenate([np.ravel(graph.point[x]) for x in graph.inputs]))
    for low, high in ((0.5, 1.5), (-1.0, 1.0), (1.0, 3.0)):
        points.append(rng.uniform(low, high, n))
    special = np.resize(SPECIAL, n)
    points += [special, -special, np.roll(special, 1)]
    return points


def judge(graph, codes: dict[str, object], seed: int) -> dict:
    """Each code's J·v against an independent J at :func:`judge_points`, along three
    random directions, error in units of |J|·|v| (+ 10⁻⁶ of the largest at the point):
    ``right`` where every compared point agrees, ``wrong`` where one differs (its worst
    error and point), ``unjudged`` where no point could be compared."""
    element = graph
    if graph.is_tensor:
        try:
            element = graph.elements(2000)
        except Exception:
            element = None
    reference = None
    if element is not None:
        try:
            reference = _sympy_reference(element)
        except Unjudged:
            reference = None
    differences = _difference_reference(graph) if reference is None and graph.is_tensor else None
    if reference is None and differences is None:
        raise Unjudged("no reference (labels only, or mpmath cannot evaluate it)")
    n = (
        sum(int(np.prod(graph.shape(x))) for x in graph.inputs)
        if graph.is_tensor
        else len(graph.inputs)
    )
    p = np.array([float(np.ravel(graph.parameter_point.get(q, 1.0))[0]) for q in graph.parameters])
    rng = np.random.default_rng(seed + 1)
    verdicts = {}
    for name, code in codes.items():
        compared, worst, where, rounded = 0, 0.0, None, 0.0
        for x in judge_points(graph, n, seed):
            try:
                with np.errstate(all="ignore"):
                    got = code(x, p)
            except Exception as exc:
                verdicts[name] = {"verdict": "wrong", "why": f"raised {type(exc).__name__}"}
                break
            ref = reference(x, p) if reference is not None else None
            if reference is not None and (ref is None or not np.isfinite(ref).all()):
                continue
            for _ in range(3):
                v = rng.standard_normal(n)
                if ref is not None:
                    expected, estimate = ref @ v, 0.0
                    scale = np.abs(ref) @ np.abs(v)
                else:
                    found = differences(x, v)
                    if found is None:
                        break
                    expected, estimate = found
                    scale = np.abs(got) @ np.abs(v)
                mine = got @ v
                unit = scale + 1e-6 * float(np.max(scale, initial=0.0)) + 1e-300
                if not np.isfinite(mine).all():
                    error = np.inf
                else:
                    apart = np.maximum(np.abs(mine - expected) - 2 * estimate, 0)
                    error = float(np.max(apart / unit))
                    # rounding, not a rule: apart by less than 1e-12 of the point's and the
                    # direction's sizes (1 - tanh(x)**2 at x = 20: 0 for 4e-17)
                    floor = 1e-12 * max(1.0, float(np.abs(x).max())) * float(np.abs(v).max())
                    if error > JUDGE_TOLERANCE and float(apart.max()) <= floor:
                        rounded = max(rounded, error)
                        error = 0.0
                if reference is None and float(np.max(estimate / unit)) > 1e-4:
                    continue  # the differences do not resolve J·v here
                compared += 1
                if not error <= worst:
                    worst, where = error, [float(t) for t in x[:4]]
        else:
            if not compared:
                verdicts[name] = {"verdict": "unjudged", "why": "no point compared"}
            else:
                verdict = "right" if worst <= JUDGE_TOLERANCE else "wrong"
                if verdict == "right" and rounded:
                    verdict = "rounding"  # right to 1e-12 absolute, not to |J|·|v|
                error = rounded if verdict == "rounding" else worst
                used = "sympy+mpmath" if reference else "differences"
                verdicts[name] = {"verdict": verdict, "error": error, "at": where,
                                  "compared": compared, "reference": used}  # fmt: skip
    return verdicts


def judge_case(argv: list[str], seed: int) -> dict:
    """Judge what a command that accepted its input answers: the input read again, its
    Jacobian code generated (Python; C too for a scalar graph) with ``--json`` for the
    claim (``verified``), and each code's values judged (:func:`judge`)."""
    import contextlib
    import io

    spec = next(a for a in argv if a.startswith("input."))
    if spec.endswith(".txt"):
        raise Unjudged("a chain")
    extra = argv[argv.index("--inputs") : argv.index("--inputs") + 2] if "--inputs" in argv else []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        graph = load(spec, inputs=extra[1] if extra else None)
    codes, claims = {}, {}
    for lang, file in (("python", "judged.py"), ("c", "judged.c")):
        if lang == "c" and graph.is_tensor:
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            status = main(["codegen", spec, *extra, "--lang", lang, "-o", file, "--json"])
        if status:
            raise Unjudged(f"codegen --lang {lang} exits {status}")
        claims[lang] = bool(json.loads(out.getvalue()).get("verified"))
        if lang == "python":
            codes[lang] = _code_jacobian(graph, Path(file).read_text())
        else:
            c = _c_jacobian(graph, Path(file))
            if c is not None:
                codes[lang] = c
    verdicts = judge(graph, codes, seed)
    for lang, verdict in verdicts.items():
        verdict["claimed"] = claims[lang]
    return verdicts


def verdict_class(verdict: dict) -> str:
    """right, false-verified (wrong values said verified), wrong (said not verified),
    unjudged."""
    if verdict["verdict"] == "wrong":
        return "false-verified" if verdict.get("claimed") else "wrong"
    return verdict["verdict"]


# -- running ----------------------------------------------------------------------------


def run_one(
    folder: Path, text: str, argv: list[str], seconds: int, judged: int | None = None
) -> tuple[str, int, str, str]:
    """Run ``argv`` on ``text`` in a child process: (class, exit status, stdout, stderr).
    With ``judged`` (a seed), an accepted input's answer is judged after it in the same
    child (:func:`judge_case`, twice the CPU time again), into the file ``..judge``."""
    folder.mkdir(parents=True)
    name = next(a for a in argv if a.startswith("input.")).partition(":")[0]
    (folder / name).write_bytes(text.encode(errors="surrogateescape"))
    before = set(os.listdir(folder))
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: its own folder, limits, stdout and stderr in files
        try:
            os.chdir(folder)
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, 3 * seconds + 1))
            signal.alarm(seconds * 3)  # wall time: a blocked read
            for fd, file in ((1, "..out"), (2, "..err")):
                os.dup2(os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            code = main(argv)
            sys.stdout.flush()
            sys.stderr.flush()
            if code == 0 and judged is not None:
                used = resource.getrusage(resource.RUSAGE_SELF)
                Path("..main").touch()
                resource.setrlimit(resource.RLIMIT_CPU, (3 * seconds, 3 * seconds + 1))
                signal.alarm(seconds * 6)
                try:
                    verdicts = judge_case(argv, judged)
                except Unjudged as why:
                    verdicts = {"all": {"verdict": "unjudged", "why": str(why)}}
                except Exception as exc:
                    why = f"the judge failed: {type(exc).__name__}: {str(exc)[:200]}"
                    verdicts = {"all": {"verdict": "unjudged", "why": why}}
                verdicts["main_cpu"] = used.ru_utime + used.ru_stime  # type: ignore[assignment]
                with open("..judge", "w") as file:
                    json.dump(verdicts, file, default=str)
            os._exit(code)
        except BaseException:
            os._exit(98)
    _, status = os.waitpid(pid, 0)
    wall = time.monotonic() - started
    out = (folder / "..out").read_text(errors="replace")
    err = (folder / "..err").read_text(errors="replace")
    left = set(os.listdir(folder)) - before - {"..out", "..err", "..judge", "..main"}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if (folder / "..main").exists() and not (folder / "..judge").exists():
            (folder / "..judge").write_text('{"all": {"verdict": "unjudged", "why": "a limit"}}')
            return "ok", 0, out, err  # the command's answer came; the judge ran out
        kind = "hang" if sig in (signal.SIGALRM, signal.SIGXCPU, signal.SIGKILL) else "crash"
        return kind, -sig, out, err + f"\n[signal {sig} after {wall:.1f} s]"
    code = os.WEXITSTATUS(status)
    return classify(code, out, err, left), code, out, err


def classify(code: int, out: str, err: str, left: set[str]) -> str:
    if code == 0:
        return "ok"
    if code == 1 and "internal error" in err:
        return "internal"
    if code != 2:
        return "crash"
    if left:
        return "partial"
    lines = err.splitlines()
    errors = [line for line in lines if not line.startswith("dgraph: note: ")]
    if out or len(errors) != 1 or not errors[0].startswith("dgraph: error: ") or "Traceback" in err:
        return "noisy"
    return "refused"


def main_fuzz() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--seed", type=int, default=66)
    parser.add_argument("--case", type=int, action="append", help="run only these cases")
    parser.add_argument("--seconds", type=int, default=20, help="CPU seconds a case may take")
    parser.add_argument("--out", default=None, help="keep the inputs of the bad cases here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--judge", action="store_true", help="judge the values of every answer given (exit 0)"
    )
    parser.add_argument(
        "--only", choices=("all", "models"), default="all", help="models: only the .py seeds"
    )
    args = parser.parse_args()
    _parser()  # every command's module imported before the forks
    pool = seeds()
    if args.only == "models":
        pool = [seed for seed in pool if seed[0] == ".py"]
    numbers = args.case or range(args.first, args.first + args.cases)
    counts: collections.Counter = collections.Counter()
    by_command: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    judged: collections.Counter = collections.Counter()
    unjudged: collections.Counter = collections.Counter()
    bad = []
    root = Path(tempfile.mkdtemp(prefix="fuzz_inputs_"))
    for done, k in enumerate(numbers):
        if done and done % 100 == 0:  # counts so far, for a run stopped early
            print(f"after {done}: {dict(counts)} {dict(sorted(judged.items()))}", flush=True)
        suffix, text, argv = case(args.seed, k, pool)
        kind, _, _, err = run_one(
            root / str(k), text, argv, args.seconds, args.seed * 10**6 + k if args.judge else None
        )
        verdicts = {}
        if (root / str(k) / "..judge").exists():
            verdicts = json.loads((root / str(k) / "..judge").read_text())
            verdicts.pop("main_cpu", None)
        shutil.rmtree(root / str(k), ignore_errors=True)
        for lang, verdict in verdicts.items():
            found = verdict_class(verdict)
            judged[f"{lang}: {found}" if lang != "all" else found] += 1
            if found == "unjudged":
                unjudged[verdict.get("why", "")[:60]] += 1
            if found not in ("right", "unjudged") or "exits 1" in verdict.get("why", ""):
                print(f"{k} {found} ({lang}) {' '.join(argv)}: {verdict}", flush=True)
                bad.append({"case": k, "class": found, "argv": argv, "err": str(verdict)})
                if args.out:
                    Path(args.out).mkdir(parents=True, exist_ok=True)
                    (Path(args.out) / f"{k}{suffix}").write_bytes(
                        text.encode(errors="surrogateescape")
                    )
        counts[kind] += 1
        by_command[argv[0] + (" --hessian" if "--hessian" in argv else "")][kind] += 1
        if kind not in ("ok", "refused"):
            last = (err.strip().splitlines() or [""])[-1][:200]
            bad.append({"case": k, "class": kind, "argv": argv, "err": last})
            print(f"{k} {kind} {' '.join(argv)}: {last}", flush=True)
            if args.out:
                Path(args.out).mkdir(parents=True, exist_ok=True)
                (Path(args.out) / f"{k}{suffix}").write_bytes(text.encode(errors="surrogateescape"))
    shutil.rmtree(root, ignore_errors=True)
    summary = {
        "seed": args.seed,
        "cases": len(numbers),
        "classes": dict(counts),
        "by_command": {c: dict(v) for c, v in sorted(by_command.items())},
    }
    if args.judge:
        summary["judged"] = dict(sorted(judged.items()))
        summary["unjudged_why"] = dict(unjudged.most_common(12))
    print(json.dumps(summary if args.json else summary["classes"]))
    if args.judge and not args.json:
        print(f"  judged: {summary['judged']}")
    if not args.json:
        for command, c in sorted(by_command.items()):
            print(f"  {command}: {dict(c)}")


if __name__ == "__main__":
    main_fuzz()
