"""Promoted products: posts, accounts and scheduled posts attached to line items.

Promoting a post of someone other than the account's FULL promotable user needs that author's
permission, which the platform records as a RETWEETS_ONLY promotable user of the account; the
association then promotes a new repost of it by the FULL user (the platform's nullcast repost), and
its `tweet_id` is the repost's id. The repost stays an ordinary (public) repost row, as it was before
posts had a nullcast flag (issue 23).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.entities import Entities
from roost.ads.line_items import full_promotable_user
from roost.ads.paging import AdsResult
from roost.ads.params import parse_time
from roost.core.ids import SnowflakeGenerator
from roost.core.records import Row
from roost.storage import posts as post_rows
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

MAX_TWEETS = 50
# The scheduled post's time, kept on the association (the scheduled post moves it along) so that
# deleting the association can be refused once the post has gone out.
_HIDDEN = ("scheduled_at",)
# kind -> the list filter naming associations by id
ID_FILTERS = {
    "promoted_tweet": "promoted_tweet_ids",
    "promoted_account": "promoted_account_ids",
    "scheduled_promoted_tweet": "scheduled_promoted_tweet_ids",
}


def visible(body: dict[str, Any]) -> dict[str, Any]:
    """The API object without roost's own bookkeeping fields."""
    return {k: v for k, v in body.items() if k not in _HIDDEN}


