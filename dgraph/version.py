"""The package version (one place: the command line and ``dgraph.__version__`` read it)."""

__version__ = "0.1.0"
