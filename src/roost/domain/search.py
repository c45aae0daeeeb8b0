"""Search and counts: the rules around the query (windows, defaults, paging, the repost rule, buckets,
the project's post cap), on top of the query language (`roost.search`), the SQL compiler
(storage/search_compiler.py) and the search store. The platform handlers (platform/search.py) pass a
`SearchRequest` in and the result out. Facts §4; docs/search.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from roost.config import Settings
from roost.core import pagination
from roost.core.clock import iso_ms, minute_text, parse_rfc3339
from roost.core.errors import invalid_request, param_error
from roost.core.pagination import PageToken
from roost.core.principal import Principal
from roost.core.records import Row
from roost.domain.packages import DEFAULT_PACKAGE, PACKAGES, operator_not_offered
from roost.domain.usage import Usage
from roost.search.ast import Node, Operator, QueryError, first_operator
from roost.search.matcher import matches
from roost.search.parser import parse
from roost.search.view import view_of
from roost.storage.search import SearchStore
from roost.storage.search_compiler import (
    PLACE_OPERATORS,
    Compiled,
    PlaceResolver,
    compile_query,
    positive_text,
)

Product = Literal["recent", "all"]

MAX_ID = (1 << 63) - 1
MINUTE_MS = 60_000
DAY_MS = 86_400_000
RECENT_WINDOW_MS = 7 * DAY_MS
ALL_DEFAULT_WINDOW_MS = 30 * DAY_MS  # full archive without start_time: the last 30 days
COUNTS_PAGE_MS = 30 * DAY_MS  # counts/all pages 30 days at a time
ARCHIVE_START_MS = parse_rfc3339("2006-03-21T00:00:00Z") or 0
END_GAP_MS = 10_000  # end_time must be at least 10 s before the request
DEFAULT_END_LAG_S = 30  # without end_time the platform searches up to 30 s ago
# From 2026-05-04 (changelog: "reposts no longer returned by keyword search").
KEYWORD_REPOSTS_CUTOFF_MS = parse_rfc3339("2026-05-04T00:00:00Z") or 0
GRANULARITY_MS = {"minute": MINUTE_MS, "hour": 3_600_000, "day": DAY_MS}


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """The parameters of a search or counts request, with the times as the client wrote them (the
    window errors echo them)."""

    query: str
    start_time: int | None = None
    end_time: int | None = None
    since_id: int | None = None
    until_id: int | None = None
    token: PageToken | None = None  # `next_token`, else `pagination_token`
    max_results: int = 10
    relevancy: bool = False  # sort_order=relevancy
    granularity: str = "hour"
    raw_start_time: str | None = None
    raw_end_time: str | None = None
    # Counts in post names (`post_count`, `total_post_count`): asked for by naming `post_count` in
    # `search_count.fields`, as a post-only field name asks for post names elsewhere.
    post_names: bool = False
    package: str = DEFAULT_PACKAGE  # the calling app's: it sets the longest query

    @classmethod
    def of(cls, params: Mapping[str, Any], raw: Mapping[str, str], package: str) -> SearchRequest:
        token = params.get("next_token")
        if token is None:
            token = params.get("pagination_token")
        return cls(
            query=params["query"],
            start_time=params.get("start_time"),
            end_time=params.get("end_time"),
            since_id=params.get("since_id"),
            until_id=params.get("until_id"),
            token=token,
            max_results=int(params.get("max_results") or 10),
            relevancy=params.get("sort_order") == "relevancy",
            granularity=params.get("granularity") or "hour",
            raw_start_time=raw.get("start_time"),
            raw_end_time=raw.get("end_time"),
            post_names="post_count" in (params.get("search_count.fields") or ()),
            package=package,
        )


@dataclass(frozen=True, slots=True)
class Window:
    start_ms: int
    end_ms: int
    since_id: int
    until_id: int


def _time_error(name: str, raw: str | None, message: str) -> Exception:
    return invalid_request([param_error(name, raw, message)])


def _uses(node: Node, names: frozenset[str]) -> bool:
    return first_operator(node, names) is not None


def _scope(kind: str, query: str) -> str:
    # Tokens are tied to the endpoint and the query: another query's token is refused.
    return f"{kind}:" + hashlib.blake2s(query.encode(), digest_size=8).hexdigest()


def _cursor(request: SearchRequest, scope: str) -> int | None:
    """The cursor of the request's `next_token` (or `pagination_token`): forward-only here."""
    return None if request.token is None else request.token.following(scope)


class SearchService:
    """Search and counts over the posts' full-text index. `settings` is read live: the query length
    limits (`search_{recent,all}_max_query_length`) and the default end lag
    (`search_default_end_lag_s`) can change while the server runs."""

    def __init__(self, store: SearchStore, settings: Settings, cap: Usage) -> None:
        self._store = store
        self._settings = settings
        self._cap = cap

    def query_limit(self, product: Product, package: str) -> int:
        """The longest query: the package's (pay-per-use 512 recent, 1,024 archive; enterprise 4,096),
        unless a setting holds for every app."""
        rules = PACKAGES[package]
        by_package = rules.recent_query_length if product == "recent" else rules.all_query_length
        return self._settings.whole(f"search_{product}_max_query_length", by_package, positive=True)

    def parse_query(self, product: Product, text: str, package: str) -> Node:
        """The query's AST, or an invalid-request error with the platform's wrapped messages."""
        try:
            root = parse(text, "search", max_length=self.query_limit(product, package)).root
        except QueryError as exc:
            messages = exc.messages
        else:
            if product == "all" and _uses(root, frozenset({"entity"})):
                messages = [operator_not_offered("entity")]
            else:
                return root
        text_ = "There were errors processing your request: " + ", ".join(messages)
        raise invalid_request([param_error("query", text, text_)])

    def window(self, product: Product, request: SearchRequest, now_ms: int) -> Window:
        """The time and id bounds of a request, checked as the platform checks them."""
        start, end = request.start_time, request.end_time
        if end is not None and end > now_ms - END_GAP_MS:
            raise _time_error(
                "end_time",
                request.raw_end_time,
                f"Invalid 'end_time':'{minute_text(end)}'. 'end_time' must be a minimum of 10 seconds "
                "prior to the request time.",
            )
        earliest = now_ms - RECENT_WINDOW_MS if product == "recent" else ARCHIVE_START_MS
        if start is not None and start < earliest:
            shown = -(-earliest // MINUTE_MS) * MINUTE_MS  # rounded up: the time shown is always allowed
            raise _time_error(
                "start_time",
                request.raw_start_time,
                f"Invalid 'start_time':'{minute_text(start)}'. 'start_time' must be on or after "
                f"{minute_text(shown)}",
            )
        lag_ms = int(self._settings.number("search_default_end_lag_s", DEFAULT_END_LAG_S) * 1000)
        if end is None:
            end = now_ms - lag_ms
        if start is None:
            if product == "recent":
                start = earliest
            else:  # the archive defaults to 30 days unless ids bound the request
                start = (
                    ARCHIVE_START_MS
                    if request.since_id is not None
                    else max(now_ms - ALL_DEFAULT_WINDOW_MS, earliest)
                )
        if start >= end and request.raw_start_time is not None:
            raise _time_error(
                "start_time",
                request.raw_start_time,
                f"Invalid 'start_time':'{minute_text(start)}'. 'start_time' must be before 'end_time':"
                f"'{minute_text(end)}'",
            )
        since_id = 0 if request.since_id is None else request.since_id
        until_id = MAX_ID if request.until_id is None else request.until_id
        return Window(start, end, since_id, until_id)

    async def _compile(self, root: Node) -> Compiled:
        return compile_query(root, self._store.dialect, await self._places(root))

    async def _places(self, root: Node) -> PlaceResolver | None:
        if not _uses(root, PLACE_OPERATORS):
            return None
        views = [
            (str(row["id"]), view_of({"id": 0, "place_id": row["id"]}, None, place=row))
            for row in await self._store.places()
        ]

        def resolve(operator: Operator) -> list[str]:
            return [place_id for place_id, view in views if matches(operator, view, "search")]

        return resolve

    def _no_reposts(self, root: Node, now_ms: int) -> bool:
        return now_ms >= KEYWORD_REPOSTS_CUTOFF_MS and positive_text(root)

    async def search(
        self, principal: Principal, product: Product, request: SearchRequest, now_ms: int
    ) -> tuple[list[Row], dict[str, Any]]:
        """A page for the principal's project: refused once its post cap is reached, and the posts
        returned count against the cap."""
        await self._cap.ensure_under_cap(principal.project_id, principal.package)
        rows, meta = await self.page(product, request, now_ms)
        await self._cap.record(principal.project_id, len(rows), principal.app_id)
        return rows, meta

    async def page(
        self, product: Product, request: SearchRequest, now_ms: int
    ) -> tuple[list[Row], dict[str, Any]]:
        """One page and its meta (`newest_id`, `oldest_id`, `result_count`, `next_token`). Newest
        first, or with `sort_order=relevancy` best match first (the engine's full-text score, ties
        newest first) when the query has a required keyword-like part; without one there is no
        relevance and the order is recency's (docs/search.md)."""
        query = request.query
        root = self.parse_query(product, query, request.package)
        bounds = self.window(product, request, now_ms)
        compiled = await self._compile(root)
        relevance = request.relevancy and compiled.ranked
        # Relevancy tokens carry an offset, recency tokens an id: separate scopes, so neither is
        # taken for the other (recency tokens are unchanged).
        scope = _scope(f"search-{product}" + ("-relevancy" if relevance else ""), query)
        cursor = _cursor(request, scope)
        until_id = bounds.until_id if cursor is None or relevance else min(bounds.until_id, cursor)
        offset = (cursor or 0) if relevance else None
        limit = request.max_results
        rows = await self._store.search(
            compiled,
            since_id=bounds.since_id,
            until_id=until_id,
            start_ms=bounds.start_ms,
            end_ms=bounds.end_ms,
            limit=limit + 1,
            no_reposts=self._no_reposts(root, now_ms),
            relevance_offset=offset,
        )
        more = len(rows) > limit
        rows = rows[:limit]
        meta: dict[str, Any] = {"result_count": len(rows)}
        if rows:
            page_ids = [int(row["id"]) for row in rows]
            meta = {
                "newest_id": str(max(page_ids)),
                "oldest_id": str(min(page_ids)),
                "result_count": len(rows),
            }
            if more:
                following = (offset or 0) + limit if relevance else page_ids[-1]
                meta["next_token"] = pagination.encode(following, pagination.NEXT, scope)
        return rows, meta

    async def counts(self, product: Product, request: SearchRequest, now_ms: int) -> dict[str, Any]:
        """`data: [{start, end, tweet_count}]` over the window (partial edge buckets, zero buckets),
        `meta.total_tweet_count` (or `post_count` and `total_post_count` in post names); counts/all
        pages 30 days at a time, newest first."""
        query = request.query
        root = self.parse_query(product, query, request.package)
        bounds = self.window(product, request, now_ms)
        scope = _scope(f"counts-{product}", query)
        cursor = _cursor(request, scope)
        start, end = bounds.start_ms, bounds.end_ms if cursor is None else min(bounds.end_ms, cursor)
        next_token = None
        if product == "all" and end - start > COUNTS_PAGE_MS:
            start = end - COUNTS_PAGE_MS
            next_token = pagination.encode(start, pagination.NEXT, scope)
        size = GRANULARITY_MS[request.granularity]
        found = await self._store.counts(
            await self._compile(root),
            since_id=bounds.since_id,
            until_id=bounds.until_id,
            start_ms=start,
            end_ms=end,
            bucket_ms=size,
            no_reposts=self._no_reposts(root, now_ms),
        )
        name = "post_count" if request.post_names else "tweet_count"
        data = buckets(start, end, size, found, name)
        total = sum(item[name] for item in data)
        meta: dict[str, Any] = {f"total_{name}": total}
        if next_token is not None:
            meta["next_token"] = next_token
        body: dict[str, Any] = {"meta": meta}
        if data:
            body = {"data": data, "meta": meta}
        return body


def buckets(
    start_ms: int, end_ms: int, size_ms: int, counts: Mapping[int, int], name: str = "tweet_count"
) -> list[dict[str, Any]]:
    """Buckets from the exact window start to the exact window end; inner edges on UTC minute / hour /
    day boundaries, so the first and last may be partial. `counts` is keyed by `created_at // size`.
    The count is `name`: `tweet_count` (live traffic, the 2.159 spec) or `post_count` (the 2.167 spec)."""
    out: list[dict[str, Any]] = []
    edge = start_ms
    while edge < end_ms:
        index = edge // size_ms
        upper = min((index + 1) * size_ms, end_ms)
        n = counts.get(index, 0)
        out.append({"end": iso_ms(upper), "start": iso_ms(edge), name: n})
        edge = upper
    return out
