"""The core: graph model, builders, expression sets, costs and verification."""
