"""The API on a survey program: ``python api.py NAME [np,jax] [case,...]``, one line per
case: make_function's jacobian (python, sparse, C, C sparse, JAX), jvp and vjp (python,
C), dgraph.hessian (python, sparse, C, JAX) and hvp of a scalar program, each compared
with jax.jacobian / jax.hessian of the JAX version at the user's point and a random one,
relative to |J|·|v| (WRONG above 1e-8); jax.jacfwd, as a while_loop has no reverse mode."""

import sys
import time
import traceback
import warnings

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)
from common import SCALAR, flat_fn, load, point  # noqa: E402

import dgraph  # noqa: E402
from dgraph.codegen.tensor.function import TensorGenerated  # noqa: E402

warnings.simplefilter("ignore")
CASES = ["accum", "best", "compare", "jacobian", "jacobian-sp", "jacobian-c", "jacobian-csp",
         "jacobian-jax", "jvp", "vjp", "jvp-c", "vjp-c", "hess", "hess-sp", "hess-c",
         "hess-jax", "hvp"]  # fmt: skip


def dense(b):
    if hasattr(b, "toarray"):
        return b.toarray()
    if hasattr(b, "todense"):
        return np.asarray(b.todense())
    return np.asarray(b)


def assemble(res, out_sizes, in_sizes):
    """A tensor function's blocks as one matrix: JAX's nesting (a tuple over the outputs
    of tuples over the inputs, one level dropped where there is one) lists them row by
    row."""
    blocks = iter(jax.tree_util.tree_leaves(res, is_leaf=lambda a: not isinstance(a, tuple)))
    return np.block([[dense(next(blocks)).reshape(m, n) for n in in_sizes] for m in out_sizes])


def split(v, sizes, shapes):
    out, off = [], 0
    for s, shp in zip(sizes, shapes, strict=True):
        out.append(v[off : off + s].reshape(shp))
        off += s
    return out


def flat(r):
    r = tuple(r.values()) if isinstance(r, dict) else r
    return np.concatenate([np.ravel(a) for a in (r if isinstance(r, tuple) else (r,))])


