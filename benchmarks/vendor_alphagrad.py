"""Write tests/data/alphagrad/ from AlphaGrad's and Graphax's sources (both MIT licence).

``python benchmarks/vendor_alphagrad.py tables CORE_PY > tests/data/alphagrad/cost_tables.txt``
reads ``src/alphagrad/vertexgame/core.py`` of github.com/jamielohoff/alphagrad, whose arrays
``MUL_SPARSITY_MAP`` (the product's sparsity type), ``CONTRACTION_MAP`` (which of the six
dims w1 w2 v1 v2 u1 u2 a product multiplies over) and ``ADD_SPARSITY_MAP`` (the sum's
type) are Graphax's cost model; rows are the incoming (lower) edge's type, columns the
outgoing (upper) edge's, types -10..11. The arrays are read as literals
(``ast.literal_eval``): nothing of the file is run. One line per row type t:
``t_in=t: upper:type/dims ...`` for products, then ``t: new->type ...`` for sums.

``python benchmarks/vendor_alphagrad.py jaxprs EXAMPLES_DIR OUT_DIR``, run with jax 0.4.26
(AlphaGrad's version), writes ``NAME_jax0.4.26.txt``: the jaxpr of Graphax's example
functions (``src/graphax/examples/{roe,randoms,deep_learning}.py`` of
github.com/jamielohoff/graphax) RoeFlux_3d, f, Perceptron and Encoder, called as
AlphaGrad's ``src/alphagrad/experiments.py`` calls them (``make_RoeFlux_3d`` ...).

tests/test_alphagrad_tensor.py reads both.
"""

from __future__ import annotations

import ast
import re
import sys

DIMS = ("w1", "w2", "v1", "v2", "u1", "u2")
TYPES = range(-10, 12)  # the tables' 22 rows and columns, in order


def _array(source: str, name: str) -> list:
    """The literal list passed to ``jnp.array`` in ``NAME = jnp.array(...)``."""
    start = re.search(rf"^{name}\s*=\s*jnp\.array\(", source, re.M).end()
    depth = 0
    for end in range(start, len(source)):
        depth += {"[": 1, "]": -1}.get(source[end], 0)
        if depth == 0 and source[end] == "]":
            return ast.literal_eval(source[start : end + 1])
    raise ValueError(f"{name}: no closing bracket")


def tables(source: str) -> list[str]:
    mul = _array(source, "MUL_SPARSITY_MAP")
    contraction = _array(source, "CONTRACTION_MAP")
    add = _array(source, "ADD_SPARSITY_MAP")
    lines = []
    for i, lower in enumerate(TYPES):
        entries = []
        for j, upper in enumerate(TYPES):
            dims = "".join(d for k, d in enumerate(DIMS) if contraction[k][i][j])
            entries.append(f"{upper}:{mul[i][j]}/{dims}")
        lines.append(f"t_in={lower}: " + " ".join(entries))
    for i, lower in enumerate(TYPES):
        lines.append(f"{lower}: " + " ".join(f"{t}->{add[i][j]}" for j, t in enumerate(TYPES)))
    return lines


def _load(path: str, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def jaxprs(examples: str) -> dict[str, str]:
    """The four tasks' jaxprs as text, by file stem, with AlphaGrad's arguments."""
    import jax
    import jax.numpy as jnp
    import jax.random as jrand

    roe = _load(f"{examples}/roe.py", "roe")
    randoms = _load(f"{examples}/randoms.py", "randoms")
    deep = _load(f"{examples}/deep_learning.py", "deep_learning")

    ul = [jnp.array([0.1]), jnp.array([0.1, 0.2, 0.3]), jnp.array([0.5])]
    ur = [jnp.array([0.2]), jnp.array([0.2, 0.2, 0.4]), jnp.array([0.6])]
    roe_args = [x[jnp.newaxis, ...] for x in ul + ur]  # a batch of one

    key = jrand.PRNGKey(250197)
    f_args = [jrand.uniform(key, s) for s in ((4,), (2, 3), (4, 4), (4, 1))]

    key = jrand.PRNGKey(1234)
    x, y = jnp.ones((1, 4)), jrand.normal(key, (1, 4))
    w1key, b1key, key = jrand.split(key, 3)
    W1, b1 = jrand.normal(w1key, (8, 4)), jrand.normal(b1key, (8,))
    w2key, b2key, key = jrand.split(key, 3)
    W2, b2 = jrand.normal(w2key, (4, 8)), jrand.normal(b2key, (4,))
    mlp_args = (x, y, W1, b1, W2, b2, 0.0, 1.0)
    mlp = jax.vmap(deep.Perceptron, in_axes=(0, 0, None, None, None, None, None, None))

    key = jrand.PRNGKey(250197)
    x, y = jnp.ones((4, 4)), jrand.normal(key, (2, 4))
    wq1key, wk1key, wv1key, key = jrand.split(key, 4)
    WQ1, WK1, WV1 = (jrand.normal(k, (4, 4)) for k in (wq1key, wk1key, wv1key))
    wq2key, wk2key, wv2key, key = jrand.split(key, 4)
    WQ2, WK2, WV2 = (jrand.normal(k, (4, 4)) for k in (wq2key, wk2key, wv2key))
    w1key, w2key, b1key, b2key = jrand.split(key, 4)
    W1, b1 = jrand.normal(w1key, (4, 4)), jrand.normal(b1key, (4,))
    W2, b2 = jrand.normal(w2key, (2, 4)), jrand.normal(b2key, (2, 1))
    enc_args = (x, y, WQ1, WQ2, WK1, WK2, WV1, WV2, W1, W2, b1, b2, 0.0, 1.0, 0.0, 1.0)

    calls = {
        "RoeFlux_3d": (jax.vmap(roe.RoeFlux_3d), roe_args),
        "f": (randoms.f, f_args),
        "Perceptron": (mlp, mlp_args),
        "Encoder": (deep.Encoder, enc_args),
    }
    return {name: str(jax.make_jaxpr(fn)(*args)) for name, (fn, args) in calls.items()}


if __name__ == "__main__":
    if sys.argv[1] == "tables":
        with open(sys.argv[2], encoding="utf-8") as f:
            print("\n".join(tables(f.read())))
    elif sys.argv[1] == "jaxprs":
        import jax

        for name, text in jaxprs(sys.argv[2]).items():
            path = f"{sys.argv[3]}/{name}_jax{jax.__version__}.txt"
            with open(path, "w", encoding="utf-8") as f:
                f.write(text + "\n")
    else:
        sys.exit("usage: vendor_alphagrad.py tables CORE_PY | jaxprs EXAMPLES_DIR OUT_DIR")
