"""Bundled example graphs (read with importlib.resources)."""
