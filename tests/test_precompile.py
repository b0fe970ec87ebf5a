"""tests/precompile.py: the rewritten test files it writes are what pytest would compile,
pytest reads them back, and an edited file is not run stale."""

from __future__ import annotations

import marshal

from . import precompile


def test_rewritten_file_is_pytests_own_and_never_stale(pytestconfig, tmp_path):
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test

    rewriter = precompile._rewriter(pytestconfig)
    assert rewriter is not None  # this pytest has the functions; asserts are rewritten
    rewrites, rewrite = rewriter
    source = tmp_path / "test_sample.py"
    source.write_text("def test_sample():\n    x = 1\n    assert x == 2, 'message'\n")
    helper = tmp_path / "sample_helper.py"
    assert rewrites(source) and rewrites(tmp_path / "conftest.py") and not rewrites(helper)

    rewrite(source)
    pyc = tmp_path / "__pycache__" / ("test_sample" + PYC_TAIL)
    code = _read_pyc(source, pyc)
    assert code is not None
    assert code == marshal.loads(marshal.dumps(_rewrite_test(source, pytestconfig)[1]))
    written = pyc.stat().st_mtime_ns
    rewrite(source)  # up to date: not written again
    assert pyc.stat().st_mtime_ns == written

    source.write_text("def test_sample():\n    assert 1 == 1\n")  # another size
    assert _read_pyc(source, pyc) is None  # pytest compiles the source, not the old file
