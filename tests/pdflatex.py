"""pdflatex on one file, as the LaTeX tests run it (tests/test_latex.py, test_render.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def pdflatex(directory: Path, name: str) -> subprocess.CompletedProcess:
    """``pdflatex`` on ``directory / name``, stopping at the first error."""
    return subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
    )
