"""``dgraph codegen``: files written, JSON keys, exit codes."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from dgraph.cli import main
from dgraph.codegen.c import compiler, load_c
from dgraph.codegen.python import load_python
from dgraph.frontends import bundled
from dgraph.methods import COMPARED, accumulate

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler")
SPHERICAL = str(resources.files("dgraph.data").joinpath("spherical_coordinates.trace"))
SIN = str(resources.files("dgraph.data").joinpath("naumann_sin.trace"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_python_json(capsys, tmp_path):
    target = tmp_path / "jac.py"
    code, out, _ = run(capsys, "codegen", SPHERICAL, "-o", str(target), "-m", "zhou", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["file"] == str(target) and data["method"] == "zhou" and data["lang"] == "python"
    assert isinstance(data["mults"], int) and isinstance(data["adds"], int)
    assert data["mults"] == data["functions"]["jacobian"]["mults"] == 19
    module = load_python(target.read_text())
    x = np.array([[1.2, 0.4, 2.0], [0.7, 1.1, -0.3]])
    expected = accumulate(bundled("spherical_coordinates.trace"), "zhou").evaluate(x)
    np.testing.assert_allclose(module.jacobian(x), expected, rtol=1e-12, atol=1e-12)


@needs_cc
def test_c_from_suffix_jvp_sparse(capsys, tmp_path):
    target = tmp_path / "jac.c"
    code, out, _ = run(
        capsys, "codegen", SPHERICAL, "-o", str(target), "-m", "markowitz", "--mode", "jvp",
        "--sparse", "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert (
        data["lang"] == "c"
        and data["mode"] == "jvp"
        and set(data["functions"])
        == {
            "primal",
            "jvp",
        }
    )
    module = load_c(target)
    x, v = np.array([1.2, 0.4, 2.0]), np.array([0.3, -1.0, 0.5])
    jac = accumulate(bundled("spherical_coordinates.trace"), "markowitz").evaluate(x)
    np.testing.assert_allclose(module.jvp(x, v), jac @ v, rtol=1e-12)


def test_default_method_is_the_cheapest_compared_one(capsys, tmp_path):
    target = tmp_path / "sin.py"
    code, out, _ = run(capsys, "codegen", SIN, "-o", str(target), "--json")
    data = json.loads(out)
    assert code == 0 and data["method"] in COMPARED and data["mults"] == 4


def test_readable_report(capsys, tmp_path):
    code, out, _ = run(capsys, "codegen", SIN, "-o", str(tmp_path / "s.py"), "-m", "reverse")
    assert code == 0
    assert out.startswith("wrote ") and "jacobian: 4 mults, 0 adds" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["missing.trace", "-o", "x.py"], "file not found"),
        (["DISCREPANCY", "-o", "x.py"], "no local partial"),
        ([SIN, "-o", "x.py", "--lang", "fortran"], "invalid choice"),
        ([SIN, "-o", "x.py", "-m", "nonsense"], "unknown method"),
        ([SIN, "-o", "/no/such/dir/x.py", "-m", "reverse"], "cannot write"),
    ],
)
def test_bad_input_exits_2(capsys, argv, needle):
    discrepancy = str(resources.files("dgraph.data").joinpath("naumann_discrepancy.json"))
    argv = [discrepancy if a == "DISCREPANCY" else a for a in argv]
    code, _, err = run(capsys, "codegen", *argv)
    assert code == 2 and needle in err and err.count("\n") == 1


def test_symbolic_method(capsys, tmp_path):
    target = tmp_path / "jac.py"
    code, out, _ = run(capsys, "codegen", SPHERICAL, "-o", str(target), "-m", "symbolic", "--json")
    data = json.loads(out)
    assert code == 0 and data["method"] == "symbolic" and data["mults"] == 19
    module = load_python(target.read_text())
    x = np.array([[1.2, 0.4, 2.0], [0.7, 1.1, -0.3]])
    expected = accumulate(bundled("spherical_coordinates.trace"), "paths").evaluate(x)
    np.testing.assert_allclose(module.jacobian(x), expected, rtol=1e-12)


def test_not_verified_code_is_said_once_and_asks_for_a_point(tmp_path, capsys):
    """survey61: code whose values could not be checked anywhere (NaN at every random
    point) is reported "NOT verified" once, asking for a point where the program is finite;
    make_function's warning of it was printed too, as a raw Python warning and its source
    line."""
    import warnings

    source = tmp_path / "nan.py"
    source.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sqrt(-np.exp(x)) * x\n")
    argv = ["codegen", f"{source}:f", "--inputs", "x:3", "--level", "array"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main([*argv, "-o", str(tmp_path / "j.py")]) == 0
    out = capsys.readouterr().out
    assert not [w for w in caught if "NOT verified" in str(w.message)]
    assert out.count("NOT verified") == 1
    assert "where the program is finite: give a point where it is (point=, --at)" in out
