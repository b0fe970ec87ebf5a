"""The command line on a survey program: ``python cli.py NAME [command,...]``, each
command twice (PYTHONHASHSEED 1 and 2) in an empty folder: exit code, CPU-s of the
child, the line that says what was checked (or the error line), NONDET where the two
runs' output (times dropped) or files differ; with ``SURVEY_ONCE=1`` each once (survey61).
Runs the dgraph on PYTHONPATH."""

import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

from common import SCALAR, load

PY = sys.executable
HERE = os.path.dirname(os.path.abspath(__file__))


def commands(name, scalar):
    c = {
        "structure": ["structure"],
        "accumulate": ["accumulate"],
        "acc-markowitz": ["accumulate", "-m", "markowitz"],
        "acc-reverse": ["accumulate", "-m", "reverse"],
        "compare": ["compare"],
        "acc-best": ["accumulate", "-m", "best"],
        "faces": ["faces"],
        "render": ["render", "-o", "x.svg"],
        "codegen-py": ["codegen", "-o", "j.py"],
        "codegen-c": ["codegen", "-o", "j.c"],
        "codegen-jax": ["codegen", "--lang", "jax", "-o", "jj.py"],
        "codegen-sparse": ["codegen", "--sparse", "-o", "js.py"],
    }
    if scalar:
        c["hessian-py"] = ["codegen", "--mode", "hessian", "-o", "h.py"]
        c["hessian-c"] = ["codegen", "--mode", "hessian", "-o", "h.c"]
        c["hvp-py"] = ["codegen", "--mode", "hvp", "-o", "hv.py"]
        c["acc-hessian"] = ["accumulate", "--hessian"]
    return c


def norm(text):
    text = re.sub(r"\d+\.\d+ ?(CPU-)?s\b", "T", text)
    text = re.sub(r"(?m)\s+\d+\.\d{3}$", " T", text)
    return text


def run_once(argv, seed):
    d = tempfile.mkdtemp(prefix="dgs_")
    env = dict(os.environ, PYTHONHASHSEED=str(seed))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run(
            [PY, "-m", "dgraph", *argv], cwd=d, env=env, capture_output=True, text=True, timeout=300
        )
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "HANG", "", ""
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    files = {}
    for fn in sorted(os.listdir(d)):
        with open(os.path.join(d, fn), "rb") as fh:
            files[fn] = hashlib.sha1(fh.read()).hexdigest()[:10]
    return rc, out, err, cpu, files, d


def main():
    name = sys.argv[1]
    mod_np, _, specs, params = load(name)
    src = f"{HERE}/programs/{name}_{'np' if mod_np else 'jax'}.py:f"
    inputs = ",".join(n + (":" + "x".join(map(str, s)) if s else "") for n, s in specs)
    base = [src, "--inputs", inputs] + (["--params", ",".join(params)] if params else [])
    want = sys.argv[2].split(",") if len(sys.argv) > 2 else None
    for key, argv in commands(name, name in SCALAR).items():
        if want and key not in want:
            continue
        full = [argv[0], *base, *argv[1:]]
        a = run_once(full, 1)
        b = a if os.environ.get("SURVEY_ONCE") else run_once(full, 2)  # session 61: once
        rc, out, err, cpu = a[:4]
        det = "" if (norm(a[1]) == norm(b[1]) and a[4] == b[4] and a[0] == b[0]) else " NONDET"
        last = (err.strip().splitlines() or [""])[-1][:260] if rc != 0 else ""
        if rc in (0, 1) and "internal error" not in err:  # 1: a result not verified
            first = [
                ln
                for ln in out.splitlines()
                if "verified" in ln or "checked" in ln or "realiz" in ln
            ]
            last = (
                first[0][:200]
                if first
                else out.strip().splitlines()[-1][:200]
                if out.strip()
                else ""
            )
            if "Traceback" in err:
                last = "TRACEBACK-in-stderr " + last
            if "Warning" in err:  # session 62: a raw warning beside the report
                last = "WARNING-in-stderr " + last
        print(f"{name:10s} {key:15s} rc={rc} cpu={cpu:6.1f}{det} | {last}", flush=True)
        if det:
            keep = f"nondet/{name}_{key}"  # in the working folder
            os.makedirs(keep, exist_ok=True)
            for i, r in enumerate((a, b)):
                with open(f"{keep}/out{i}", "w") as fh:
                    fh.write(r[1] + "\n----\n" + r[2])
        if rc not in (0, 2) or "Traceback" in err:
            keep = f"errs/{name}_{key}"
            os.makedirs(keep, exist_ok=True)
            with open(f"{keep}/stderr", "w") as fh:
                fh.write(err)
        for r in (a, b):
            shutil.rmtree(r[5], ignore_errors=True)


if __name__ == "__main__":
    main()
