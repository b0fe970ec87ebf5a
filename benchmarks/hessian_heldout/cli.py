"""The command line on the held-out objectives: ``python cli.py NAME [--n N]``,
``dgraph codegen FILE:f --inputs x:N --at POINT --mode hessian --sparse`` (python; C
for a Lagrangian with ``--weights``), ``--mode hvp``, each twice (PYTHONHASHSEED 1 and 2)
in an empty folder: exit code, the child's CPU-s, NONDET where the two runs' files
differ; the generated python ``hessian`` (sparse) loaded and compared with
``jax.hessian`` (relative error, stored nonzeros against the true count)."""

import hashlib
import importlib.util
import inspect
import os
import resource
import subprocess
import sys
import tempfile

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import objectives_np  # noqa: E402
from run import jax_twin  # noqa: E402


def run_once(argv, seed):
    d = tempfile.mkdtemp(prefix="h41cli_")
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run([sys.executable, "-m", "dgraph", *argv], cwd=d, env=env,
                           capture_output=True, text=True, timeout=400)  # fmt: skip
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = "HANG", ""
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    files = {}
    for fn in sorted(os.listdir(d)):
        with open(os.path.join(d, fn), "rb") as fh:
            files[fn] = hashlib.sha1(fh.read()).hexdigest()[:10]
    return rc, err, cpu, files, d


def main():
    name = sys.argv[1]
    f_np, n, kind = objectives_np.PROBLEMS[name]
    if "--n" in sys.argv:
        n = int(sys.argv[sys.argv.index("--n") + 1])
    rng = np.random.default_rng(0)
    pts = [0.4 * rng.uniform(-1, 1, n) for _ in range(2)]
    f_np(pts[0])
    lag = kind == "lagrangian"
    w = objectives_np.LAMBDA(int(np.size(f_np(pts[0])))) if lag else None
    twin = getattr(jax_twin(), f_np.__name__)
    hj = jax.jit(jax.hessian(lambda x: jax.numpy.dot(w, twin(x)) if lag else twin(x)))
    refs = [np.asarray(hj(p)) for p in pts]
    true_nnz = int(((refs[0] != 0) | (refs[1] != 0)).sum())
    src = f"{HERE}/objectives_np.py:{f_np.__name__}"
    arg = next(iter(inspect.signature(f_np).parameters))
    base = [src, "--inputs", f"{arg}:{n}", "--at", ",".join(repr(float(v)) for v in pts[0])]
    weights = ["--weights", ",".join(repr(float(v)) for v in w)] if lag else []
    commands = {
        "hessian-sp": ["--mode", "hessian", "--sparse", *weights, "-o", "h.py"],
        "hessian-csp": ["--mode", "hessian", "--sparse", *weights, "--lang", "c", "-o", "h.c"],
        "hvp": ["--mode", "hvp", *weights, "-o", "hv.py"],
    }
    for key, extra in commands.items():
        a = run_once(["codegen", *base, *extra], 1)
        b = run_once(["codegen", *base, *extra], 2)
        rc, err, cpu, _files, d = a
        det = "" if (a[3] == b[3] and a[0] == b[0]) else " NONDET"
        msg = ""
        if rc != 0:
            msg = (err.strip().splitlines() or [""])[-1][:220]
        elif key == "hessian-sp":
            spec = importlib.util.spec_from_file_location(f"h41_{name}", os.path.join(d, "h.py"))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            errs, stored = [], 0
            for p, ref in zip(pts, refs, strict=True):
                H = mod.hessian(p, w) if lag else mod.hessian(p)
                stored = max(stored, H.nnz)
                scale = max(np.abs(ref).sum(axis=1).max(), 1e-300)
                errs.append(np.abs(H.toarray() - ref).max() / scale)
            bad = "WRONG" if max(errs) > 1e-8 else "ok"
            wide = " WIDE" if stored > true_nnz else " NARROW" if stored < true_nnz else ""
            msg = f"{bad} err {max(errs):.1e} nnz {stored}/{true_nnz}{wide}"
        if "Traceback" in err:
            msg = "TRACEBACK-in-stderr " + msg
        print(f"{name:9s} {key:12s} rc={rc} cpu={cpu:6.1f}{det} | {msg}", flush=True)


if __name__ == "__main__":
    main()
