"""v1.1 user objects as `account/verify_credentials` and `users/show` answer them, keys in the
platform's order, with the latest post as `status` (a v1.1 Tweet without its `user`)."""

from __future__ import annotations

from typing import Any

from roost.domain.v1_accounts import Account
from roost.events.v1_objects import DEFAULT_IMAGE, v1_status, v1_time

STATUS_KEYS = (
    "created_at",
    "id",
    "id_str",
    "text",
    "truncated",
    "entities",
    "extended_entities",
    "source",
    "in_reply_to_status_id",
    "in_reply_to_status_id_str",
    "in_reply_to_user_id",
    "in_reply_to_user_id_str",
    "in_reply_to_screen_name",
    "geo",
    "coordinates",
    "place",
    "contributors",
    "is_quote_status",
    "retweet_count",
    "favorite_count",
    "favorited",
    "retweeted",
    "possibly_sensitive",
    "lang",
)


def _status(account: Account) -> dict[str, Any] | None:
    if account.status is None:
        return None
    full = v1_status(account.status, account.user, {int(account.user["id"]): account.user}, nested=False)
    return {key: full[key] for key in STATUS_KEYS if key in full}


def _url_entities(url: str | None) -> dict[str, Any]:
    if not url:
        return {"description": {"urls": []}}
    return {
        "url": {
            "urls": [
                {
                    "url": url,
                    "expanded_url": url,
                    "display_url": url.split("://", 1)[-1],
                    "indices": [0, len(url)],
                }
            ]
        },
        "description": {"urls": []},
    }


def v1_account(
    account: Account, *, show: bool, email: bool | None = None, skip_status: bool = False
) -> dict[str, Any]:
    """`show`: the users/show shape (profile_location, no suspended flags); `email`: include the
    address (None: leave the key out)."""
    row = account.user
    image = str(row["profile_image_url"] or DEFAULT_IMAGE)
    out: dict[str, Any] = {
        "id": int(row["id"]),
        "id_str": str(row["id"]),
        "name": row["name"],
        "screen_name": row["username"],
    }
    if email:
        out["email"] = row["email"] or None
    out["location"] = row["location"] or ""
    if show:
        out["profile_location"] = None
    out.update(
        description=row["description"] or "",
        url=row["url"] or None,
        entities=_url_entities(row["url"]),
        protected=bool(row["protected"]),
        followers_count=int(row["followers_count"]),
        friends_count=int(row["following_count"]),
        listed_count=int(row["listed_count"]),
        created_at=v1_time(int(row["created_at"])),
        favourites_count=int(row["like_count"]),
        utc_offset=None,
        time_zone=None,
        geo_enabled=False,
        verified=bool(row["verified"]),
        statuses_count=int(row["tweet_count"]),
        lang=None,
    )
    status = None if skip_status else _status(account)
    if status is not None:
        out["status"] = status
    banner = row["profile_banner_url"]
    out.update(
        contributors_enabled=False,
        is_translator=False,
        is_translation_enabled=False,
        profile_background_color="F5F8FA",
        profile_background_image_url=None,
        profile_background_image_url_https=None,
        profile_background_tile=False,
        profile_image_url="http://" + image.split("://", 1)[-1],
        profile_image_url_https=image,
    )
    if banner:
        out["profile_banner_url"] = banner
    out.update(
        profile_link_color="1DA1F2",
        profile_sidebar_border_color="C0DEED",
        profile_sidebar_fill_color="DDEEF6",
        profile_text_color="333333",
        profile_use_background_image=True,
        has_extended_profile=False,
        default_profile=banner is None,
        default_profile_image=image == DEFAULT_IMAGE,
        following=account.following,
        follow_request_sent=False,
        notifications=False,
        translator_type="none",
    )
    if not show:
        out.update(suspended=False, needs_phone_verification=False)
    return out
