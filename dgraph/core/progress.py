"""Progress while methods run: a bar (tqdm: a widget in Jupyter where ipywidgets is
installed, else text) that appears only once the work has taken a couple of seconds."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["DELAY", "in_notebook", "method_progress"]

DELAY = 2.0  # seconds of work before a bar appears

Progress = Callable[[str, int, int], None]


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython's ZMQ shell)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None  # type: ignore[attr-defined]
    return type(shell).__name__ == "ZMQInteractiveShell"


def _bar(**settings: Any) -> Any:
    """A tqdm bar: the notebook widget in Jupyter with ipywidgets (tqdm.auto would warn
    in every notebook without it), else the text bar."""
    if in_notebook():
        try:
            import ipywidgets  # noqa: F401
            from tqdm.notebook import tqdm as notebook_bar
        except ImportError:
            pass
        else:
            return notebook_bar(**settings)
    from tqdm import tqdm

    return tqdm(**settings)


@contextlib.contextmanager
def method_progress(show: bool) -> Iterator[Progress | None]:
    """A callback ``update(method, k, n)`` (the k-th of n methods starts) that drives a
    bar while the body runs, closed after it; None where ``show`` is false."""
    if not show:
        yield None
        return
    bar: list[Any] = []

    def update(method: str, k: int, n: int) -> None:
        if not bar:
            bar.append(_bar(total=n, file=sys.stderr, leave=False, unit="method", delay=DELAY))
        bar[0].set_description(method, refresh=False)
        bar[0].update(k - 1 - bar[0].n)

    try:
        yield update
    finally:
        if bar:
            bar[0].close()
