"""Held-out objectives (``objectives_np.py``) through every Hessian path, against
``jax.hessian`` of the JAX twin: ``python run.py NAME [np,jax] [case,...] [--n N]``, one
line per case: ok / WRONG (relative error above 1e-8) / WIDE (stored nonzeros above the
true count) / NARROW / REFUSED (a DGraphError) / ERROR (anything else), the CPU-s of the
build and the check, ``verified``. The true pattern: entries of the dense
``jax.hessian`` not exactly 0 at one of two random points."""

import os
import re
import sys
import tempfile
import time
import traceback
import warnings

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import objectives_np  # noqa: E402

import dgraph  # noqa: E402

warnings.simplefilter("ignore")
CASES = ["hess", "hess-sp", "hess-sptril", "hess-c", "hess-csp", "hess-jax", "hvp", "vgh-sp"]


def jax_twin():
    """objectives_np read with ``np.`` as ``jnp.``, sharing its data (a scipy.sparse
    matrix as a dense one: jax.hessian's reference)."""
    with open(os.path.join(HERE, "objectives_np.py"), encoding="utf-8") as fh:
        text = fh.read()
    text = text.replace(
        "from scipy.special import logsumexp", "from jax.scipy.special import logsumexp"
    )
    text = re.sub(r"\bnp\.", "jnp.", text).replace("jnp.random", "np.random")
    text = "import jax.numpy as jnp\nimport numpy as np\n" + text
    text = text.replace(
        "_DATA: dict = {}", "from objectives_np import _DATA as _NPDATA\n_DATA = {}"
    )
    text = text.replace(
        "    if key not in _DATA:\n",
        "    if key not in _DATA and key in _NPDATA:\n"
        "        v = _NPDATA[key]\n"
        "        _DATA[key] = v.toarray() if scipy.sparse.issparse(v) else v\n"
        "    if key not in _DATA:\n",
    )
    d = tempfile.mkdtemp(prefix="h41twin_")
    with open(os.path.join(d, "objectives_jax.py"), "w", encoding="utf-8") as fh:
        fh.write(text)
    sys.path.insert(0, d)
    import objectives_jax

    return objectives_jax


#: True nonzeros of the banded problems as functions of n (equal to the count from
#: jax.hessian at n = 36 and 1,000), for sizes where a dense jax.hessian does not fit.
LARGE = {"SROSENBR": lambda n: 2 * n, "BROYDN3D": lambda n: 5 * n - 6,
         "TRIDIA": lambda n: 3 * n - 2, "DQRTIC": lambda n: n}  # fmt: skip


class HvpRef:
    """jax's H·v at a point (jvp of the gradient), for sizes where H does not fit: the
    check is H·v against it for three random v (``ref @ v`` in ``one``)."""

    def __init__(self, f, p):
        self.p = p
        self.hvp = jax.jit(lambda x, v: jax.jvp(jax.grad(f), (x,), (v,))[1])

    def __matmul__(self, v):
        return np.asarray(self.hvp(self.p, v))


def dense(a):
    if hasattr(a, "toarray"):
        return a.toarray()
    return np.asarray(a.todense()) if hasattr(a, "todense") else np.asarray(a)


