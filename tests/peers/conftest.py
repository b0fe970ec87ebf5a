"""The corpus modules are read by tests/test_peers.py, not collected (they import JAX,
which a machine without the extra does not have)."""

collect_ignore_glob = ["*.py"]
