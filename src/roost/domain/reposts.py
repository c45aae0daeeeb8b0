"""Reposts, quote posts and hidden replies.

A repost is a post row of its own (`reposted_post_id` names the source, `referenced_tweets` renders
`retweeted`, the text is the platform's `RT @username: …`). Creating and undoing one go through the
steps of `PostService` (counters, latest post, the `post.create` / `post.delete` events), so reposts
reach timelines, streams, account activity and activity events wherever posts do.
"""

from __future__ import annotations

from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.errors import not_authorized_for_resource_item, resource_not_found_item
from roost.core.ids import SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.domain.lookup import Lookup, visible_post
from roost.domain.pages import Page, offset_of, offset_page
from roost.domain.posts import METRICS, PostService, count_new
from roost.domain.social import body_id
from roost.domain.text import ELLIPSIS, extract_entities
from roost.storage import posts as post_rows
from roost.storage import reposts as repost_rows
from roost.storage import social as social_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Row
from roost.storage.posts import PostStore
from roost.storage.reposts import RepostStore

# A repost's text is cut to the platform's old length, ellipsis included (the full text is the
# source's: clients read it through `referenced_tweets`).
REPOST_TEXT_LIMIT = 140
# `retweeted_by` lists only the most recent reposting users (DOCS: x-api/posts/retweets/integrate).
REPOSTED_BY_CAP = 100
# The platform's refusal of a repost it does not permit (v1.1 code 328's wording).
NOT_PERMISSIBLE = "Retweet is not permissible for this status."
NOT_YOUR_CONVERSATION = "You are not permitted to perform this action."


def repost_text(username: str, text: str) -> str:
    full = f"RT @{username}: {text}"
    if len(full) <= REPOST_TEXT_LIMIT:
        return full
    return full[: REPOST_TEXT_LIMIT - len(ELLIPSIS)] + ELLIPSIS


def repost_entities(text: str, prefix: int, source: Row) -> dict[str, Any]:
    """Entities of a repost's text: what the text shows (the `@username` first), with the source's
    links where they survive the cut (a t.co link is kept as the source had it, not re-wrapped)."""
    entities = extract_entities(text)
    entities.pop("urls", None)
    body_end = len(text) - (len(ELLIPSIS) if text.endswith(ELLIPSIS) else 0)
    source_entities = jsonio.loads(source["entities"]) if source["entities"] else {}
    urls = []
    for url in source_entities.get("urls") or []:
        start, end = url["start"] + prefix, url["end"] + prefix
        if end <= body_end:
            urls.append({**url, "start": start, "end": end})
    if urls:
        spans = [(u["start"], u["end"]) for u in urls]
        for kind in ("mentions", "hashtags", "cashtags"):
            kept = [e for e in entities.get(kind, []) if not any(s <= e["start"] < t for s, t in spans)]
            if kept:
                entities[kind] = kept
            else:
                entities.pop(kind, None)
        entities["urls"] = urls
    return entities


def hidden_flag(body: Any) -> bool:
    """The `{"hidden": true|false}` body, checked like the platform's schema."""
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    extra = sorted(set(body) - {"hidden"})
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    if "hidden" not in body:
        raise errors.invalid_body("$.hidden: is missing but it is required")
    value = body["hidden"]
    if not isinstance(value, bool):
        raise errors.invalid_body(f"$.hidden: {jsonio.type_name(value)} found, boolean expected")
    return value