def nnz(a):
    """Stored entries of a CSR (``nnz``) or a BCOO (``nse``) matrix; 0 for a dense one."""
    return int(getattr(a, "nnz", getattr(a, "nse", 0)))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n_over = None
    if "--n" in sys.argv:
        n_over = int(sys.argv[sys.argv.index("--n") + 1])
        args = [a for a in args if a != str(n_over)]
    name = args[0]
    variants = args[1].split(",") if len(args) > 1 else ["np", "jax"]
    cases = args[2].split(",") if len(args) > 2 else CASES
    f_np, n, kind = objectives_np.PROBLEMS[name]
    n = n_over or n
    rng = np.random.default_rng(0)
    pts = [0.4 * rng.uniform(-1, 1, n) for _ in range(2)]
    f_np(pts[0])  # makes the data
    twin = jax_twin()
    f_jax = getattr(twin, f_np.__name__)
    lag = kind == "lagrangian"
    m = int(np.size(f_np(pts[0]))) if lag else 1
    w = objectives_np.LAMBDA(m) if lag else None

    def scalar_jax(x):
        y = f_jax(x)
        return jax.numpy.dot(jax.numpy.asarray(w), y) if lag else y

    if name in LARGE and n > 4000:  # H·v references; the count by its formula
        refs = [HvpRef(scalar_jax, p) for p in pts]
        true_nnz, true_tril = LARGE[name](n), (LARGE[name](n) + n) // 2
    else:
        hj = jax.jit(jax.hessian(scalar_jax))
        refs = [np.asarray(hj(p)) for p in pts]
        truth = (refs[0] != 0) | (refs[1] != 0)
        true_nnz, true_tril = int(truth.sum()), int(np.tril(truth).sum())
    print(f"{name:9s} n={n} true nnz {true_nnz} tril {true_tril}", flush=True)
    for variant in variants:
        f = f_np if variant == "np" else f_jax
        for case in cases:
            t0, w0 = time.process_time(), time.perf_counter()
            try:
                msg = one(case, f, pts, refs, w, true_nnz, true_tril, f_jax)
            except Exception as e:
                tb = traceback.format_exc().strip().splitlines()
                mine = "dgraph" in type(e).__module__
                first = str(e).splitlines()[0][:200] if str(e) else ""
                msg = (f"{'REFUSED' if mine else 'ERROR'} {type(e).__name__}: {first} @ "
                       f"{tb[-3].strip()[:100] if len(tb) > 2 else ''}")  # fmt: skip
            dt, wall = time.process_time() - t0, time.perf_counter() - w0
            print(
                f"{name:9s} {variant:3s} {case:12s} {dt:7.2f}s {msg} wall {wall:.2f}s", flush=True
            )


def one(case, f, pts, refs, w, true_nnz, true_tril, f_ref):
    kind, _, lang = case.partition("-")
    sparse = "sp" in lang
    tril = "tril" in lang
    lang = lang.replace("sptril", "").replace("sp", "") or "python"
    extra = () if w is None else (w,)
    kw = {} if w is None else {"weights": w}
    if kind == "hess":
        G = dgraph.hessian(f, pts[0], sparse=sparse, tril=tril, lang=lang, **kw)
    elif kind == "hvp":
        G = dgraph.make_function(f, "hvp", lang, point=[pts[0]], **kw)
    else:
        G = dgraph.make_function(f, "value_gradient_hessian", lang, sparse=True, tril=tril,
                                 point=[pts[0]], **kw)  # fmt: skip
    errs, stored = [], 0
    for p, ref in zip(pts, refs, strict=True):
        if isinstance(ref, HvpRef):
            errs.append(hvp_error(kind, G, p, ref, extra, tril))
            if kind != "hvp":
                out = G(p, *extra)
                stored = max(stored, nnz(out[2] if kind == "vgh" else out))
            continue
        scale = max(np.abs(ref).sum(axis=1).max(), 1e-300)
        if kind == "hvp":
            t = np.random.default_rng(3).normal(size=p.size)
            r = np.asarray(G(p, *extra, t))
            errs.append(np.abs(r - ref @ t).max() / scale / np.abs(t).max())
            continue
        out = G(p, *extra)
        H = out[2] if kind == "vgh" else out
        stored = max(stored, nnz(H))
        Hd = dense(H)
        want = np.tril(ref) if tril else ref
        if kind == "vgh":  # the value and the gradient too
            g = np.asarray(
                jax.grad(lambda x: f_ref(x) if w is None else jax.numpy.dot(w, f_ref(x)))(p)
            )
            errs.append(np.abs(np.asarray(out[1]) - g).max() / max(np.abs(g).max(), 1e-300))
        errs.append(np.abs(Hd - want).max() / scale)
    bad = "WRONG" if max(errs) > 1e-8 else "ok"
    pat = ""
    if sparse or kind == "vgh":
        true = true_tril if tril else true_nnz
        pat = f" nnz {stored}/{true}" + (
            " WIDE" if stored > true else " NARROW" if stored < true else ""
        )
    verified = getattr(getattr(G, "generated", None), "verified", "?")
    return f"{bad} err {max(errs):.1e}{pat} verified={verified}"


def hvp_error(kind, G, p, ref, extra, tril):
    """max |H·v - ref·v| / max |ref·v| over three random v (H sparse, or hvp's)."""
    worst = 0.0
    for k in range(3):
        v = np.random.default_rng(10 + k).normal(size=p.size)
        want = ref @ v
        if kind == "hvp":
            got = np.asarray(G(p, *extra, v))
        else:
            out = G(p, *extra)
            H = out[2] if kind == "vgh" else out
            got = H @ v if not tril else H @ v + H.T @ v - H.diagonal() * v
        worst = max(worst, np.abs(got - want).max() / max(np.abs(want).max(), 1e-300))
    return worst


if __name__ == "__main__":
    main()
