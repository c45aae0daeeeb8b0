"""Ads operations, one module per resource family; `registry` gathers them."""
