"""Legacy v1.1 object shapes for account-activity payloads: Tweet (status), User, DM user and
entities, rendered from storage rows.

Pure functions: the caller loads every row they refer to (authors, mentioned users, quoted posts)
and passes them in, so one event costs a fixed number of queries.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from roost.core import jsonio
from roost.core.ids import snowflake_ms
from roost.domain.posts import short_code
from roost.domain.text import ELLIPSIS, SHORT_URL_PREFIX, display_url, find_urls
from roost.storage.db import Row

COMPAT_LIMIT = 140  # v1.1 compatibility mode: longer text is truncated and carried in extended_tweet
TCO_LENGTH = 23  # len("https://t.co/") + a 10-character code
# The platform's samples: a truncated text is its first characters, "…", a space and a t.co link to
# the post itself (115 + 1 + 1 + 23 = 140 characters).
SELF_LINK = "https://twitter.com/i/web/status/{}"
PERMALINK = "https://twitter.com/{}/status/{}"
EDIT_WINDOW_MS = 3_600_000
DEFAULT_SOURCE = '<a href="https://mobile.twitter.com" rel="nofollow">Twitter Web App</a>'
DEFAULT_IMAGE = "https://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png"

Users = Mapping[int, Row]


def v1_time(epoch_ms: int) -> str:
    """v1.1 timestamps: `Mon Mar 26 16:33:26 +0000 2018` (always English names, always UTC)."""
    return time.strftime("%a %b %d %H:%M:%S +0000 %Y", time.gmtime(epoch_ms // 1000))


def _json(value: str | None) -> Any:
    return jsonio.loads(value) if value else None


def _image(row: Row) -> str:
    return str(row["profile_image_url"] or DEFAULT_IMAGE)


def _http(url: str) -> str:
    return "http://" + url[len("https://") :] if url.startswith("https://") else url


# ---- users ------------------------------------------------------------------------------------


def v1_user(row: Row) -> dict[str, Any]:
    """The full v1.1 User object."""
    user_id = int(row["id"])
    image = _image(row)
    out: dict[str, Any] = {
        "id": user_id,
        "id_str": str(user_id),
        "name": row["name"],
        "screen_name": row["username"],
        "location": row["location"] or None,
        "url": row["url"] or None,
        "description": row["description"] or None,
        "translator_type": "none",
        "protected": bool(row["protected"]),
        "verified": bool(row["verified"]),
        "followers_count": int(row["followers_count"]),
        "friends_count": int(row["following_count"]),
        "listed_count": int(row["listed_count"]),
        "favourites_count": int(row["like_count"]),
        "statuses_count": int(row["tweet_count"]),
        "created_at": v1_time(int(row["created_at"])),
        "utc_offset": None,
        "time_zone": None,
        "geo_enabled": False,
        "lang": None,
        "contributors_enabled": False,
        "is_translator": False,
        "profile_background_color": "F5F8FA",
        "profile_background_image_url": "",
        "profile_background_image_url_https": "",
        "profile_background_tile": False,
        "profile_link_color": "1DA1F2",
        "profile_sidebar_border_color": "C0DEED",
        "profile_sidebar_fill_color": "DDEEF6",
        "profile_text_color": "333333",
        "profile_use_background_image": True,
        "profile_image_url": _http(image),
        "profile_image_url_https": image,
        "default_profile": row["profile_banner_url"] is None,
        "default_profile_image": image == DEFAULT_IMAGE,
        "following": None,
        "follow_request_sent": None,
        "notifications": None,
    }
    if row["profile_banner_url"]:
        out["profile_banner_url"] = row["profile_banner_url"]
    withheld = _json(row["withheld"])
    if withheld and withheld.get("country_codes"):
        out["withheld_in_countries"] = list(withheld["country_codes"])
    return out


def stub_user(user_id: int) -> dict[str, Any]:
    """A user that no longer exists: only what the event itself knows."""
    return {"id": user_id, "id_str": str(user_id)}


def user_or_stub(users: Users, user_id: int) -> dict[str, Any]:
    row = users.get(user_id)
    return v1_user(row) if row is not None else stub_user(user_id)


def dm_user(row: Row) -> dict[str, Any]:
    """The compact user of a DM payload's `users` map: the samples' keys, in their order (location,
    description and url only when set; no http `profile_image_url`)."""
    out: dict[str, Any] = {
        "id": str(row["id"]),
        "created_timestamp": str(row["created_at"]),
        "name": row["name"],
        "screen_name": row["username"],
    }
    for name in ("location", "description", "url"):
        if row[name]:
            out[name] = row[name]
    out.update(
        protected=bool(row["protected"]),
        verified=bool(row["verified"]),
        followers_count=int(row["followers_count"]),
        friends_count=int(row["following_count"]),
        statuses_count=int(row["tweet_count"]),
        profile_image_url_https=_image(row),
    )
    return out


# ---- entities ---------------------------------------------------------------------------------


def _tag(entity: dict[str, Any]) -> dict[str, Any]:
    return {"text": entity["tag"], "indices": [entity["start"], entity["end"]]}


def v1_entities(entities: dict[str, Any] | None, users: Users, limit: int | None = None) -> dict[str, Any]:
    """v2-shaped stored entities → v1.1 {hashtags, urls, user_mentions, symbols} with `indices`;
    with `limit`, only the entities that end within the first `limit` characters. Mentions of
    users that do not exist are left out, as on the platform."""
    found = entities or {}

    def within(items: Any) -> list[dict[str, Any]]:
        return [e for e in items or () if limit is None or int(e["end"]) <= limit]

    mentions: list[dict[str, Any]] = []
    for item in within(found.get("mentions")):
        if item.get("id") is None:
            continue
        user_id = int(item["id"])
        row = users.get(user_id)
        mentions.append(
            {
                "screen_name": row["username"] if row is not None else item["username"],
                "name": row["name"] if row is not None else item["username"],
                "id": user_id,
                "id_str": str(user_id),
                "indices": [item["start"], item["end"]],
            }
        )
    return {
        "hashtags": [_tag(e) for e in within(found.get("hashtags"))],
        "urls": [
            {
                "url": e["url"],
                "expanded_url": e.get("expanded_url", e["url"]),
                "display_url": e.get("display_url", e["url"]),
                "indices": [e["start"], e["end"]],
            }
            for e in within(found.get("urls"))
        ],
        "user_mentions": mentions,
        "symbols": [_tag(e) for e in within(found.get("cashtags"))],
    }


def mention_ids(entities: dict[str, Any] | None) -> list[int]:
    return [int(m["id"]) for m in (entities or {}).get("mentions") or () if m.get("id") is not None]


def compat_cut(text: str, limit: int = COMPAT_LIMIT) -> str | None:
    """What a post longer than `limit` characters keeps of its text in compatibility mode: room is
    left for "… " and the self-link; never cut inside a URL, trailing spaces dropped (the samples
    cut mid-word). None when the text fits."""
    if len(text) <= limit:
        return None
    cut = limit - len(ELLIPSIS) - 1 - TCO_LENGTH
    for start, end in find_urls(text):
        if start < cut < end:
            cut = start
            break
    return text[:cut].rstrip()


def tco(expanded_url: str, seed: int) -> str:
    """The t.co link of a generated URL, as posts' links get theirs (stable per seed and URL)."""
    return SHORT_URL_PREFIX + short_code(seed, expanded_url)


