"""The ``faces`` method family (being built)."""
