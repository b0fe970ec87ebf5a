"""The ``codegen`` method family (being built)."""