class Reposts:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        posts: PostService,
        post_store: PostStore,
        store: RepostStore,
        lookup: Lookup,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._posts = posts
        self._post_store = post_store
        self._store = store
        self._lookup = lookup

    # ---- writes ---------------------------------------------------------------------------------

    async def repost(self, user_id: int, body: Any) -> int:
        """Repost a post; answers the repost's id. Reposting a post already reposted answers the
        existing repost (no second post, no second event), as liking twice does."""
        source_id = body_id(body, "tweet_id")
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            source = await post_rows.get_for_update(tx, source_id)
            if source is not None and source["reposted_post_id"] is not None:
                # Reposting a repost reposts its source, as on the platform.
                source = await post_rows.get_for_update(tx, source["reposted_post_id"])
            if source is None or not visible_post(source):
                raise errors.invalid_request(
                    [
                        errors.param_error(
                            "tweet_id", str(source_id), f"Could not find tweet with tweet_id: [{source_id}]."
                        )
                    ]
                )
            author = await user_rows.get_user_tx(tx, source["author_id"])
            if author is not None and author["protected"] and author["id"] != user_id:
                # Posts of protected accounts cannot be reposted, by followers or anyone else.
                raise errors.forbidden(NOT_PERMISSIBLE)
            existing = await repost_rows.repost_of(tx, user_id, source["id"])
            if existing is not None:
                return int(existing["id"])
            username = author["username"] if author is not None else "unknown"
            text = repost_text(username, source["text"])
            entities = repost_entities(text, len(f"RT @{username}: "), source)
            await self._posts.resolve_mentions(tx, entities)  # writes the users' ids into the entities
            row = _repost_row(self._ids.next_id(), user_id, self._clock.now_ms(), source, text, entities)
            await post_rows.insert_post(tx, row, [])  # no mention rows: a repost is not a mention
            await count_new(tx, row)
            await self._posts.announce(tx, row, "post.create")
        return int(row["id"])

    async def unrepost(self, user_id: int, source_id: int) -> bool:
        """Undo a repost: the repost post is deleted as any post is; False if there was none."""
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            existing = await repost_rows.repost_of(tx, user_id, source_id)
            if existing is None:
                return False
            await self._posts.retract(tx, existing)
        return True

    async def hide_reply(self, user_id: int, post_id: int, body: Any) -> bool:
        """Hide or unhide a reply in a conversation the user started; answers the new state."""
        hidden = hidden_flag(body)
        async with self._db.transaction() as tx:
            reply = await post_rows.get_for_update(tx, post_id)
            if reply is None or not visible_post(reply):
                raise errors.not_found_problem(f"Could not find tweet with id: [{post_id}].")
            root = await post_rows.get_for_update(tx, reply["conversation_id"])
            root_author = root["author_id"] if root is not None else reply["in_reply_to_user_id"]
            if reply["in_reply_to_post_id"] is None or root_author != user_id:
                raise errors.forbidden(NOT_YOUR_CONVERSATION)
            await repost_rows.set_reply_hidden(tx, post_id, hidden)
        return hidden

    # ---- reads ----------------------------------------------------------------------------------

    async def reposted_by(
        self, viewer_id: int | None, post_id: int, limit: int, token: PageToken | None
    ) -> Page:
        problem = await self._post_problem(viewer_id, post_id)
        if problem is not None:
            return problem
        scope = f"retweeted_by:{post_id}"
        offset = offset_of(token, scope)
        room = max(0, REPOSTED_BY_CAP - offset)
        rows = await self._store.reposters(post_id, min(limit + 1, room), offset) if room else []
        return offset_page(rows, rows[:limit], offset, limit, scope)

    async def reposts(self, viewer_id: int | None, post_id: int, limit: int, token: PageToken | None) -> Page:
        problem = await self._post_problem(viewer_id, post_id)
        if problem is not None:
            return problem
        scope = f"retweets:{post_id}"
        offset = offset_of(token, scope)
        rows = await self._store.reposts(post_id, limit + 1, offset)
        return offset_page(rows, await self._visible(viewer_id, rows[:limit]), offset, limit, scope)

    async def quotes(
        self,
        viewer_id: int | None,
        post_id: int,
        limit: int,
        token: PageToken | None,
        exclude: frozenset[str],
    ) -> Page:
        """Posts quoting a post (a quote is never a repost row, so `exclude=retweets` leaves all)."""
        problem = await self._post_problem(viewer_id, post_id)
        if problem is not None:
            return problem
        scope = f"quote_tweets:{post_id}"
        offset = offset_of(token, scope)
        rows = await self._store.quotes(post_id, limit + 1, offset, "replies" not in exclude)
        page = offset_page(rows, await self._visible(viewer_id, rows[:limit]), offset, limit, scope)
        if page.meta is not None:
            page.meta.pop("previous_token", None)  # the platform's quote pages carry next_token only
        return page

    async def reposts_of_me(self, user_id: int, limit: int, token: PageToken | None) -> Page:
        scope = f"reposts_of_me:{user_id}"
        offset = offset_of(token, scope)
        rows = await self._store.reposts_of_user(user_id, limit + 1, offset)
        return offset_page(rows, await self._visible(user_id, rows[:limit]), offset, limit, scope)

    async def _visible(self, viewer_id: int | None, rows: list[Row]) -> list[Row]:
        hidden = await self._lookup.hidden_authors(viewer_id, (row["author_id"] for row in rows))
        return [row for row in rows if row["author_id"] not in hidden]

    async def _post_problem(self, viewer_id: int | None, post_id: int) -> Page | None:
        """The partial error standing in for an unknown post or one the viewer may not see."""
        post = await self._post_store.get(post_id)
        if post is None or not visible_post(post):
            return Page([], errors=[resource_not_found_item("tweet", "id", str(post_id))])
        if await self._lookup.hidden_authors(viewer_id, [post["author_id"]]):
            return Page([], errors=[not_authorized_for_resource_item("tweet", "id", str(post_id), "data")])
        return None


def _repost_row(
    post_id: int, author_id: int, now: int, source: Row, text: str, entities: dict[str, Any]
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": post_id,
        "author_id": author_id,
        "text": text,
        "display_text": None,
        "created_at": now,
        "conversation_id": post_id,
        "in_reply_to_post_id": None,
        "in_reply_to_user_id": None,
        "quoted_post_id": None,
        "reposted_post_id": int(source["id"]),
        "lang": source["lang"],
        "possibly_sensitive": source["possibly_sensitive"],
        "reply_settings": "everyone",
        "source": None,
        "community_id": None,
        "share_with_followers": 0,
        "paid_partnership": 0,
        "place_id": None,
        "media_keys": None,
        "poll_id": None,
        "entities": jsonio.dumps(entities).decode() if entities else None,
        "context_annotations": None,
        "withheld": None,
        "edit_history": None,
        "edits_remaining": 0,  # a repost cannot be edited
        "is_edit_eligible": 0,
        "superseded_by": None,
        "deleted_at": None,
        "reply_hidden": 0,
    }
    row.update(dict.fromkeys(METRICS, 0))
    return row
