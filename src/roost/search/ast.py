"""The syntax tree of a search query or stream rule.

`parse()` (search/parser.py) builds it; the matcher (search/matcher.py) evaluates it against one post,
and the SQL compiler evaluates it in the database. Nodes are immutable and hashable, so identical
sub-clauses of many rules can be shared and indexed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TokenKind = Literal["keyword", "hashtag", "mention", "cashtag", "emoji"]
Product = Literal["search", "stream"]


@dataclass(frozen=True, slots=True)
class Token:
    """A bare term. `value` keeps the text as written, without its `#`, `@` or `$` sign."""

    kind: TokenKind
    value: str


@dataclass(frozen=True, slots=True)
class Phrase:
    """`"exact phrase"`, or `"a b"~N` when `proximity` is set."""

    text: str
    proximity: int | None = None


@dataclass(frozen=True, slots=True)
class Operator:
    """`name:value`, name lowercased (`from`, `is`, `has`, `lang`, `point_radius`, …). `value` is the
    text after the colon as written (quotes removed for quoted values such as `entity:"…"`)."""

    name: str
    value: str


@dataclass(frozen=True, slots=True)
class Not:
    child: Node


@dataclass(frozen=True, slots=True)
class And:
    children: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Or:
    children: tuple[Node, ...]


Node = Token | Phrase | Operator | Not | And | Or


def first_operator(node: Node, names: frozenset[str]) -> str | None:
    """The first of `names` the query uses as an operator (depth first), or None."""
    if isinstance(node, Operator):
        return node.name if node.name in names else None
    if isinstance(node, Not):
        return first_operator(node.child, names)
    if isinstance(node, And | Or):
        for child in node.children:
            found = first_operator(child, names)
            if found is not None:
                return found
    return None


@dataclass(frozen=True, slots=True)
class Query:
    root: Node
    text: str  # the query or rule value exactly as given


class QueryError(Exception):
    """A query the platform refuses. `messages` are the platform's texts, each already ending in
    `(at position N)` where the platform gives a position; search wraps them as
    `There were errors processing your request: <m1>, <m2>`, rules list them in `details`."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages
