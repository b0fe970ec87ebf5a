"""The ``inverse`` method family (being built)."""
