"""Helpers to declare statements once: inserts over all columns, IN lists of a fixed size."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from sqlalchemy import Insert, Select, Table, bindparam, insert


def insert_all(table: Table) -> Insert:
    """INSERT with one bind parameter per column, named like the column."""
    return insert(table).values({column.name: bindparam(column.name) for column in table.columns})


def in_list_names(count: int) -> list[str]:
    return [f"k{index}" for index in range(count)]


def in_params(keys: list) -> dict[str, object]:
    return {f"k{index}": key for index, key in enumerate(keys)}


def sized(build: Callable[[int], Select]) -> Callable[[int], Select]:
    """Cache one statement per list length, so each compiles once per dialect."""
    return lru_cache(maxsize=256)(build)


def binds(count: int) -> list:
    return [bindparam(name) for name in in_list_names(count)]
