"""News stories: lookup and search (`/2/news*`), and publishing through the control plane, which
appends `news.new` for the activity subscriptions (their keyword filter reads the story's text).

Search matches stories updated within `max_age_hours` whose headline, summary, hook, category or
keywords contain every word of the query (any case), the latest first.
"""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.errors import resource_not_found_item
from roost.core.ids import SnowflakeGenerator
from roost.core.params import MAX_ID
from roost.core.records import Row
from roost.domain.pages import Page
from roost.storage import news as news_rows
from roost.storage.db import Database
from roost.storage.events import append_event
from roost.storage.news import NewsStore
from roost.storage.posts import PostStore

DISCLAIMER = (
    "This story is a summary of posts on X and may evolve over time. "
    "Grok can make mistakes, verify its outputs."
)
EMPTY_CONTEXTS: dict[str, Any] = {
    "sports": {"teams": []},
    "entities": {"events": [], "organizations": [], "people": [], "places": [], "products": []},
    "topics": [],
    "finance": {"tickers": []},
}
PUBLISH_FIELDS = frozenset(
    {"name", "summary", "hook", "category", "disclaimer", "contexts", "keywords", "cluster_post_ids"}
)
_WORD = re.compile(r"\w+", re.UNICODE)


def story_view(row: Row) -> dict[str, Any]:
    """A stored story as the `news` object kind renders it (JSON columns decoded)."""
    return {
        "id": int(row["id"]),
        "name": row["name"],
        "category": row["category"],
        "summary": row["summary"],
        "hook": row["hook"],
        "disclaimer": row["disclaimer"],
        "contexts": jsonio.loads(row["contexts"]),
        "keywords": jsonio.loads(row["keywords"]),
        "cluster_post_ids": [int(post_id) for post_id in jsonio.loads(row["cluster_post_ids"])],
        "updated_at": int(row["updated_at"]),
    }


def story_text(story: dict[str, Any]) -> str:
    """What a search or an activity keyword filter reads of a story."""
    parts = [story["name"], story["summary"], story["hook"], story["category"], *story["keywords"]]
    return " ".join(str(part) for part in parts if part)


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def _string(body: dict[str, Any], name: str, default: str, limit: int) -> str:
    value = body.get(name, default)
    if not isinstance(value, str) or len(value) > limit:
        raise errors.invalid_body(f"{name} must be a string of at most {limit} characters")
    return value


def _strings(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise errors.invalid_body(f"{name} must be an array of non-empty strings")
    return list(value)


class News:
    def __init__(
        self, db: Database, clock: Clock, ids: SnowflakeGenerator, store: NewsStore, posts: PostStore
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._store = store
        self._posts = posts

    async def story(self, story_id: int) -> Page:
        row = await self._store.get(story_id) if story_id <= MAX_ID else None
        if row is None:
            return Page([], None, [resource_not_found_item("news", "id", str(story_id))])
        return Page([story_view(row)])

    async def search(self, query: str, limit: int, max_age_hours: int) -> Page:
        wanted = _words(query)
        since = self._clock.now_ms() - max_age_hours * 3_600_000
        found: list[dict[str, Any]] = []
        for row in await self._store.updated_since(since):
            story = story_view(row)
            words = set(_words(story_text(story)))
            if wanted and all(word in words for word in wanted):
                found.append(story)
                if len(found) == limit:
                    break
        return Page(found, {"result_count": len(found)})

    async def publish(self, body: Any) -> dict[str, Any]:
        """A new story (the control plane's), with `news.new` appended in its transaction."""
        if not isinstance(body, dict):
            raise errors.invalid_body("a JSON object is expected")
        extra = sorted(set(body) - PUBLISH_FIELDS)
        if extra:
            raise errors.invalid_body(f"unknown field {extra[0]}")
        name = _string(body, "name", "", 300)
        if not name:
            raise errors.invalid_body("name is required")
        contexts = body.get("contexts", EMPTY_CONTEXTS)
        if not isinstance(contexts, dict):
            raise errors.invalid_body("contexts must be an object")
        keywords = _strings(body.get("keywords", []), "keywords")
        cluster = [_post_id(raw) for raw in _strings(body.get("cluster_post_ids", []), "cluster_post_ids")]
        for post_id in cluster:
            post = await self._posts.get(post_id)
            if post is None or post["deleted_at"] is not None:
                raise errors.invalid_body(f"cluster_post_ids: post {post_id} does not exist")
        now = self._clock.now_ms()
        story_id = self._ids.next_id()
        row: dict[str, Any] = {
            "id": story_id,
            "name": name,
            "category": _string(body, "category", "News", 100),
            "summary": _string(body, "summary", "", 4000),
            "hook": _string(body, "hook", "", 1000),
            "disclaimer": _string(body, "disclaimer", DISCLAIMER, 1000),
            "contexts": jsonio.dumps(contexts).decode(),
            "keywords": jsonio.dumps(keywords).decode(),
            "cluster_post_ids": jsonio.dumps([str(post_id) for post_id in cluster]).decode(),
            "created_at": now,
            "updated_at": now,
        }
        async with self._db.transaction() as tx:
            await news_rows.insert_story(tx, row)
            await append_event(
                tx,
                event_id=self._ids.next_id(),
                kind="news.new",
                created_at=now,
                user_id=None,
                object_id=story_id,
                payload={"news_id": str(story_id)},
            )
        return story_view(row)


def _post_id(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or len(raw) > 19 or int(raw) > MAX_ID:
        raise errors.invalid_body(f"cluster_post_ids: {raw} is not a post id")
    return int(raw)
