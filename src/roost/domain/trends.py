"""Trends computed from the posts of the recent window (the last 7 days, as recent search): the
hashtags, cashtags and terms that the most posts carry, each counted once per post, with at least
two posts. By WOEID: worldwide (1), or the posts whose place lies in a country or city of the table
below. Personalized: the posts of the accounts the user follows and the user's own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from roost.core.clock import Clock
from roost.core.errors import resource_not_found_item
from roost.core.records import Row
from roost.domain.pages import Page
from roost.storage.trends import TrendStore

WINDOW_MS = 7 * 86_400_000
MAX_POSTS = 20_000  # the newest posts of the window a computation reads
MIN_POSTS = 2
WORLDWIDE = 1
# WOEID → ("country", ISO code) or ("city", place names that lie in it).
PLACES: dict[int, tuple[str, tuple[str, ...]]] = {
    23424977: ("country", ("US",)),
    23424975: ("country", ("GB",)),
    23424775: ("country", ("CA",)),
    23424829: ("country", ("DE",)),
    23424819: ("country", ("FR",)),
    23424856: ("country", ("JP",)),
    23424908: ("country", ("NG",)),
    23424919: ("country", ("PE",)),
    2459115: ("city", ("new york", "manhattan", "brooklyn", "queens", "bronx", "staten island")),
    2442047: ("city", ("los angeles",)),
    2379574: ("city", ("chicago",)),
    2487956: ("city", ("san francisco",)),
    44418: ("city", ("london",)),
    4118: ("city", ("toronto",)),
    638242: ("city", ("berlin",)),
    615702: ("city", ("paris",)),
    1118370: ("city", ("tokyo",)),
    15015370: ("city", ("osaka",)),
    1398823: ("city", ("lagos",)),
    418440: ("city", ("lima",)),
}
STOPWORDS = frozenset(
    [
        "about",
        "after",
        "again",
        "also",
        "among",
        "another",
        "anyone",
        "because",
        "been",
        "before",
        "being",
        "between",
        "both",
        "cannot",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "every",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "itself",
        "just",
        "more",
        "most",
        "much",
        "must",
        "never",
        "only",
        "other",
        "ought",
        "over",
        "same",
        "should",
        "since",
        "some",
        "still",
        "such",
        "than",
        "that",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "today",
        "tonight",
        "under",
        "until",
        "very",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "would",
        "your",
        "yours",
        "really",
        "thing",
        "things",
    ]
)
_TAG = re.compile(r"(?<![\w#$])([#$][A-Za-z_][\w]*)")
_WORD = re.compile(r"(?<![\w#$@/.])([A-Za-z][A-Za-z'-]{4,})(?![\w/])")
_URL = re.compile(r"https?://\S+")


@dataclass(slots=True)
class _Tally:
    name: str
    posts: int = 0
    since: int = 0
    forms: dict[str, int] = field(default_factory=dict)


def _terms(text: str) -> set[tuple[str, str]]:
    """(key, shown form) of every hashtag, cashtag and term of a post, once each."""
    plain = _URL.sub(" ", text)
    found: dict[str, str] = {}
    for tag in _TAG.findall(plain):
        found.setdefault(tag.lower(), tag)
    for word in _WORD.findall(plain):
        key = word.lower()
        if key not in STOPWORDS and not key.endswith("'s"):
            found.setdefault(key, word)
    return set(found.items())


def tally(rows: Sequence[Row]) -> list[_Tally]:
    """Trends of some posts, the most posts first (then the name): pure, so it is unit-tested alone."""
    counts: dict[str, _Tally] = {}
    for row in rows:
        created = int(row["created_at"])
        for key, form in _terms(str(row["text"])):
            entry = counts.get(key)
            if entry is None:
                entry = counts[key] = _Tally(form, 0, created)
            entry.posts += 1
            entry.since = min(entry.since, created)
            entry.forms[form] = entry.forms.get(form, 0) + 1
    ranked = [entry for entry in counts.values() if entry.posts >= MIN_POSTS]
    for entry in ranked:
        # The form most posts use; on a tie, the first one seen.
        entry.name = max(entry.forms.items(), key=lambda item: item[1])[0]
    # Hashtags and cashtags before bare terms of the same count: they are what people tag.
    ranked.sort(key=lambda e: (-e.posts, e.name[0] not in "#$", e.name.lower()))
    return ranked


def _in_place(row: Row, woeid: int) -> bool:
    if woeid == WORLDWIDE:
        return True
    kind, values = PLACES[woeid]
    if kind == "country":
        return row["country_code"] in values
    names = {str(row["name"] or "").lower(), str(row["full_name"] or "").split(",")[0].strip().lower()}
    return bool(names & set(values))


def _category(name: str) -> str:
    return "Finance" if name.startswith("$") else "Trending"


class Trends:
    def __init__(self, clock: Clock, store: TrendStore) -> None:
        self._clock = clock
        self._store = store

    async def by_woeid(self, woeid: int, limit: int) -> Page:
        if woeid != WORLDWIDE and woeid not in PLACES:
            return Page([], None, [resource_not_found_item("place", "woeid", str(woeid))])
        since = self._clock.now_ms() - WINDOW_MS
        rows = [row for row in await self._store.recent_public(since, MAX_POSTS) if _in_place(row, woeid)]
        return Page([_trend(entry) for entry in tally(rows)[:limit]])

    async def personalized(self, user_id: int) -> Page:
        since = self._clock.now_ms() - WINDOW_MS
        rows = await self._store.recent_followed(user_id, since, MAX_POSTS)
        return Page([_trend(entry) for entry in tally(rows)[:30]])


def _trend(entry: _Tally) -> dict[str, Any]:
    return {
        "trend_name": entry.name,
        "post_count": entry.posts,
        "category": _category(entry.name),
        "trending_since": entry.since,
    }