def self_link(post_id: int, start: int, seed: int) -> dict[str, Any]:
    """The `entities.urls` item of a truncated text's trailing link to the post itself."""
    expanded = SELF_LINK.format(post_id)
    url = tco(expanded, seed)
    return {
        "url": url,
        "expanded_url": expanded,
        "display_url": display_url(expanded),
        "indices": [start, start + len(url)],
    }


def quoted_permalink(quoted_id: int, screen_name: str | None, seed: int) -> dict[str, str]:
    """`quoted_status_permalink` (data dictionary): the quoted post's link, kept out of the text."""
    expanded = PERMALINK.format(screen_name, quoted_id) if screen_name else SELF_LINK.format(quoted_id)
    return {"url": tco(expanded, seed), "expanded": expanded, "display": display_url(expanded)}


# ---- statuses ---------------------------------------------------------------------------------


def _edit_fields(post: Row) -> dict[str, Any]:
    history = _json(post["edit_history"]) or [post["id"]]
    opened = int(post["created_at"]) if len(history) < 2 else snowflake_ms(int(history[0]))
    return {
        "edit_history": {
            "initial_tweet_id": str(history[0]),
            "edit_tweet_ids": [str(version) for version in history],
        },
        "edit_controls": {
            "edits_remaining": int(post["edits_remaining"]),
            "is_edit_eligible": bool(post["is_edit_eligible"]),
            "editable_until_ms": opened + EDIT_WINDOW_MS,
        },
        "editable": bool(post["is_edit_eligible"]) and int(post["edits_remaining"]) > 0,
    }


