"""Generated texts and counts of 57 tensor and Hessian functions, as JSON: run it with one
tree's dgraph and then another's and compare the files (session 49's invariant: a change
made for speed leaves the generated code as it was).

    cd /tmp && PYTHONPATH=/path/to/tree python /path/to/benchmarks/tensor49_invariant.py out.json

The functions are the test files' own (tests/test_hessian_numpy.py, test_cond_in_loop.py,
test_while_hessians.py), imported from this repository's tests/ (its root appended to
sys.path, after the tree's dgraph).
"""

import hashlib
import importlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np

HESSIAN = [
    ("hessian", "python", False),
    ("hessian", "python", True),
    ("hessian", "jax", True),
    ("value_gradient_hessian", "python", True),
    ("hvp", "python", False),
    ("hessian", "c", True),
]
LOOPED = [
    ("hessian", "python", True),
    ("hessian", "python", False),
    ("jacobian", "python", False),
    ("jvp", "python", False),
    ("vjp", "jax", False),
]


def cases() -> list[tuple]:
    """(name, function, mode, lang, sparse, point)."""
    hn = importlib.import_module("tests.test_hessian_numpy")
    cl = importlib.import_module("tests.test_cond_in_loop")
    wh = importlib.import_module("tests.test_while_hessians")
    x8 = np.random.default_rng(3).uniform(-1.0, 1.0, 8)
    points = {"quad": hn.X, "repeats": np.linspace(0.2, 0.9, 6)}
    found = []
    for name, f in [
        ("rosen", hn.rosenbrock_np),
        ("quad", hn.quadratic_np),
        ("logsum", hn.logsum_np),
        ("lattice", hn._lattice_np),
        ("repeats", hn._repeats_np),
    ]:
        found += [(name, f, *m, points.get(name, x8)) for m in HESSIAN]
    euler = np.array([0.3, -0.7, 1.1, 0.5])
    found.append(("euler", hn._implicit_euler(np), "hessian", "python", True, euler))
    for name in ("fori_cond", "scan_carry_cond", "while_fixed", "loop_in_loop"):
        x = np.asarray(cl.POINTS[0], dtype=float)
        found += [(name, getattr(cl, name), *m, x) for m in LOOPED]
    for name in ("_newton_sqrt", "_triangle", "_diagonal"):
        x = np.linspace(0.5, 1.5, 4)
        found.append((name, getattr(wh, name), "hessian", "python", True, x))
        found.append((name, getattr(wh, name), "jacobian", "jax", False, x))
    return found


def record(made) -> dict:
    g = made.generated
    out = {
        "sha": hashlib.sha256(g.text.encode()).hexdigest()[:16],
        "len": len(g.text),
        "verified": g.verified,
        "mults": getattr(g, "mults", None),
    }
    try:
        out["summary"] = json.loads(json.dumps(g.summary(), default=str))
        out["summary"].pop("check", None)
    except Exception as e:  # a kind without a summary
        out["summary"] = f"no summary: {type(e).__name__}"
    return out


def main(path: str) -> None:
    warnings.filterwarnings("ignore")
    import jax

    jax.config.update("jax_enable_x64", True)
    import dgraph

    sys.path.append(str(Path(__file__).resolve().parents[1]))
    out = {}
    for name, f, mode, lang, sparse, x in cases():
        key = f"{name}/{mode}/{lang}/{'sparse' if sparse else 'dense'}"
        options = {} if mode in ("hvp", "jvp", "vjp") else {"sparse": sparse}
        try:
            out[key] = record(dgraph.make_function(f, mode, lang, point=[x], **options))
        except Exception as e:  # recorded: the same refusal is the same output
            out[key] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
    with open(path, "w") as file:
        json.dump(out, file, indent=1, sort_keys=True)
    print(len(out), "cases;", sum("error" in v for v in out.values()), "errors")


if __name__ == "__main__":
    main(sys.argv[1])
