"""Promoted products: posts, accounts and scheduled posts attached to line items.

Promoting a post of someone other than the account's FULL promotable user needs that author's
permission, which the platform records as a RETWEETS_ONLY promotable user of the account; the
association then promotes a new repost of it by the FULL user (the platform's nullcast repost), and
its `tweet_id` is the repost's id. roost has no nullcast flag, so the repost is an ordinary repost row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from roost.ads import entities, errors
from roost.ads.line_items import full_promotable_user
from roost.ads.params import format_time, parse_time
from roost.storage import posts as post_rows
from roost.storage.ads import EntityQuery
from roost.storage.db import Executor, Row

if TYPE_CHECKING:
    from roost.services import Services

MAX_TWEETS = 50
# A scheduled post roost does not hold goes out this long after the association, unless the
# request names its `scheduled_at`.
DEFAULT_SCHEDULE_DELAY_MS = 24 * 3600 * 1000
_HIDDEN = ("scheduled_at",)


def visible(body: dict[str, Any]) -> dict[str, Any]:
    """The API object without roost's own bookkeeping fields."""
    return {k: v for k, v in body.items() if k not in _HIDDEN}


async def live_parents(
    services: Services, account_id: str, wanted: Sequence[str] | None, with_deleted: bool
) -> list[str] | None:
    """Line item ids a promoted-product list may show: associations under a deleted line item stay
    `deleted: false` but appear only with `with_deleted=true`. None: no restriction."""
    if with_deleted:
        return list(wanted) if wanted else None
    rows, _ = await services.ads.entities(EntityQuery("line_item", account_id, ids=wanted or None))
    return [row["id"] for row in rows]


async def _line_item(services: Services, tx: Executor, account_id: str, line_item_id: str) -> Row:
    return await entities.load(
        services, "line_item", account_id, line_item_id, parameter="line_item_id", reader=tx
    )


async def _existing(
    services: Services, tx: Executor, kind: str, account_id: str, line_item_id: str
) -> list[Row]:
    rows, _ = await services.ads.entities(EntityQuery(kind, account_id, parent_ids=[line_item_id]), tx)
    return rows


# ---- promoted tweets ---------------------------------------------------------------------------


async def _repost(services: Services, tx: Executor, original: Row, author_id: int, now_ms: int) -> int:
    """A repost of `original` by the promoting user; returns its id."""
    author = await services.users.get(int(original["author_id"]))
    username = author["username"] if author else "unknown"
    post_id = services.ids.next_id()
    row: dict[str, Any] = {
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
    }
    await post_rows.insert_post(tx, row, [])
    return post_id


async def promote_tweets(
    services: Services,
    tx: Executor,
    account_id: str,
    line_item_id: str,
    tweet_ids: Sequence[int],
    *,
    now_ms: int,
    user_id: int,
) -> list[dict[str, Any]]:
    """Associations for every requested post (already promoted ones are returned, not repeated)."""
    line_item = await _line_item(services, tx, account_id, line_item_id)
    wanted = list(dict.fromkeys(tweet_ids))
    found = {int(row["id"]): row for row in await services.posts.get_many(wanted)}
    for tweet_id in wanted:
        post = found.get(tweet_id)
        if post is None or post["deleted_at"] is not None:
            raise errors.bad_request("INVALID_TWEET", f"Tweet {tweet_id} was not found", "tweet_ids")
    promoter = await full_promotable_user(services, account_id, tx)
    permitted = await promotable_authors(services, account_id, tx)
    for tweet_id in wanted:
        if int(found[tweet_id]["author_id"]) not in permitted:
            raise errors.bad_request(
                "INVALID_TWEET",
                f"Tweet {tweet_id} cannot be promoted by Account {account_id}: its author is not a "
                "promotable user of the account",
                "tweet_ids",
            )
    existing = await _existing(services, tx, "promoted_tweet", account_id, line_item["id"])
    by_tweet: dict[int, dict[str, Any]] = {int(row["body"]["tweet_id"]): row["body"] for row in existing}
    # A promoted repost stands for its original: promoting the original again is a no-op.
    for repost in await services.posts.get_many(list(by_tweet)):
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
            promoted_id = await _repost(services, tx, post, int(promoter), now_ms)
        body = await entities.create(
            services,
            tx,
            "promoted_tweet",
            account_id,
            {
                "line_item_id": line_item["id"],
                "tweet_id": str(promoted_id),
                "entity_status": "ACTIVE",
                "approval_status": "ACCEPTED",
            },
            now_ms=now_ms,
            user_id=user_id,
            parent_id=line_item["id"],
        )
        by_tweet[tweet_id] = body
        out.append(body)
    return out