def _get(post: Row, name: str, default: Any = None) -> Any:
    try:
        value = post[name]
    except (KeyError, IndexError):
        return default
    return default if value is None else value


def v1_status(
    post: Row,
    author: Row | None,
    users: Users | None = None,
    posts: Mapping[int, Row] | None = None,
    *,
    nested: bool = True,
    seed: int = 0,
) -> dict[str, Any]:
    """The v1.1 Tweet object of a post row in compatibility mode. `users` holds every user the post
    refers to (author, mentioned, replied-to), `posts` the quoted or reposted post and a reposted
    quote's quoted post (rendered when `nested`); `seed` makes the generated t.co links."""
    users = users or {}
    posts = posts or {}
    post_id = int(post["id"])
    author_id = int(post["author_id"])
    created = int(post["created_at"])
    full_text = str(post["text"])
    entities = _json(_get(post, "entities"))
    kept = compat_cut(full_text)
    user = v1_user(author) if author is not None else stub_user(author_id)
    reply_to = _get(post, "in_reply_to_post_id")
    reply_user = _get(post, "in_reply_to_user_id")
    reposted = _get(post, "reposted_post_id")
    original = posts.get(int(reposted)) if nested and reposted is not None else None
    quoted = _get(post, "quoted_post_id")
    if quoted is None and original is not None:
        quoted = _get(original, "quoted_post_id")  # a repost of a quote shows the quoted post too
    status: dict[str, Any] = {
        "created_at": v1_time(created),
        "id": post_id,
        "id_str": str(post_id),
        "text": full_text,
    }
    link: dict[str, Any] | None = None
    if kept is not None:
        link = self_link(post_id, len(kept) + len(ELLIPSIS) + 1, seed)
        status["text"] = f"{kept}{ELLIPSIS} {link['url']}"
        status["display_text_range"] = [0, len(status["text"])]
    status.update(
        {
            "source": _get(post, "source") or DEFAULT_SOURCE,
            "truncated": kept is not None,
            "in_reply_to_status_id": None if reply_to is None else int(reply_to),
            "in_reply_to_status_id_str": None if reply_to is None else str(reply_to),
            "in_reply_to_user_id": None if reply_user is None else int(reply_user),
            "in_reply_to_user_id_str": None if reply_user is None else str(reply_user),
            "in_reply_to_screen_name": None,
            "user": user,
            "geo": None,
            "coordinates": None,
            "place": None,
            "contributors": None,
        }
    )
    if reply_user is not None and int(reply_user) in users:
        status["in_reply_to_screen_name"] = users[int(reply_user)]["username"]
    if original is not None:
        original_author = users.get(int(original["author_id"]))
        # The source of a repost is never a repost itself, so this nests one quote deep at most.
        inner = _get(original, "reposted_post_id") is None
        status["retweeted_status"] = v1_status(
            original, original_author, users, posts, nested=inner, seed=seed
        )
    if quoted is not None:
        status["quoted_status_id"] = int(quoted)
        status["quoted_status_id_str"] = str(quoted)
        quoted_row = posts.get(int(quoted))
        quoted_author = users.get(int(quoted_row["author_id"])) if quoted_row is not None else None
        if nested and quoted_row is not None:
            status["quoted_status"] = v1_status(
                quoted_row, quoted_author, users, posts, nested=False, seed=seed
            )
        screen_name = str(quoted_author["username"]) if quoted_author is not None else None
        status["quoted_status_permalink"] = quoted_permalink(int(quoted), screen_name, seed)
    status["is_quote_status"] = quoted is not None
    if kept is not None:
        status["extended_tweet"] = {
            "full_text": full_text,
            "display_text_range": [0, len(full_text)],
            "entities": v1_entities(entities, users),
        }
    top = v1_entities(entities, users, None if kept is None else len(kept))
    if link is not None:
        top["urls"].append(link)
    status.update(
        quote_count=int(_get(post, "quote_count", 0)),
        reply_count=int(_get(post, "reply_count", 0)),
        retweet_count=int(_get(post, "retweet_count", 0)),
        favorite_count=int(_get(post, "like_count", 0)),
        entities=top,
        favorited=False,
        retweeted=False,
    )
    if top["urls"]:
        status["possibly_sensitive"] = bool(_get(post, "possibly_sensitive", 0))
    status.update(filter_level="low", lang=_get(post, "lang"), timestamp_ms=str(created))
    if _get(post, "edits_remaining") is not None:
        status.update(_edit_fields(post))
    return status
