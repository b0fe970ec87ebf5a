"""The distribution is complete: built offline from the sources as ``python -m build`` does
(an sdist, then the wheel from the unpacked sdist), installed into a fresh virtual
environment with the repository nowhere on its path, its ``dgraph`` command runs the demo
and ``import dgraph`` finds the environment's copy, bundled data included.

Nothing is downloaded. The wheel is built by the setuptools this environment has (the
``test`` extra asks for it); the fresh environment gets the wheel from pip with
``--no-index --no-deps``, and its dependencies (sympy, NumPy, …) from the directories
where this environment has them, named in a ``.pth`` file. A ``.pth`` line only appends a
directory to ``sys.path`` (no ``.pth`` file inside it runs, so no editable install of
dgraph there comes along), and the environment's own site-packages comes first: a module
or data file missing from the wheel fails here instead of being found in the repository.

Marked ``slow`` (``-m "not slow"`` leaves it out); it runs in the default suite.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "jacobian-accumulation"
BUILD_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in")


def _setuptools_builds_it() -> bool:
    """setuptools >= 77 reads the SPDX ``license`` string of pyproject.toml."""
    try:
        major = int(metadata.version("setuptools").split(".")[0])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return major >= 77


def _pip_takes_python() -> bool:
    """``pip --python`` (pip >= 22.3) installs into an environment that has no pip."""
    try:
        major, minor = (int(p) for p in metadata.version("pip").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (22, 3)


def _clean_env() -> dict[str, str]:
    """This process's environment without what would put the repository on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def _run(args: list, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _backend(hook: str, source: Path, out: Path) -> Path:
    """Call setuptools' PEP 517 ``hook`` in ``source``; the one file it wrote in ``out``."""
    out.mkdir(exist_ok=True)
    before = set(out.iterdir())
    code = f"import setuptools.build_meta as b; b.{hook}({str(out)!r})"
    _run([sys.executable, "-c", code], cwd=source)
    (made,) = set(out.iterdir()) - before
    return made


def _build(tmp: Path) -> tuple[Path, Path]:
    """(sdist, wheel): the sdist from a copy of the build inputs, the wheel from the sdist."""
    source = tmp / "source"
    source.mkdir()
    for name in BUILD_INPUTS:
        shutil.copy2(ROOT / name, source / name)
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "dgraph", source / "dgraph", ignore=junk)
    sdist = _backend("build_sdist", source, tmp / "dist")
    unpacked = tmp / "unpacked"
    with tarfile.open(sdist) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(unpacked, filter="data")
        else:  # Python < 3.10.12 has no extraction filters; the archive is our own
            archive.extractall(unpacked)
    (top,) = unpacked.iterdir()
    return sdist, _backend("build_wheel", top, tmp / "dist")


def _dependency_dirs(requires: list[str]) -> list[Path]:
    """Where this environment has the distributions ``requires`` names, transitively."""
    seen: set[str] = set()
    dirs: list[Path] = []
    todo = list(requires)
    while todo:
        requirement = todo.pop()
        if "extra ==" in requirement.replace('"', "").replace("'", ""):
            continue
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a dependency for another platform or Python
        where = Path(dist.locate_file("")).resolve()
        if where not in dirs:
            dirs.append(where)
        todo.extend(dist.requires or [])
    return dirs


def _fresh_venv(where: Path, wheel: Path, requires: list[str]) -> Path:
    """A virtual environment with the wheel installed and the dependencies reachable."""
    if _pip_takes_python():
        venv.EnvBuilder(with_pip=False).create(where)
        python = where / "bin" / "python"
        pip = [sys.executable, "-m", "pip", "--python", python]
    else:
        venv.EnvBuilder(with_pip=True).create(where)
        python = where / "bin" / "python"
        pip = [python, "-m", "pip"]
    _run([*pip, "install", "--no-index", "--no-deps", "--no-cache-dir", wheel], cwd=where)
    site = _run(
        [python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], where
    )
    dirs = _dependency_dirs(requires)
    # the repository's venv may live inside it (setup.sh's .venv): what must not come
    # along is its source, the package the wheel is to stand in for
    assert not any((d / "dgraph" / "__init__.py").exists() for d in dirs), dirs
    (Path(site.stdout.strip()) / "dependencies.pth").write_text("".join(f"{d}\n" for d in dirs))
    return python


