"""The ``chain`` method family (being built)."""
