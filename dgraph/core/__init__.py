"""The core: the graph model, expression sets, their costs and values, and verification."""
