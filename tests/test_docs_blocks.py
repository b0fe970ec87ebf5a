"""Every ```python block in README.md and docs/ runs, and its comments that state a value hold.

A file's blocks run in order in one namespace (later blocks continue earlier ones), in a
scratch directory; one that starts with ``# on a GPU`` runs only where CuPy finds a GPU.
A block written as a doctest (``>>>``) runs as a doctest. Elsewhere, a
statement followed by ``# comment`` is checked where the comment states a value:

- ``print(...)  # TEXT``: the printed text contains TEXT (a trailing ``...`` is dropped);
- ``expression  # LITERAL rest``: the value equals the longest leading Python literal of the
  comment (``# 56 (q <= 7)`` states 56, ``# True: the paper's order`` states True); a
  comment that starts with no literal is prose and is not checked.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path: Path) -> list[str]:
    return _BLOCK.findall(path.read_text(encoding="utf-8"))


def stated_value(comment: str) -> tuple[bool, object]:
    """(True, value) when the comment opens with a Python literal, else (False, None)."""
    ends = [m.start() for m in re.finditer(r"\s", comment)] + [len(comment)]
    for end in sorted(ends, reverse=True):
        head = comment[:end].rstrip(",:;")
        try:
            return True, ast.literal_eval(head)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False, None


def _comments(source: str) -> dict[int, str]:
    """Trailing comments by line number (1-based)."""
    import tokenize

    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.string[1:].strip()
    return found


def run_block(source: str, namespace: dict) -> list[str]:
    """Run ``source`` statement by statement; the failed claims, as messages."""
    if source.lstrip().startswith(">>>"):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(source, namespace, "block", None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        out = io.StringIO()
        runner.run(test, out=out.write)
        return [out.getvalue()] if runner.failures else []
    failures = []
    comments = _comments(source)
    for stmt in ast.parse(source).body:
        comment = comments.get(stmt.end_lineno)
        is_print = (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id == "print"
        )
        code = ast.unparse(stmt)
        if isinstance(stmt, ast.Expr) and not is_print:
            value = eval(compile(ast.Expression(stmt.value), "<block>", "eval"), namespace)
            if comment is not None:
                states, expected = stated_value(comment)
                if states and value != expected:
                    failures.append(f"{code}\n  gave {value!r}, the comment says {expected!r}")
            continue
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(ast.Module([stmt], []), "<block>", "exec"), namespace)
        printed = buffer.getvalue()
        if is_print and comment is not None:
            expected = comment.removesuffix("...").strip()
            if expected not in printed:
                failures.append(f"{code}\n  printed {printed!r}, the comment says {expected!r}")
    return failures


def _gpu() -> bool:
    """CuPy finds a CUDA GPU (the blocks that start ``# on a GPU`` need one)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device
        return False


@pytest.mark.parametrize("path", [p for p in DOCUMENTS if python_blocks(p)], ids=lambda p: p.name)
def test_document_blocks_run(path, tmp_path, monkeypatch):
    if any("import jax" in block for block in python_blocks(path)):  # the optional extra
        pytest.importorskip("jax", reason=f"{path.name} needs JAX")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    failures = []
    for block in python_blocks(path):
        if block.startswith("# on a GPU") and not _gpu():  # CUDA kernels: skipped elsewhere
            continue
        failures += run_block(block, namespace)
    assert not failures, "\n".join(failures)


def test_stated_values_are_read_as_the_documents_mean_them():
    assert stated_value("56 (q <= 7)") == (True, 56)
    assert stated_value("123, the paper's bounded run") == (True, 123)
    assert stated_value("True: the paper's own order") == (True, True)
    assert stated_value("(56, 29, 'a·b')") == (True, (56, 29, "a·b"))
    assert stated_value("[3, 3, 4, 4, 3]") == (True, [3, 3, 4, 4, 3])
    assert stated_value("the TikZ text") == (False, None)
    assert stated_value("(n,) or (B, n) points in") == (False, None)


def test_a_wrong_claim_fails():
    assert run_block("x = 2\nx + 1  # 4\n", {}) != []
    assert run_block("print(1 + 1)  # 3\n", {}) != []
    assert run_block("x = 2\nx + 1  # 3\nprint(x)  # 2\n", {}) == []
