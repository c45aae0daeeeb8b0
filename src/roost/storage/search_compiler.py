"""Compile a query AST (search/ast.py) to SQLAlchemy Core WHERE clauses over `posts`.

Search semantics, the same as `matcher.matches(node, view, "search")` (docs/search.md lists the
intended differences). Keywords, phrases, `#`/`@`/`$` terms, `context:`, `entity:` and `has:` are
tokens of the post's search document (search/document.py) and become one full-text query per
text-only sub-tree: an FTS5 MATCH expression on SQLite, a `tsquery` on PostgreSQL. Structured
operators become plain SQL on `posts` (with `users` sub-queries for user names, `is:verified`, and
`list_members` for `list:`).

Compiling happens in two steps so statements can be cached by *shape*: `compile_query` walks the
AST and returns a value-free, hashable plan plus the bind values (`p0`, `p1`, …); `clause(plan)` turns
a plan into a Core clause and is cached, so one query structure compiles once per dialect however
many different words or users it is asked with.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import TSQUERY
from sqlalchemy.sql.elements import ColumnElement

from roost.search import document as doc
from roost.search.ast import And, Node, Not, Operator, Or, Phrase, Token
from roost.search.view import query_tokens
from roost.storage.schema import posts, users
from roost.storage.schema_social import list_members, lists

Dialect = Literal["sqlite", "postgresql"]
Plan = tuple[Any, ...]
# Place operators are answered from the (small) places table in Python: the resolver returns the ids
# of the places that satisfy one operator, evaluated with the matcher's own code.
PlaceResolver = Callable[[Operator], Sequence[str]]

MAX_ID = (1 << 63) - 1
FALSE: Plan = ("false",)
TRUE: Plan = ("true",)
PLACE_OPERATORS = frozenset({"place", "place_country", "point_radius", "bounding_box", "geo_bounding_box"})
_INDEXED_OPERATORS = frozenset({"context", "entity", "has"})
_ID_COLUMNS = {
    "conversation_id": "conversation_id",
    "in_reply_to_tweet_id": "in_reply_to_post_id",
    "in_reply_to_status_id": "in_reply_to_post_id",
    "quotes_of_tweet_id": "quoted_post_id",
    "retweets_of_tweet_id": "reposted_post_id",
    "retweets_of_status_id": "reposted_post_id",
}
_MINIMUM_COLUMNS = {
    "min_likes": "like_count",
    "min_faves": "like_count",
    "min_replies": "reply_count",
    "min_reposts": "retweet_count",
    "min_retweets": "retweet_count",
}
_IS_COLUMNS = {"retweet": "reposted_post_id", "reply": "in_reply_to_post_id", "quote": "quoted_post_id"}
_HAS_ALIASES = {"media_link": "media", "videos": "video_link"}
# Proximity: slop beyond any document's length changes nothing, so larger values are clamped (FTS5's
# NEAR and PostgreSQL's `<k>` have their own limits). Up to MAX_SLOP_TERMS terms the exact
# (Lucene-slop) check runs in SQL as a self-join over the document's tokens; longer proximity
# phrases only need every term present, on both databases (docs/search.md).
MAX_SLOP = 100_000
MAX_SLOP_TERMS = 6
PG_ORDERED_NEAR = 16  # up to this slop a 2-term phrase is an exact OR of `<k>` on PostgreSQL


@dataclass(frozen=True, slots=True)
class Compiled:
    """`driver`: the bind name of a full-text query every result must satisfy (an AND of the root),
    or None; `rest`: the plan of everything else. `params`: bind values by name. `ranked`: the
    driver has a keyword-like term outside a negation, so its full-text score means something
    (sort_order=relevancy)."""

    driver: str | None
    rest: Plan
    params: dict[str, Any]
    ranked: bool = False


def is_text(node: Node) -> bool:
    """True for a sub-tree the full-text index answers alone. Not proximity: the index only
    narrows it down (NEAR), the exact slop is checked in SQL beside it."""
    if isinstance(node, Phrase):
        return node.proximity is None
    if isinstance(node, Token):
        return True
    if isinstance(node, Operator):
        return node.name in _INDEXED_OPERATORS
    if isinstance(node, Not):
        return is_text(node.child)
    return all(is_text(child) for child in node.children)


# ---- full-text query text ------------------------------------------------------------------------


def _leaf_tokens(node: Token | Phrase | Operator) -> tuple[tuple[str, ...], bool]:
    """(index tokens, contiguous): a sequence that must occur in order, or a set that must all occur.
    No tokens means the leaf can never match."""
    if isinstance(node, Phrase):
        toks = tuple(doc.encode(t) for t in query_tokens(node.text, True))
        return toks, node.proximity is None
    if isinstance(node, Token):
        kind = node.kind
        if kind == "hashtag":
            return (doc.hashtag_token(node.value),), True
        if kind == "mention":
            return (doc.mention_token(node.value),), True
        if kind == "cashtag":
            return (doc.cashtag_token(node.value),), True
        return tuple(doc.encode(t) for t in query_tokens(node.value, True)), True
    if node.name == "context":
        return (doc.context_token(node.value),), True
    if node.name == "entity":
        return (doc.entity_token(node.value),), True
    flag = _HAS_ALIASES.get(node.value.lower(), node.value.lower())
    return ((doc.has_token(flag),) if flag in doc.HAS_FLAGS else ()), True


def _fts5_leaf(toks: tuple[str, ...], contiguous: bool) -> str:
    if not toks:
        return f'"{doc.NEVER}"'
    if contiguous or len(toks) == 1:
        return '"' + " ".join(toks) + '"'  # tokens are [a-z0-9]+: nothing to escape
    return "(" + " AND ".join(f'"{t}"' for t in toks) + ")"


# PostgreSQL's longest lexeme, in bytes: a longer word is left out of every tsvector (and refused in a
# tsquery), so a query word past it can never match there.
PG_LEXEME_MAX_BYTES = 2047


# PostgreSQL's parser reads a word that starts like a number in scientific notation as two lexemes
# ("3e8a1b" is "3e8" then "a1b") when it builds the tsvector; the tsquery, cast as written, must
# name the same two, one after the other.
_PG_SPLIT_WORD = re.compile(r"([0-9]+e[0-9]+)([a-z][a-z0-9]*)")


def _lexemes(token: str) -> str:
    split = _PG_SPLIT_WORD.fullmatch(token)
    return f"('{split[1]}' <-> '{split[2]}')" if split else f"'{token}'"


def _tsquery_leaf(toks: tuple[str, ...], contiguous: bool) -> str:
    if not toks or any(len(t.encode()) > PG_LEXEME_MAX_BYTES for t in toks):
        return f"'{doc.NEVER}'"
    joiner = " <-> " if contiguous else " & "
    return "(" + joiner.join(_lexemes(t) for t in toks) + ")"


def _slop(node: Phrase) -> int:
    return min(node.proximity or 0, MAX_SLOP)


def _fts5_near(toks: tuple[str, ...], slop: int) -> str:
    # Lucene slop N over k terms spans at most N + k - 1 positions, so at most N + k - 2 tokens lie
    # between the first and the last: NEAR (unordered) with that bound is a superset of the matches.
    # Past MAX_SLOP_TERMS (no exact check) every term present, PostgreSQL's rule there too.
    if len(toks) < 2 or len(toks) > MAX_SLOP_TERMS:
        return _fts5_leaf(toks, len(toks) < 2)
    return "NEAR(" + " ".join(f'"{t}"' for t in toks) + f", {slop + len(toks) - 2})"


def _tsquery_near(toks: tuple[str, ...], slop: int) -> str:
    if len(toks) != 2 or slop + 1 > PG_ORDERED_NEAR:
        return _tsquery_leaf(toks, len(toks) < 2)  # every term present; the slop check does the rest
    # Two terms: in order at most `slop` tokens apart (distance 1..slop+1), reversed at most
    # slop - 2 (distance 1..slop-1): exactly the matcher's rule, as ordered `<k>` alternatives.
    a, b = toks
    parts = [f"'{a}' <{k}> '{b}'" for k in range(1, slop + 2)]
    parts += [f"'{b}' <{k}> '{a}'" for k in range(1, slop)]
    return "(" + " | ".join(parts) + ")"


def fts5_query(node: Node) -> str | None:
    """The FTS5 MATCH expression of a text-only sub-tree, or None where FTS5 cannot say it (its NOT
    is binary: a negation needs a positive partner in the same AND)."""
    if isinstance(node, Phrase) and node.proximity is not None:
        return _fts5_near(_leaf_tokens(node)[0], _slop(node))
    if isinstance(node, Token | Phrase | Operator):
        return _fts5_leaf(*_leaf_tokens(node))
    if isinstance(node, Not):
        return None
    if isinstance(node, Or):
        parts = [fts5_query(child) for child in node.children]
        return None if any(p is None for p in parts) else "(" + " OR ".join(parts) + ")"  # type: ignore[arg-type]
    positives = [fts5_query(c) for c in node.children if not isinstance(c, Not)]
    negatives = [fts5_query(c.child) for c in node.children if isinstance(c, Not)]
    if not positives or any(p is None for p in positives) or any(n is None for n in negatives):
        return None
    expr = "(" + " AND ".join(positives) + ")"  # type: ignore[arg-type]
    for negative in negatives:
        expr = f"({expr} NOT {negative})"
    return expr


def tsquery(node: Node) -> str:
    """The PostgreSQL tsquery text of a text-only sub-tree (lexemes quoted, so taken as written)."""
    if isinstance(node, Phrase) and node.proximity is not None:
        return _tsquery_near(_leaf_tokens(node)[0], _slop(node))
    if isinstance(node, Token | Phrase | Operator):
        return _tsquery_leaf(*_leaf_tokens(node))
    if isinstance(node, Not):
        return "!" + tsquery(node.child)
    joiner = " & " if isinstance(node, And) else " | "
    return "(" + joiner.join(tsquery(child) for child in node.children) + ")"


# ---- AST → plan ---------------------------------------------------------------------------------


class _Compiler:
    def __init__(self, dialect: Dialect, places: PlaceResolver | None) -> None:
        self.dialect = dialect
        self.places = places
        self.params: dict[str, Any] = {}

    def bind(self, value: Any) -> str:
        name = f"p{len(self.params)}"
        self.params[name] = value
        return name

    def text_query(self, node: Node) -> str | None:
        return tsquery(node) if self.dialect == "postgresql" else fts5_query(node)

    def slop_check(self, node: Phrase) -> Plan | None:
        """The exact proximity check of a phrase (None when the index query alone decides)."""
        toks = _leaf_tokens(node)[0]
        if not 2 <= len(toks) <= MAX_SLOP_TERMS:
            return None
        return ("slop", tuple(self.bind(t) for t in toks), self.bind(_slop(node)))

    def node(self, node: Node) -> Plan:
        if isinstance(node, Phrase) and node.proximity is not None:
            near = ("fts", self.bind(self.text_query(node)))
            check = self.slop_check(node)
            return near if check is None else ("and", near, check)
        if is_text(node):
            query = self.text_query(node)
            if query is not None:
                return ("fts", self.bind(query))
        if isinstance(node, Token | Phrase):  # unreachable: leaves always have a text query
            return FALSE
        if isinstance(node, Operator):
            return self.operator(node)
        if isinstance(node, Not):
            return ("not", self.node(node.child))
        kind = "and" if isinstance(node, And) else "or"
        texts = [c for c in node.children if is_text(c)]
        parts: list[Plan] = []
        if len(texts) > 1:
            group = And(tuple(texts)) if kind == "and" else Or(tuple(texts))
            query = self.text_query(group)
            if query is not None:
                parts.append(("fts", self.bind(query)))
                texts = []
        parts.extend(self.node(c) for c in node.children if not (is_text(c) and c not in texts))
        return (kind, *parts)

    def user(self, column: str, value: str) -> Plan:
        value = value.removeprefix("@")
        by_name = self.bind(value.lower())
        if value.isdigit() and str(int(value)) == value and int(value) <= MAX_ID:
            return ("user", column, self.bind(int(value)), by_name)
        return ("user", column, None, by_name)

    def operator(self, node: Operator) -> Plan:
        name, value = node.name, node.value
        if name == "from":
            return self.user("author_id", value)
        if name == "to":
            return self.user("in_reply_to_user_id", value)
        if name == "retweets_of":
            value = value.removeprefix("@")
            by_id = self.bind(int(value)) if value.isdigit() and int(value) <= MAX_ID else None
            return ("reposts_of", by_id, self.bind(value.lower()))
        if name in ("url", "url_contains"):
            escaped = value.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
            return ("urls", self.bind(f"%{escaped}%"))
        if name in _ID_COLUMNS:
            if not value.isdigit() or int(value) > MAX_ID:
                return FALSE
            return ("eq", _ID_COLUMNS[name], self.bind(int(value)))
        if name in _MINIMUM_COLUMNS:
            try:
                return ("ge", _MINIMUM_COLUMNS[name], self.bind(int(value)))
            except ValueError:
                return FALSE
        if name == "is":
            flag = value.lower()
            if flag in _IS_COLUMNS:
                return ("notnull", _IS_COLUMNS[flag])
            return ("verified",) if flag == "verified" else FALSE  # is:nullcast: roost has none
        if name in ("lang", "source"):
            return ("lower_eq", name, self.bind(value.lower()))
        if name in PLACE_OPERATORS and self.places is not None:
            ids = list(self.places(node))
            if not ids:
                return FALSE
            size = 1 << (len(ids) - 1).bit_length()  # padded to a power of two: few statement shapes
            ids += [ids[0]] * (size - len(ids))
            return ("in", "place_id", tuple(self.bind(i) for i in ids))
        if name == "list":
            if not value.isdigit() or int(value) > MAX_ID:
                return FALSE
            return ("list", self.bind(int(value)))
        return FALSE  # stream-only operators never match in search


def compile_query(node: Node, dialect: Dialect, places: PlaceResolver | None = None) -> Compiled:
    """The query as a driving full-text query (when the root is, or is an AND with, text clauses)
    plus a plan for the rest."""
    compiler = _Compiler(dialect, places)
    children = node.children if isinstance(node, And) else (node,)
    # Proximity phrases of the root AND join the driver as their NEAR rule; their exact check stays
    # in the plan.
    texts = [c for c in children if is_text(c) or _proximity(c)]
    driver = None
    ranked = False
    rest: list[Plan] = []
    if texts:
        group = texts[0] if len(texts) == 1 else And(tuple(texts))
        query = compiler.text_query(group)
        if query is not None:
            driver = compiler.bind(query)
            ranked = any(positive_text(c) for c in texts)
            checks = [compiler.slop_check(c) for c in children if _proximity(c)]  # type: ignore[arg-type]
            rest.extend(c for c in checks if c is not None)
            children = tuple(c for c in children if not (is_text(c) or _proximity(c)))
    rest = [compiler.node(c) for c in children] + rest
    plan: Plan = TRUE if not rest else rest[0] if len(rest) == 1 else ("and", *rest)
    return Compiled(driver, plan, compiler.params, ranked)


def _proximity(node: Node) -> bool:
    return isinstance(node, Phrase) and node.proximity is not None


# ---- plan → clause ------------------------------------------------------------------------------


def slop_match(dialect: str, names: tuple[str, ...], slop: str) -> ColumnElement[Any]:
    """The matcher's proximity rule (matcher.within_proximity) over the post's document tokens:
    distinct positions p_i of term i with max(p_i - i) - min(p_i - i) <= slop. Markers follow the
    text tokens and never equal a query term, so positions are the text's.

    Written pairwise so each join step prunes: spread <= slop iff every pair of shifted positions
    is within slop. Distinct terms sit at distinct positions anyway; equal terms are taken in
    increasing positions, which never widens the spread (so nothing is lost) and keeps a post full
    of one word from multiplying the join by the orderings of its copies."""
    if dialect == "postgresql":
        tokens = sa.func.string_to_array(posts.c.search_text, sa.literal_column("' '"))
        tables = [
            sa.func.unnest(tokens).table_valued("value", with_ordinality="key").render_derived(f"slop{i}")
            for i in range(len(names))
        ]
    else:  # the document as a JSON array: tokens are [a-z0-9]+, nothing to escape
        array = (
            sa.literal_column("'[\"'")
            .concat(
                sa.func.replace(posts.c.search_text, sa.literal_column("' '"), sa.literal_column("'\",\"'"))
            )
            .concat(sa.literal_column("'\"]'"))
        )
        tables = [
            sa.func.json_each(array).table_valued("key", "value").alias(f"slop{i}") for i in range(len(names))
        ]
    where: list[ColumnElement[Any]] = [
        t.c.value == sa.bindparam(n) for t, n in zip(tables, names, strict=True)
    ]
    shifted = [t.c.key - sa.literal_column(str(i)) for i, t in enumerate(tables)]
    for (i, a), (j, b) in combinations(enumerate(tables), 2):
        where.append(sa.or_(a.c.value != b.c.value, a.c.key < b.c.key))
        where.append(sa.func.abs(shifted[i] - shifted[j]) <= sa.bindparam(slop))
    return sa.exists(sa.select(sa.literal_column("1")).select_from(*tables).where(*where))


def _tsvector() -> ColumnElement[Any]:
    # Written exactly as the GIN index expression (migration 0008) so the planner can use it.
    return sa.func.to_tsvector(sa.literal_column("'simple'"), posts.c.search_text)


def tsquery_bind(name: str) -> ColumnElement[Any]:
    """The PostgreSQL tsquery bound as `name`."""
    return sa.cast(sa.cast(sa.bindparam(name), sa.Text), TSQUERY)


def text_match(dialect: str, name: str) -> ColumnElement[Any]:
    """The post matches the full-text query bound as `name`."""
    if dialect == "postgresql":
        return _tsvector().op("@@")(tsquery_bind(name))
    fts = sa.table("posts_fts", sa.column("rowid"))
    match = sa.literal_column("posts_fts").op("MATCH")(sa.bindparam(name))
    return posts.c.id.in_(sa.select(fts.c.rowid).where(match))


def _user_ids(by_id: str | None, by_name: str) -> tuple[ColumnElement[Any] | None, Any]:
    named = sa.select(users.c.id).where(users.c.username_lower == sa.bindparam(by_name))
    return (None if by_id is None else sa.bindparam(by_id)), named


def _col(name: str, empty: Any = 0) -> ColumnElement[Any]:
    """A posts column; nullable ones are coalesced so NOT keeps two-valued logic, as in the matcher."""
    column = posts.c[name]
    return sa.func.coalesce(column, empty) if column.nullable else column


@lru_cache(maxsize=4096)
def clause(dialect: str, plan: Plan) -> ColumnElement[Any]:
    """The Core clause of a plan (cached: plans hold no values)."""
    kind = plan[0]
    if kind == "false":
        return sa.false()
    if kind == "true":
        return sa.true()
    if kind == "fts":
        return text_match(dialect, plan[1])
    if kind == "slop":
        return slop_match(dialect, plan[1], plan[2])
    if kind == "and":
        return sa.and_(*(clause(dialect, p) for p in plan[1:]))
    if kind == "or":
        return sa.or_(*(clause(dialect, p) for p in plan[1:]))
    if kind == "not":
        return sa.not_(clause(dialect, plan[1]))
    if kind == "user":
        column = _col(plan[1])
        by_id, named = _user_ids(plan[2], plan[3])
        in_names = column.in_(named)
        return in_names if by_id is None else sa.or_(column == by_id, in_names)
    if kind == "reposts_of":
        by_id, named = _user_ids(plan[1], plan[2])
        original = posts.alias("original")
        authors: ColumnElement[bool] = original.c.author_id.in_(named)
        if by_id is not None:
            authors = sa.or_(original.c.author_id == by_id, authors)
        return _col("reposted_post_id").in_(sa.select(original.c.id).where(authors))
    if kind == "urls":
        return _col("search_urls", "").like(sa.bindparam(plan[1]), escape="/")
    if kind == "eq":
        return _col(plan[1]) == sa.bindparam(plan[2])
    if kind == "ge":
        return posts.c[plan[1]] >= sa.bindparam(plan[2])
    if kind == "notnull":
        return posts.c[plan[1]].is_not(None)
    if kind == "lower_eq":
        return sa.func.coalesce(sa.func.lower(posts.c[plan[1]]), "") == sa.bindparam(plan[2])
    if kind == "verified":
        return posts.c.author_id.in_(sa.select(users.c.id).where(users.c.verified == 1))
    if kind == "in":
        return posts.c[plan[1]].in_([sa.bindparam(name) for name in plan[2]])
    if kind == "list":
        # The members of a public list (a private one is its owner's alone, and matches nothing).
        members = (
            sa.select(list_members.c.user_id)
            .join(lists, lists.c.id == list_members.c.list_id)
            .where(list_members.c.list_id == sa.bindparam(plan[1]), lists.c.private == 0)
        )
        return posts.c.author_id.in_(members)
    raise ValueError(f"unknown plan node {kind!r}")


def positive_text(node: Node) -> bool:
    """True when the query has a keyword-like term (keyword, phrase, #, @, $) outside a negation:
    what the platform calls a keyword search (reposts are left out of those since 2026-05-04)."""
    if isinstance(node, Token | Phrase):
        return True
    if isinstance(node, Operator | Not):
        return False
    return any(positive_text(child) for child in node.children)
