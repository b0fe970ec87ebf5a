"""NumPy's request for transparent huge pages turned off in the run's processes.

NumPy asks the kernel for huge pages (``madvise``) on every array of 4 MiB or more; where
the kernel compacts memory on such a fault (``defrag`` set to ``madvise``, a common
default) the first touch of each fresh buffer stalls in the kernel, and on a machine whose
memory is fragmented that is most of a large test's CPU: the JAX reference of
tests/test_peers.py's ``Simple_50x50`` (about 1 GB of fresh arrays) spent 4.0-4.4 CPU-s
of system time with the request and 1.1-1.3 without, its user time unchanged. dgraph
turns the request off itself while it builds (:mod:`dgraph.blocks.heap`), but a test's
own reference arrays (JAX's dense Jacobians, their copies) are made outside those builds.

The tests check values, never speed, and the pages an array lives on change no value. So
the process that starts the run sets ``NUMPY_MADVISE_HUGEPAGE=0`` (NumPy reads it when it
is imported), which the workers and the processes a test starts inherit, and each process
that runs tests also turns the request off where NumPy is already imported. A value the
caller set is kept; ``dgraph.blocks.heap`` leaves the request alone where it is set.
"""

from __future__ import annotations

import os

from dgraph.blocks.heap import _madvise_switch

ENV = "NUMPY_MADVISE_HUGEPAGE"


def configure(config) -> None:
    """``pytest_configure``: the variable for this process and those it starts, and
    NumPy's switch (found as :mod:`dgraph.blocks.heap` finds it, before the variable is
    set: heap leaves the request alone where it is) for this process, whose NumPy is
    already imported. Nothing where the caller set the variable."""
    if ENV in os.environ:
        return
    switch = _madvise_switch()
    os.environ[ENV] = "0"
    if switch is not None:
        switch(False)
