"""The command line: JSON contracts, readable reports, and one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dgraph.cli import main

DATA = Path(__file__).resolve().parent.parent / "dgraph" / "data"
SIN = str(DATA / "naumann_sin.trace")
DISCREPANCY = str(DATA / "naumann_discrepancy.json")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_accumulate_json(capsys):
    data = run_json(capsys, "accumulate", DISCREPANCY, "--method", "edge-optimal")
    assert data["method"] == "edge-optimal"
    assert data["mults"] == 13 and isinstance(data["mults"], int)
    assert data["verified"] is True and data["optimal"] is True
    assert len(data["jacobian"]) == 10 and all(len(row) == 3 for row in data["jacobian"])
    assert all(name.startswith("r") for name, _ in data["references"])
    assert sum(step["mults"] for step in data["steps"]) == 13


def test_accumulate_vertex_order_and_edge_sequence(capsys):
    data = run_json(capsys, "accumulate", DISCREPANCY, "-m", "vertex", "--order", "i,k")
    assert data["mults"] == 15
    data = run_json(
        capsys,
        "accumulate",
        DISCREPANCY,
        "-m",
        "edges",
        "--order",
        "f:i>y1,f:k>i,f:k>y1,f:i>y2,f:i>y3,f:i>y4,f:i>y5",
    )
    assert data["verified"] is True
    assert [s["mults"] for s in data["steps"]][:1] == [1]


def test_accumulate_text_and_latex(capsys):
    code, out, _ = run(capsys, "accumulate", SIN, "-m", "reverse")
    assert code == 0
    assert "reverse: 3 mults" in out and "verified (exact" in out
    assert "dy/dx1 = (d_y_v1 + d_y_v2*d_v2_v1)*d_v1_x1" in out
    code, out, _ = run(capsys, "accumulate", SIN, "-m", "reverse", "--latex")
    assert "\\begin{align*}" in out


def test_compare_json(capsys):
    data = run_json(capsys, "compare", DISCREPANCY)
    by_method = {row["method"]: row for row in data["methods"]}
    assert {m: by_method[m]["mults"] for m in by_method} == {
        "forward": 14,
        "reverse": 15,
        "markowitz": 14,
        "zhou": 14,
        "layers": 14,
        "dstar": 13,
        "umbrella": 14,
        "vertex-optimal": 14,
        "edge-optimal": 13,
        "best": 13,
    }
    assert data["best"] in ("dstar", "edge-optimal")  # both reach the optimum, 13
    assert data["lower_bound"] == 13 and by_method["reverse"]["gap"] == 2
    assert all("jacobian" not in row for row in data["methods"])


def test_compare_skips_exact_searches_that_are_too_large(capsys):
    data = run_json(capsys, "compare", str(DATA / "spherical_coordinates.trace"))
    skipped = [row for row in data["methods"] if "skipped" in row]
    assert [row["method"] for row in skipped] == ["edge-optimal"]
    assert "--budget" in skipped[0]["skipped"]


def test_structure_json(capsys):
    data = run_json(capsys, "structure", SIN)
    assert data["inputs"] == ["x0", "x1"] and data["outputs"] == ["y"]
    assert data["intermediates"] == ["v1", "v2"]
    assert data["paths"] == 3 and data["path_length"] == 7
    assert data["levels"] == [["y"], ["v2"], ["v1"], ["x0", "x1"]]
    assert len(data["edges"]) == 5


def test_structure_statement_granularity(capsys, tmp_path):
    trace = tmp_path / "f.trace"
    trace.write_text("inputs: a, b\noutputs: y\nu = sin(a*b)\ny = u + a\n")
    elemental = run_json(capsys, "structure", str(trace))
    statement = run_json(capsys, "structure", str(trace), "--granularity", "statement")
    assert len(elemental["intermediates"]) == 2 and statement["intermediates"] == ["u"]
    trace.write_text("inputs: a, b\noutputs: y\ny = a*b*sin(a)\n")
    binary = run_json(capsys, "structure", str(trace), "--granularity", "binary")
    assert (
        len(binary["intermediates"])
        == len(run_json(capsys, "structure", str(trace))["intermediates"]) + 1
    )


def test_python_function_graph(capsys, tmp_path):
    module = tmp_path / "model.py"
    module.write_text("import sympy\n\ndef f(a, b):\n    return a*sympy.sin(b)\n")
    data = run_json(capsys, "accumulate", f"{module}:f")
    assert data["verified"] is True and [row[:2] for row in data["jacobian"]] == [
        ["y", "a"],
        ["y", "b"],
    ]


@pytest.mark.parametrize("suffix", [".svg", ".dot", ".png", ".pdf"])
def test_render(capsys, tmp_path, suffix):
    out = tmp_path / f"g{suffix}"
    data = run_json(capsys, "render", SIN, "-o", str(out))
    assert data["file"] == str(out) and out.stat().st_size > 0


# -- bad input: exit 2, one line naming the fault, no traceback -------------------------------


def _bad(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        (
            "cycle.json",
            json.dumps(
                {
                    "inputs": ["x"],
                    "outputs": ["y"],
                    "edges": [
                        {"source": "x", "target": "a"},
                        {"source": "a", "target": "b"},
                        {"source": "b", "target": "a"},
                        {"source": "b", "target": "y"},
                    ],
                }
            ),
            "cycle",
        ),
        ("bad.json", '{"inputs": ["x"], "outputs": ', "invalid JSON at line 1"),
        (
            "unknown.trace",
            "inputs: x\noutputs: y\ny = frob(x)\n",
            "unknown.trace:3: unknown function 'frob'",
        ),
        (
            "in.json",
            json.dumps(
                {
                    "inputs": ["x", "w"],
                    "outputs": ["y"],
                    "edges": [{"source": "w", "target": "x"}, {"source": "x", "target": "y"}],
                }
            ),
            "input 'x' has an in-edge",
        ),
        (
            "out.json",
            json.dumps(
                {
                    "inputs": ["x"],
                    "outputs": ["y", "z"],
                    "edges": [{"source": "x", "target": "y"}, {"source": "y", "target": "z"}],
                }
            ),
            "output 'y' has an out-edge",
        ),
        ("empty.json", json.dumps({"inputs": [], "outputs": [], "edges": []}), "no inputs"),
        ("graph.txt", "whatever", "unknown graph type"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, name, text, needle):
    path = _bad(tmp_path, name, text)
    code, out, err = run(capsys, "accumulate", path)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and needle in err and name in err
    assert "Traceback" not in err


def test_missing_file_and_bad_options(capsys, tmp_path):
    code, _, err = run(capsys, "accumulate", str(tmp_path / "nope.json"))
    assert code == 2 and "file not found" in err and err.count("\n") == 1
    code, _, err = run(capsys, "accumulate", SIN, "--method", "nonsense")
    assert code == 2 and "invalid choice: 'nonsense'" in err and err.count("\n") == 1
    code, _, err = run(capsys, "accumulate", SIN, "--budget", "soon")
    assert code == 2 and "--budget" in err and err.count("\n") == 1
    code, _, err = run(capsys, "frobnicate")
    assert code == 2 and err.count("\n") == 1


def test_exhaustive_search_refusal_names_size_and_budget(capsys, tmp_path):
    from dgraph.frontends.random_graphs import random_dag

    file = tmp_path / "big.json"
    file.write_text(random_dag(5, 3, 30, 3, 0.2).to_json())
    code, _, err = run(capsys, "accumulate", str(file), "-m", "vertex-optimal")
    assert code == 2
    assert "30 intermediate vertices exceed the exhaustive limit" in err and "--budget" in err


def test_real_process_has_no_traceback(tmp_path):
    path = _bad(tmp_path, "bad.trace", "inputs: x\noutputs: y\ny = x +\n")
    proc = subprocess.run(
        [sys.executable, "-m", "dgraph", "accumulate", path],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("dgraph: error: ") and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


def test_demo_prints_a_comparison_and_writes_diagrams(tmp_path, capsys):
    """In this process (``python -m dgraph`` runs this ``main``; the real process is
    test_real_process_has_no_traceback's): no second import of dgraph."""
    code, out, err = run(capsys, "demo", "-o", str(tmp_path))
    assert code == 0, err
    assert "vertex-optimal" in out and "best:" in out
    assert "max relative error" in out
    svg = (tmp_path / "graph.svg").read_text()
    assert "<svg" in svg
    assert (tmp_path / "best.tex").read_text().startswith("\\begin{align*}")
    compare = json.loads((tmp_path / "compare.json").read_text())
    mults = {row["method"]: row["mults"] for row in compare["methods"] if "mults" in row}
    assert mults[compare["best"]] == min(mults.values()) == 28


def test_passive_vertices_are_folded_with_a_note_on_stderr(capsys, tmp_path):
    path = _bad(
        tmp_path,
        "passive.json",
        json.dumps(
            {
                "inputs": ["x"],
                "outputs": ["y"],
                "vertices": [{"id": "c", "expr": "2*pi"}, {"id": "y", "expr": "c*x"}],
                "edges": [{"source": "c", "target": "y"}, {"source": "x", "target": "y"}],
            }
        ),
    )
    code, out, err = run(capsys, "accumulate", path, "-m", "forward", "--json")
    assert code == 0 and json.loads(out)["verified"] is True
    assert err == "dgraph: note: c: no input reaches it; its value 2*pi is folded into y\n"


HELPERS = "import numpy as np\n\nSCALE = 1.7\n\n\ndef smooth(v):\n    return np.log1p(np.exp(v))\n"
MODEL = """from helpers import SCALE, smooth

print("loading the model")


def f(x, y):
    print("f called")
    return SCALE * smooth(x) * y
"""


def test_a_model_imports_the_files_beside_it_and_its_prints_go_to_stderr(
    tmp_path, monkeypatch, capsys
):
    """As ``python model.py`` would: ``from helpers import …`` finds ``helpers.py`` beside
    the model (it was "No module named 'helpers'"), and what the model prints is not part
    of ``--json``'s one object (survey37b)."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "helpers.py").write_text(HELPERS)
    (folder / "model.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)  # not the model's folder
    code, out, err = run(capsys, "structure", "project/model.py:f", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["inputs"] == ["x", "y"] and "log" in " ".join(data["expressions"].values())
    assert "loading the model" in err and "f called" in err
    assert "helpers" not in sys.modules and str(folder) not in sys.path


def test_a_jax_model_s_prints_stay_out_of_codegen_s_json(tmp_path, capsys):
    """The check runs a JAX function again (its jvp): what it prints goes to stderr."""
    pytest.importorskip("jax", reason="JAX is not installed")
    model = tmp_path / "model.py"
    model.write_text(
        "import jax.numpy as jnp\n\n\ndef g(x):\n    print('g called')\n"
        "    return jnp.sum(jnp.sin(x) * x)\n"
    )
    for mode in ("jacobian", "hessian"):
        target = str(tmp_path / f"{mode}.py")
        argv = ("codegen", f"{model}:g", "--inputs", "x:2", "--mode", mode, "-o", target)
        code, out, err = run(capsys, *argv, "--json")
        assert code == 0, err
        assert json.loads(out)["verified"] is True and "g called" in err


def test_a_function_decorated_with_np_vectorize_is_read_by_its_parameters(tmp_path, capsys):
    """``@np.vectorize def f(x, y)``: the object's parameters are ``*args``, and it was
    refused ("needs plain positional parameters"); it is read as the function it lifts
    (survey37b)."""
    model = tmp_path / "model.py"
    model.write_text(
        "import numpy as np\n\n\n@np.vectorize\ndef f(x, y):\n    return np.sin(x) * y + x\n"
    )
    target = tmp_path / "j.py"
    code, out, err = run(capsys, "codegen", f"{model}:f", "-o", str(target), "--json")
    assert code == 0, err
    assert json.loads(out)["verified"] is True
    namespace: dict = {}
    exec(compile(target.read_text(), str(target), "exec"), namespace)
    x, y = 0.7, 1.3
    J = namespace["jacobian"](np.array([x, y]))
    assert np.allclose(J, [[np.cos(x) * y + 1, np.sin(x)]], rtol=1e-14)


def test_codegen_refusal_of_a_tensor_graph_s_options_comes_alone(tmp_path, monkeypatch, capsys):
    """A function read at the array level (its element level over the default edges)
    written to C without --sparse (its value_and_jacobian; the jacobian is written dense,
    tensor/c_dense.py): the refusal was the second line on stderr, after the
    builder's note (survey37b's huge file); it is now the only one, exit 2."""
    lines = ["def f(x, y):", "    t = x"]
    lines += [f"    t = t * 0.9999 + {k % 7}e-4 * y" for k in range(200)]
    (tmp_path / "long.py").write_text("\n".join([*lines, "    return t, t * y", ""]))
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "codegen", "long.py:f", "--mode", "value_and_jacobian", "-o", "j.c")
    assert code == 2
    err = err.strip().splitlines()
    assert len(err) == 1 and "give --sparse" in err[0], err
    assert not (tmp_path / "j.c").exists()


def test_a_tensor_graph_s_jvp_and_value_and_jacobian_in_c(tmp_path, capsys):
    """C and CUDA write a tensor graph's ``jvp`` and ``vjp`` (no pattern: ``--sparse`` not
    needed) and its sparse ``value_and_jacobian``, each checked before it and its index
    file are written (they were refused: 'the values of the sparse jacobian')."""
    model = str(Path(__file__).resolve().parent / "hostile" / "array_model.py") + ":residual"
    argv = ["codegen", model, "--inputs", "u:4x3"]
    assert main([*argv, "--mode", "jvp", "-o", str(tmp_path / "jvp.c")]) == 0
    assert "jvp of a tensor graph" in capsys.readouterr().out
    assert "void jvp(" in (tmp_path / "jvp.c").read_text() and (tmp_path / "jvp.bin").exists()
    assert main([*argv, "--mode", "vjp", "-o", str(tmp_path / "vjp.cu")]) == 0
    assert "vjp of a tensor graph" in capsys.readouterr().out
    assert "vjp_launch(" in (tmp_path / "vjp.cu").read_text() and (tmp_path / "vjp.bin").exists()
    out = tmp_path / "vj.c"
    assert main([*argv, "--mode", "value_and_jacobian", "--sparse", "-o", str(out)]) == 0
    assert "value_and_jacobian of a tensor graph" in capsys.readouterr().out
    assert (tmp_path / "vj.bin").exists()


def test_accumulate_compare_and_render_take_hessian(tmp_path, capsys):
    """``--hessian``: the commands work on Dixon's Hessian graph of a graph of scalars,
    with the Hessian methods besides the Jacobian ones (``accumulate`` defaults to
    symmetric elimination), the same counts as the API's, and the symmetric drawing."""
    import sympy

    import dgraph

    trace = tmp_path / "f.trace"
    trace.write_text("inputs: x, y\noutputs: f\nt = sin(x*y)\nf = t*x + exp(y)\n")
    x, y = sympy.symbols("x y")
    g = dgraph.from_sympy({"f": sympy.sin(x * y) * x + sympy.exp(y)}, [x, y])
    assert main(["accumulate", str(trace), "--hessian", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["method"] == "symmetric" and got["verified"]
    assert got["mults"] == dgraph.accumulate_hessian(dgraph.load(str(trace))).mults
    assert main(["accumulate", str(trace), "--hessian", "-m", "markowitz"]) == 0
    assert "markowitz:" in capsys.readouterr().out
    assert main(["compare", str(trace), "--hessian", "--json", "-q"]) == 0
    rows = json.loads(capsys.readouterr().out)["methods"]
    assert [r["method"] for r in rows][:3] == ["forward-over-reverse", "edge-pushing", "symmetric"]
    assert all(r["verified"] for r in rows) and rows[0]["mults"] == 11
    assert rows[0]["mults"] == dgraph.accumulate_hessian(g, "forward-over-reverse").mults
    svg = tmp_path / "h.svg"
    assert main(["render", str(trace), "--hessian", "-o", str(svg)]) == 0
    assert svg.read_text().count("<svg") == 1 and "x_bar" in svg.read_text()
    html = tmp_path / "h.html"
    argv = ["render", str(trace), "--hessian", "--steps", "-m", "edge-pushing", "-o", str(html)]
    assert main(argv) == 0 and "<title>edge-pushing: hessian(f)</title>" in html.read_text()