class Program:
    def __init__(self, name, variant):
        mod_np, mod_jax, self.specs, self.params = load(name)
        self.f = (mod_np if variant == "np" else mod_jax).f
        self.fj = mod_jax.f
        self.points = [point(mod_np, mod_jax, self.specs, seed) for seed in (0, 1)]
        _, _, _, diff = flat_fn(self.fj, self.specs, self.params, self.points[0])
        self.shapes = [self.specs[i][1] for i in diff]
        self.in_sizes = [int(np.prod(s)) if s else 1 for s in self.shapes]
        out = self.fj(*self.points[0])
        out = tuple(out.values()) if isinstance(out, dict) else out
        outs = out if isinstance(out, (tuple, list)) else (out,)
        self.out_sizes = [int(np.size(o)) for o in outs]
        self.out_shapes = [np.shape(o) for o in outs]
        self.scalar = name in SCALAR
        self.free = len(self.points[0]) - len(self.params)  # params are last

    def made(self, kind, lang, sparse):
        if kind == "hess":
            return dgraph.hessian(self.f, *self.points[0], params=self.params, sparse=sparse,
                                  lang=lang)  # fmt: skip
        return dgraph.make_function(self.f, kind, lang, sparse=sparse, params=self.params,
                                    point=self.points[0])  # fmt: skip

    def error(self, kind, G, pt, rng):
        tensor = isinstance(G.generated, TensorGenerated)
        g, xf, pf, _ = flat_fn(self.fj, self.specs, self.params, pt)
        element = (xf, pf) if self.params else (xf,)
        Jref = np.asarray(jax.jacfwd(g)(xf))  # forward: a while_loop has no reverse mode
        rows = max(np.abs(Jref).sum(axis=1).max(), 1e-300)
        if kind == "jacobian":
            J = assemble(G(*pt), self.out_sizes, self.in_sizes) if tensor else dense(G(*element))
            return np.abs(J - Jref).max() / rows
        if kind == "jvp":
            v = rng.normal(size=xf.size)
            tangents = split(v, self.in_sizes, self.shapes)
            r = (
                G(*pt[: self.free], *tangents, *pt[self.free :])
                if tensor
                else G(xf, v, *element[1:])
            )
            return np.abs(flat(r) - Jref @ v).max() / rows / np.abs(v).max()
        if kind == "vjp":
            w = rng.normal(size=Jref.shape[0])
            cotangents = split(w, self.out_sizes, self.out_shapes)
            r = (
                G(*pt[: self.free], *cotangents, *pt[self.free :])
                if tensor
                else G(xf, w, *element[1:])
            )
            columns = max(np.abs(Jref).sum(axis=0).max(), 1e-300)
            return np.abs(flat(r) - w @ Jref).max() / columns / np.abs(w).max()
        Href = np.asarray(jax.hessian(lambda x: g(x)[0])(xf))
        scale = max(np.abs(Href).sum(axis=1).max(), 1e-300)
        if kind == "hess":
            H = assemble(G(*pt), self.in_sizes, self.in_sizes) if tensor else dense(G(*element))
            return np.abs(H - Href).max() / scale
        v = rng.normal(size=xf.size)  # hvp(*x, *p, *t)
        r = G(*pt, *split(v, self.in_sizes, self.shapes)) if tensor else G(xf, v, *element[1:])
        return np.abs(flat(r) - Href @ v).max() / scale / np.abs(v).max()

    def case(self, case):
        kind, _, lang = case.partition("-")
        sparse = lang.endswith("sp")
        lang = lang.replace("sp", "") or "python"
        if kind == "accum":
            es = dgraph.jacobian(self.f, point=self.points[0], params=self.params)
            return f"verified={es.verified}"
        if kind == "best":  # session 61
            es = dgraph.jacobian(self.f, "best", point=self.points[0], params=self.params)
            return f"verified={es.verified} mults={es.mults} V={len(es.graph.vertices)}"
        if kind == "compare":  # session 61
            es = dgraph.jacobian(self.f, point=self.points[0], params=self.params)
            c = dgraph.compare(es.graph)
            bad = [m for m, r in c.results.items() if not r.verified]
            return (
                f"verified={not bad} best={c.best} ran={len(c.results)} "
                f"skipped={len(c.skipped)} cut={c.cut_by_time}"
            )
        if kind in ("hess", "hvp") and not self.scalar:
            return "skip"
        G = self.made(kind, lang, sparse)
        rng = np.random.default_rng(7)
        errs = [self.error(kind, G, pt, rng) for pt in self.points]
        level = "tensor" if isinstance(G.generated, TensorGenerated) else "element"
        bad = "NAN " if np.isnan(errs).any() else "WRONG " if max(errs) > 1e-8 else "ok "
        verified = getattr(G.generated, "verified", "?")
        return f"{bad}{level} err user {errs[0]:.1e} rand {errs[1]:.1e} verified={verified}"


def run(name, variant, cases):
    program = Program(name, variant)
    for case in cases:
        t0 = time.process_time()
        try:
            msg = program.case(case)
        except Exception as e:
            tb = traceback.format_exc().strip().splitlines()
            mine = "dgraph" in type(e).__module__
            where = tb[-3].strip()[:120] if len(tb) > 2 else ""
            first = str(e).splitlines()[0][:300] if str(e) else ""
            kind = f"{'REFUSED' if mine else 'ERROR'} {type(e).__module__}.{type(e).__name__}"
            msg = f"{kind}: {first} @ {where}"
        print(
            f"{name:10s} {variant:3s} {case:14s} {time.process_time() - t0:6.2f}s {msg}", flush=True
        )


def main():
    name = sys.argv[1]
    variants = sys.argv[2].split(",") if len(sys.argv) > 2 else ["np", "jax"]
    cases = sys.argv[3].split(",") if len(sys.argv) > 3 else CASES
    for v in variants:
        if v == "np" and load(name)[0] is None:
            continue
        run(name, v, cases)


if __name__ == "__main__":
    main()