class Promoted:
    """Promoted tweets, promoted accounts and scheduled promoted tweets of an account's line items.
    Promoting another author's post writes a repost, so the service also reads users and posts."""

    def __init__(
        self,
        db: Database,
        store: AdsStore,
        entities: Entities,
        users: UserStore,
        posts: PostStore,
        ids: SnowflakeGenerator,
    ) -> None:
        self._db = db
        self._store = store
        self._entities = entities
        self._users = users
        self._posts = posts
        self._ids = ids  # repost ids

    # ---- reads ------------------------------------------------------------------------------

    async def page(self, kind: str, account_id: str, params: dict[str, Any]) -> AdsResult:
        """A list of one kind of association, hidden with their deleted line items unless
        `with_deleted`; promoted accounts filtered by line items that promote none are refused."""
        wanted = params.get("line_item_ids")
        if kind == "promoted_account" and wanted:
            await self._check_promoted_account_filter(account_id, wanted)
        parents = await self._live_parents(account_id, wanted, bool(params.get("with_deleted")))
        if parents is not None and not parents:
            return AdsResult([], paged=True, total_count=0 if params.get("with_total_count") else None)
        query = EntityQuery(kind, account_id, ids=params.get(ID_FILTERS[kind]), parent_ids=parents)
        page = await self._entities.list_page(query, params)
        page.data = [visible(body) for body in page.data]
        return page

    async def get(self, kind: str, account_id: str, ident: str, *, with_deleted: bool) -> dict[str, Any]:
        row = await self._entities.load(kind, account_id, ident, with_deleted=with_deleted)
        if not with_deleted:  # hidden with its deleted line item, as in lists
            parent = await self._store.entity(row["parent_id"] or "")
            if parent is None or parent["deleted"]:
                raise errors.not_found(kind, row["id"], account_id)
        return visible(row["body"])

    async def _live_parents(
        self, account_id: str, wanted: Sequence[str] | None, with_deleted: bool
    ) -> list[str] | None:
        """Line item ids a promoted-product list may show: associations under a deleted line item stay
        `deleted: false` but appear only with `with_deleted=true`. None: no restriction."""
        if with_deleted:
            return list(wanted) if wanted else None
        rows, _ = await self._store.entities(EntityQuery("line_item", account_id, ids=wanted or None))
        return [row["id"] for row in rows]

    async def _check_promoted_account_filter(self, account_id: str, line_item_ids: Sequence[str]) -> None:
        """Listing promoted accounts of line items none of which promotes accounts is refused."""
        rows, _ = await self._store.entities(
            EntityQuery("line_item", account_id, ids=line_item_ids, with_deleted=True)
        )
        if rows and not any(row["body"].get("product_type") == "PROMOTED_ACCOUNT" for row in rows):
            raise errors.bad_request(
                "INCOMPATIBLE_LINE_ITEM",
                "None of the line items given in line_item_ids is configured for promoted accounts",
                "line_item_ids",
            )

    # ---- deletes ----------------------------------------------------------------------------

    async def delete(self, kind: str, actor: Actor, ident: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            if kind == "scheduled_promoted_tweet":
                body = await self._unschedule_tweet(tx, actor, ident)
            else:
                row = await self._entities.load(kind, actor.account_id, ident, reader=tx)
                body = await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)
        return visible(body)

    async def _unschedule_tweet(self, tx: Executor, actor: Actor, association_id: str) -> dict[str, Any]:
        row = await self._entities.load(
            "scheduled_promoted_tweet", actor.account_id, association_id, reader=tx
        )
        when = parse_time(row["body"].get("scheduled_at") or "")
        if when is not None and actor.now_ms >= when:
            raise errors.invalid_parameter(
                "scheduled_promoted_tweet_id",
                f"Scheduled Promoted Tweet {association_id} can not be deleted after its scheduled time",
            )
        return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)

    # ---- promoted tweets --------------------------------------------------------------------

    async def promote_tweets(
        self, actor: Actor, line_item_id: str, tweet_ids: Sequence[int]
    ) -> list[dict[str, Any]]:
        """Associations for every requested post (already promoted ones are returned, not repeated)."""
        account_id = actor.account_id
        async with self._db.transaction() as tx:
            line_item = await self._line_item(tx, account_id, line_item_id)
            wanted = list(dict.fromkeys(tweet_ids))
            found = {int(row["id"]): row for row in await self._posts.get_many(wanted)}
            for tweet_id in wanted:
                post = found.get(tweet_id)
                if post is None or post["deleted_at"] is not None:
                    raise errors.bad_request("INVALID_TWEET", f"Tweet {tweet_id} was not found", "tweet_ids")
            promoter = await full_promotable_user(self._store, account_id, tx)
            permitted = await self._promotable_authors(account_id, tx)
            for tweet_id in wanted:
                if int(found[tweet_id]["author_id"]) not in permitted:
                    raise errors.bad_request(
                        "INVALID_TWEET",
                        f"Tweet {tweet_id} cannot be promoted by Account {account_id}: its author is not "
                        "a promotable user of the account",
                        "tweet_ids",
                    )
            existing = await self._existing(tx, "promoted_tweet", account_id, line_item["id"])
            by_tweet: dict[int, dict[str, Any]] = {
                int(row["body"]["tweet_id"]): row["body"] for row in existing
            }
            # A promoted repost stands for its original: promoting the original again is a no-op.
            for repost in await self._posts.get_many(list(by_tweet)):
                if repost["reposted_post_id"] is not None:
                    by_tweet.setdefault(int(repost["reposted_post_id"]), by_tweet[int(repost["id"])])
            out = []
            for tweet_id in wanted:
                if tweet_id in by_tweet:
                    out.append(by_tweet[tweet_id])
                    continue
                post = found[tweet_id]
                promoted_id = tweet_id
                if promoter is not None and int(post["author_id"]) != int(promoter):
                    promoted_id = await self._repost(tx, post, int(promoter), actor.now_ms)
                body = await self._entities.create(
                    tx,
                    "promoted_tweet",
                    account_id,
                    {
                        "line_item_id": line_item["id"],
                        "tweet_id": str(promoted_id),
                        "entity_status": "ACTIVE",
                        "approval_status": "ACCEPTED",
                    },
                    now_ms=actor.now_ms,
                    user_id=actor.user_id,
                    parent_id=line_item["id"],
                )
                by_tweet[tweet_id] = body
                out.append(body)
        return out

    async def _promotable_authors(self, account_id: str, reader: Executor) -> set[int]:
        """Users whose posts the account may promote: its FULL and RETWEETS_ONLY promotable users."""
        rows, _ = await self._store.entities(EntityQuery("promotable_user", account_id), reader)
        return {int(row["body"]["user_id"]) for row in rows}

    async def _repost(self, tx: Executor, original: Row, author_id: int, now_ms: int) -> int:
        """A repost of `original` by the promoting user; returns its id."""
        author = await self._users.get(int(original["author_id"]))
        username = author["username"] if author else "unknown"
        post_id = self._ids.next_id()
        await post_rows.insert_post(tx, _repost_row(post_id, original, author_id, username, now_ms), [])
        return post_id

    # ---- promoted accounts ------------------------------------------------------------------

    async def promote_account(self, actor: Actor, line_item_id: str, promoted_user_id: int) -> dict[str, Any]:
        account_id = actor.account_id
        async with self._db.transaction() as tx:
            line_item = await self._line_item(tx, account_id, line_item_id)
            if line_item["body"].get("product_type") != "PROMOTED_ACCOUNT":
                raise errors.bad_request(
                    "INCOMPATIBLE_LINE_ITEM",
                    f"Line Item {line_item_id} is not configured for promoted accounts",
                    "line_item_id",
                )
            # roost users cannot be suspended; unknown and protected users are the ineligible ones.
            user = await self._users.get(promoted_user_id)
            if user is None or user["protected"]:
                raise errors.bad_request(
                    "INVALID_USER_ID", f"User {promoted_user_id} is not eligible for promotion", "user_id"
                )
            for row in await self._existing(tx, "promoted_account", account_id, line_item["id"]):
                if row["body"].get("user_id") == str(promoted_user_id):
                    return row["body"]  # already promoted: ignored
            return await self._entities.create(
                tx,
                "promoted_account",
                account_id,
                {
                    "line_item_id": line_item["id"],
                    "user_id": str(promoted_user_id),
                    "entity_status": "ACTIVE",
                    "approval_status": "ACCEPTED",
                },
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=line_item["id"],
            )

    # ---- scheduled promoted tweets ----------------------------------------------------------

    async def schedule_tweet(
        self, actor: Actor, line_item_id: str, scheduled_tweet_id: int
    ) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            line_item = await self._line_item(tx, actor.account_id, line_item_id)
            scheduled = await self._entities.load(
                "scheduled_tweet",
                actor.account_id,
                str(scheduled_tweet_id),
                parameter="scheduled_tweet_id",
                reader=tx,
            )
            if scheduled["body"]["scheduled_status"] != "SCHEDULED":
                raise errors.invalid_parameter(
                    "scheduled_tweet_id", f"Scheduled Tweet {scheduled_tweet_id} is no longer scheduled"
                )
            body = await self._entities.create(
                tx,
                "scheduled_promoted_tweet",
                actor.account_id,
                {
                    "line_item_id": line_item["id"],
                    "scheduled_tweet_id": str(scheduled_tweet_id),
                    "tweet_id": None,  # set once the scheduled post goes out
                    "scheduled_at": scheduled["body"]["scheduled_at"],
                },
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=line_item["id"],
            )
        return visible(body)

    # ---- shared -----------------------------------------------------------------------------

    async def _line_item(self, tx: Executor, account_id: str, line_item_id: str) -> Row:
        return await self._entities.load(
            "line_item", account_id, line_item_id, parameter="line_item_id", reader=tx
        )

    async def _existing(self, tx: Executor, kind: str, account_id: str, line_item_id: str) -> list[Row]:
        rows, _ = await self._store.entities(EntityQuery(kind, account_id, parent_ids=[line_item_id]), tx)
        return rows


def _repost_row(post_id: int, original: Row, author_id: int, username: str, now_ms: int) -> dict[str, Any]:
    """The stored row of a repost of `original` by `author_id` (`username` is the original's author)."""
    return {
        "id": post_id,
        "author_id": author_id,
        "text": f"RT @{username}: {original['text']}",
        "display_text": None,
        "created_at": now_ms,
        "conversation_id": post_id,
        "in_reply_to_post_id": None,
        "in_reply_to_user_id": None,
        "quoted_post_id": None,
        "reposted_post_id": int(original["id"]),
        "lang": original["lang"],
        "possibly_sensitive": 0,
        "reply_settings": "everyone",
        "source": None,
        "community_id": None,
        "share_with_followers": 0,
        "paid_partnership": 0,
        "place_id": None,
        "media_keys": None,
        "poll_id": None,
        "entities": None,
        "context_annotations": None,
        "withheld": None,
        "edit_history": None,
        "edits_remaining": 0,
        "is_edit_eligible": 0,
        "superseded_by": None,
        "retweet_count": 0,
        "reply_count": 0,
        "like_count": 0,
        "quote_count": 0,
        "bookmark_count": 0,
        "impression_count": 0,
        "deleted_at": None,
        "reply_hidden": 0,
    }