async def promotable_authors(services: Services, account_id: str, reader: Executor) -> set[int]:
    """Users whose posts the account may promote: its FULL and RETWEETS_ONLY promotable users."""
    rows, _ = await services.ads.entities(EntityQuery("promotable_user", account_id), reader)
    return {int(row["body"]["user_id"]) for row in rows}


# ---- promoted accounts -------------------------------------------------------------------------


async def promote_account(
    services: Services,
    tx: Executor,
    account_id: str,
    line_item_id: str,
    promoted_user_id: int,
    *,
    now_ms: int,
    user_id: int,
) -> dict[str, Any]:
    line_item = await _line_item(services, tx, account_id, line_item_id)
    if line_item["body"].get("product_type") != "PROMOTED_ACCOUNT":
        raise errors.bad_request(
            "INCOMPATIBLE_LINE_ITEM",
            f"Line Item {line_item_id} is not configured for promoted accounts",
            "line_item_id",
        )
    # roost users cannot be suspended; unknown and protected users are the ineligible ones.
    user = await services.users.get(promoted_user_id)
    if user is None or user["protected"]:
        raise errors.bad_request(
            "INVALID_USER_ID", f"User {promoted_user_id} is not eligible for promotion", "user_id"
        )
    for row in await _existing(services, tx, "promoted_account", account_id, line_item["id"]):
        if row["body"].get("user_id") == str(promoted_user_id):
            return row["body"]  # already promoted: ignored
    return await entities.create(
        services,
        tx,
        "promoted_account",
        account_id,
        {
            "line_item_id": line_item["id"],
            "user_id": str(promoted_user_id),
            "entity_status": "ACTIVE",
            "approval_status": "ACCEPTED",
        },
        now_ms=now_ms,
        user_id=user_id,
        parent_id=line_item["id"],
    )


async def check_promoted_account_filter(
    services: Services, account_id: str, line_item_ids: Sequence[str]
) -> None:
    """Listing promoted accounts of line items none of which promotes accounts is refused."""
    rows, _ = await services.ads.entities(
        EntityQuery("line_item", account_id, ids=line_item_ids, with_deleted=True)
    )
    if rows and not any(row["body"].get("product_type") == "PROMOTED_ACCOUNT" for row in rows):
        raise errors.bad_request(
            "INCOMPATIBLE_LINE_ITEM",
            "None of the line items given in line_item_ids is configured for promoted accounts",
            "line_item_ids",
        )


# ---- scheduled promoted tweets -----------------------------------------------------------------


async def schedule_tweet(
    services: Services,
    tx: Executor,
    account_id: str,
    line_item_id: str,
    scheduled_tweet_id: int,
    scheduled_at_ms: int | None,
    *,
    now_ms: int,
    user_id: int,
) -> dict[str, Any]:
    line_item = await _line_item(services, tx, account_id, line_item_id)
    when = scheduled_at_ms if scheduled_at_ms is not None else now_ms + DEFAULT_SCHEDULE_DELAY_MS
    return await entities.create(
        services,
        tx,
        "scheduled_promoted_tweet",
        account_id,
        {
            "line_item_id": line_item["id"],
            "scheduled_tweet_id": str(scheduled_tweet_id),
            "tweet_id": None,  # set once the scheduled post goes out
            "scheduled_at": format_time(when),
        },
        now_ms=now_ms,
        user_id=user_id,
        parent_id=line_item["id"],
    )


async def unschedule_tweet(
    services: Services, tx: Executor, account_id: str, association_id: str, *, now_ms: int, user_id: int
) -> dict[str, Any]:
    row = await entities.load(services, "scheduled_promoted_tweet", account_id, association_id, reader=tx)
    when = parse_time(row["body"].get("scheduled_at") or "")
    if when is not None and now_ms >= when:
        raise errors.invalid_parameter(
            "scheduled_promoted_tweet_id",
            f"Scheduled Promoted Tweet {association_id} can not be deleted after its scheduled time",
        )
    return await entities.delete(services, tx, row, now_ms=now_ms, user_id=user_id)
