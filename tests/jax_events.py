"""How many programs JAX lowers or compiles while a call runs: a count, never a time.

Counted from ``jax.monitoring``'s duration events, so a program is counted whether or not
XLA's compile cache (or another process) already had it. The tests assert on these counts
where a change is meant to spare JAX's lowering and compiling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

__all__ = ["COMPILED", "LOWERED", "counted"]

LOWERED = "jaxpr_to_mlir_module_duration"  # a jaxpr lowered to an MLIR module
COMPILED = "backend_compile_duration"  # an XLA compile


def counted(call: Callable[[], Any], event: str = LOWERED) -> tuple[int, Any]:
    """The number of ``event``s while ``call()`` runs (its results made ready), and its value."""
    seen: list[str] = []

    def listener(name: str, seconds: float, **kwargs) -> None:
        if name.endswith(event):
            seen.append(name)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        value = call()
        jax.block_until_ready(value)
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    return len(seen), value