SMOKE = """
import importlib.metadata as metadata, importlib.resources as resources, sys
from pathlib import Path
import dgraph
from dgraph.chain.problem import bundled_problem

venv, root, out = Path(sys.prefix).resolve(), Path(sys.argv[1]), sys.argv[2]
assert venv in Path(dgraph.__file__).resolve().parents, dgraph.__file__
assert not any(Path(p or '.').resolve() in (root, root / 'dgraph') for p in sys.path), sys.path
assert metadata.version("jacobian-accumulation") == dgraph.__version__
files = metadata.files("jacobian-accumulation")
assert venv in Path(files[0].locate()).resolve().parents

g = dgraph.from_trace("inputs: x0, x1\\noutputs: y\\nv1 = sin(x1)\\nv2 = x0*v1\\ny = v2*v1")
es = dgraph.accumulate(g, "reverse")
assert es.verified and es.to_text().splitlines()[0] == "dy/dx0 = d_y_v2*d_v2_x0", es.to_text()
J = dgraph.make_function(g, "jacobian", method="reverse")
assert J([2.0, 1.0]).round(4).tolist() == [[0.7081, 1.8186]]

data = sorted(p.name for p in resources.files("dgraph.data").iterdir() if p.name[0] != "_")
assert all(dgraph.bundled(name).inputs for name in data)
edge = dgraph.accumulate(dgraph.bundled("naumann_discrepancy.json"), "edge-optimal")
assert (edge.mults, edge.verified) == (13, True)
chain_data = resources.files("dgraph.chain.data")
chains = sorted(p.name for p in chain_data.iterdir() if p.suffix == ".txt")
assert [bundled_problem(name).q for name in chains] == [6, 3, 3], chains
print("smoke ok:", len(data), "graphs,", len(chains), "chain problems;", dgraph.__file__)

# python -m dgraph --version, as -m runs it (runpy), in this process: dgraph is imported
import runpy
sys.argv = ["dgraph", "--version"]
try:
    runpy.run_module("dgraph", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    assert exc.code in (0, None), exc.code

# the dgraph command pip wrote runs the demo, here: its first line names this environment's
# python (what running the file would start), and its code, the entry point, runs
command = venv / "bin" / "dgraph"
shebang = Path(command.read_text().splitlines()[0].removeprefix("#!"))
assert shebang.parent.resolve() == venv / "bin" and shebang.name.startswith("python"), shebang
sys.argv = ["dgraph", "demo", "-o", out]
try:
    runpy.run_path(str(command), run_name="__main__")
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
"""


@pytest.mark.skipif(not _setuptools_builds_it(), reason="needs setuptools >= 77 (the test extra)")
def test_the_wheel_installs_in_a_fresh_venv_and_runs_the_demo(tmp_path):
    tmp_path = tmp_path.resolve()
    sdist, wheel = _build(tmp_path)
    assert sdist.name == "jacobian_accumulation-0.1.0.tar.gz"
    assert wheel.name == "jacobian_accumulation-0.1.0-py3-none-any.whl"

    # every module and data file of the package, and the metadata PyPI shows
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = "jacobian_accumulation-0.1.0.dist-info"
        meta = archive.read(f"{info}/METADATA").decode()
        scripts = archive.read(f"{info}/entry_points.txt").decode()
    package = tmp_path / "source" / "dgraph"
    shipped = {p.relative_to(package.parent).as_posix() for p in package.rglob("*") if p.is_file()}
    assert shipped <= names, sorted(shipped - names)
    assert {"dgraph/data/spherical_coordinates.trace", "dgraph/chain/data/example_s5.txt"} <= names
    assert f"{info}/licenses/LICENSE" in names
    assert "Name: jacobian-accumulation\n" in meta and "License-Expression: MIT\n" in meta
    assert "dgraph = dgraph.cli:main" in scripts
    with tarfile.open(sdist) as archive:
        assert not any("/tests/" in n for n in archive.getnames())  # MANIFEST.in prunes them
    requires = [
        line[len("Requires-Dist: ") :] for line in meta.splitlines() if "Requires-Dist" in line
    ]
    assert {"sympy>=1.12", "numpy>=1.24", "graphviz>=0.20"} <= set(requires)

    python = _fresh_venv(tmp_path / "venv", wheel, requires)
    work = tmp_path / "work"  # no dgraph/ here: the current directory proves nothing
    work.mkdir()

    # one process: the smoke checks, python -m dgraph --version, then the dgraph command's
    # demo (one interpreter start and import of dgraph, not one for the command and one
    # for the checks)
    smoke = _run([python, "-I", "-c", SMOKE, ROOT, work / "out"], cwd=work, timeout=300)
    first, version, *lines = smoke.stdout.splitlines()
    assert first.startswith("smoke ok: 5 graphs, 3 chain problems;")
    assert str((tmp_path / "venv").resolve()) in first
    assert version == "dgraph 0.1.0"  # python -m dgraph --version
    assert lines[0] == "dgraph demo — spherical_coordinates.trace"
    assert lines[1].startswith("spherical_coordinates: 3 inputs, 14 intermediates, 4 outputs")
    assert any(line.startswith("best:") for line in lines)
    assert "max relative error" in smoke.stdout
    assert "<svg" in (work / "out" / "graph.svg").read_text()
