"""benchmarks/suite_profile.py: the summary of a py-spy profile counts each sample once per
marker, module and function (a recursive frame is not counted twice), and ``--above``
names the innermost dgraph frame above a pattern."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import suite_profile

_TEST = 'process 1:"python -m pytest";main (_pytest/main.py:1);test_a (tests/test_x.py:5)'
RAW = "\n".join(
    [
        f"{_TEST};make_function (dgraph/codegen/function.py:126)"
        ";fold (dgraph/codegen/ir.py:640);fold (dgraph/codegen/ir.py:640) 7",
        f"{_TEST};check (dgraph/core/value_check.py:9);lower (jax/_src/interpreters/mlir.py:12) 3",
        'process 2:"N = 6";<module> (<string>:1);diff (sympy/core/function.py:2) 2',
    ]
)


def test_summary_and_above(tmp_path, capsys):
    path = tmp_path / "spy.txt"
    path.write_text(RAW)
    suite_profile.summary(str(path), top=10)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "12 samples"
    lines = {line.split(None, 2)[2]: int(line.split()[0]) for line in out if "%" in line}
    assert lines["inside JAX"] == 3 and lines["JAX's MLIR lowering"] == 3
    assert lines["sympy"] == 2
    assert lines["codegen/ir.py:fold"] == 7  # two frames of one sample: counted once
    assert lines["codegen/function.py"] == 7
    assert lines["test_x.py"] == 10
    assert lines["(no test file: start, collection, subprocesses)"] == 2
    suite_profile.above(str(path), "(jax/_src/interpreters/mlir.py", depth=1, top=5)
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["3", "check", "(dgraph/core/value_check.py:9)"]
