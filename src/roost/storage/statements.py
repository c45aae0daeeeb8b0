"""Helpers to declare statements once: inserts over all columns, IN lists of a fixed size."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, ParamSpec, TypeVar, cast

from sqlalchemy import Insert, Table, bindparam, insert


def insert_all(table: Table) -> Insert:
    """INSERT with one bind parameter per column, named like the column."""
    return insert(table).values({column.name: bindparam(column.name) for column in table.columns})


def in_list_names(count: int) -> list[str]:
    return [f"k{index}" for index in range(count)]


def in_params(keys: list[Any]) -> dict[str, object]:
    return {f"k{index}": key for index, key in enumerate(keys)}


P = ParamSpec("P")
R = TypeVar("R")


def sized(build: Callable[P, R]) -> Callable[P, R]:
    """Cache one statement per list length (and options), so each compiles once per dialect."""
    return cast(Callable[P, R], lru_cache(maxsize=256)(build))


def binds(count: int) -> list[Any]:
    return [bindparam(name) for name in in_list_names(count)]
