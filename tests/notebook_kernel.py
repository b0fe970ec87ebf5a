"""One Jupyter kernel that executes the example notebooks one after another.

A kernel's start and the imports of dgraph, NumPy, SymPy, JAX and matplotlib (and the
searches' fork server, :mod:`dgraph.search.timebox`) cost more than most notebooks'
own work, so tests/test_notebooks.py and tests/test_browser.py start one kernel per
process (:func:`shared_kernel`) instead of one per notebook. Before each notebook the
kernel is put back as a fresh one has it (:data:`RESET`): the user namespace and output
history cleared (``%reset -f``), the working directory examples/, open matplotlib figures
closed and JAX's 64-bit mode as at the kernel's start (notebooks 08 and 13 turn it on).
What stays is what a fresh kernel would rebuild the same way: imported modules and
their caches. ``%reset -f`` runs two full collections (IPython's output cache's flush and
the magic's own), each a walk over the kernel's whole heap, which grows with every
notebook (JAX, sympy, matplotlib); the reset runs with the heap frozen (``gc.freeze()``,
then ``gc.unfreeze()``), so they walk nothing. The namespace is emptied all the same
(reference counting frees what it held); cyclic garbage a notebook leaves waits for the
kernel's next full collection, as any garbage a user's cell leaves does.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# run before each notebook: its first run (in the fresh kernel) records the names a fresh
# namespace has that ``%reset -f`` drops (``__spec__``: multiprocessing's fork server
# reads it), and each run puts them back; JAX's 64-bit mode as a fresh import sets it
RESET = """\
def _dgraph_reset(cwd):
    import gc, os, sys
    shell = get_ipython()
    fresh = getattr(sys, "_dgraph_fresh", None)
    if fresh is None:
        names = {k: v for k, v in shell.user_ns.items() if k.startswith("__")}
        fresh = sys._dgraph_fresh = names
    gc.freeze()  # %reset's two full collections (its own, the output cache's) walk nothing
    try:
        shell.run_line_magic("reset", "-f")
    finally:
        gc.unfreeze()  # the survivors filed as old, as before
    shell.user_ns.update(fresh)
    os.chdir(cwd)
    jax = sys.modules.get("jax")
    if jax is not None:
        x64 = os.environ.get("JAX_ENABLE_X64", "0").lower() in ("1", "y", "yes", "t", "true", "on")
        jax.config.update("jax_enable_x64", x64)
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")
"""


class SharedKernel:
    """A python3 kernel started on first use, in examples/, that executes notebooks in
    turn (:meth:`execute`), each after :data:`RESET`; :meth:`close` shuts it down."""

    def __init__(self, timeout: int = 300) -> None:
        from jupyter_client.manager import AsyncKernelManager

        self.timeout = timeout
        self.km = AsyncKernelManager(kernel_name="python3")
        self._done: dict[Path, Any] = {}

    def _run(self, nb: Any) -> Any:
        from nbclient import NotebookClient

        client = NotebookClient(
            nb,
            km=self.km,
            timeout=self.timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(EXAMPLES)}},
        )
        try:
            return client.execute()
        finally:
            if client.kc is not None:
                client.kc.stop_channels()

    def execute(self, nb: Any) -> Any:
        """``nb`` executed (in place, and returned) as in a fresh kernel; a cell's error
        raises ``CellExecutionError``, as nbclient's ``execute`` does."""
        import nbformat

        reset = nbformat.v4.new_notebook()
        call = f"{RESET}\n\n_dgraph_reset({str(EXAMPLES)!r})\n"
        reset.cells.append(nbformat.v4.new_code_cell(call))
        self._run(reset)
        return self._run(nb)

    def executed(self, path: Path) -> Any:
        """The notebook at ``path`` executed, once per kernel (a copy each call: tests may
        change it)."""
        if path not in self._done:
            import nbformat

            self._done[path] = self.execute(nbformat.read(path, as_version=4))
        return copy.deepcopy(self._done[path])

    def close(self) -> None:
        from nbclient.util import run_sync

        if self.km.has_kernel:
            run_sync(self.km.shutdown_kernel)(now=True)  # its state is of no more use
        run_sync(self.km.cleanup_resources)()


_SHARED: list[SharedKernel] = []


def shared_kernel(config: Any) -> SharedKernel:
    """The process's one :class:`SharedKernel`, for every module that executes notebooks
    (tests/test_notebooks.py, tests/test_browser.py): a kernel's start and its imports
    (dgraph, NumPy, SymPy, JAX, matplotlib) paid once in a process, not once per module;
    shut down when pytest's session ends (``config``'s cleanup)."""
    if not _SHARED:
        _SHARED.append(SharedKernel())
        config.add_cleanup(_close_shared)
    return _SHARED[0]


def _close_shared() -> None:
    _SHARED.pop().close()
