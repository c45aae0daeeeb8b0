"""Bulk synthetic data for benchmarks: many users and posts, written straight through the storage layer.

Rows are built the way `PostService.create` and `accounts.create_user` build them (same columns,
same entity JSON from `extract_entities`, t.co rewriting with the same short codes, mentions resolved
to ids with `post_mentions` rows, reply / quote links with their counters), then written with
`maintenance.bulk_insert` in batches of one transaction each. No per-row queries, no events: like an
import, a bulk load is not a stream of API writes. With `follows=K`, each user follows about K others
(popular accounts, the prolific authors, are followed most) and the users' follower and following
counts are those edges' counts; without, the counts are drawn (the benchmark's data).

Ids come from a snowflake generator running on a clock moved through the past (as the demo seed does),
so each id's timestamp equals its row's `created_at`, ids and `created_at` increase together, and the
bulk data sits before the demo window. A worker number of its own keeps its ids apart from the server's
and the demo's; the caller's generator is told about the largest id at the end.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from roost.core import jsonio
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.domain.posts import STANDARD_LIMIT, _guess_lang, short_code
from roost.domain.text import (
    extract_entities,
    shorten_urls,
    truncate_for_display,
    user_entities,
    weighted_length,
)
from roost.storage import schema
from roost.storage.apps import AppStore, put_setting
from roost.storage.db import Database
from roost.storage.maintenance import bulk_insert
from roost.storage.search import document_columns

DAY_MS = 86_400_000
BATCH = 10_000
BULK_WORKER = 3  # demo seeding uses worker 2, the server's generator worker 1
_ASCII_LETTER = re.compile("[A-Za-z]")
SEEDED_SETTING = "bulk_seed"  # roost_settings key: what `roost seed` loaded into this database

# Told each batch as it is written: (stage, rows in the batch), stage one of users, follows, posts.
Progress = Callable[[str, int], None]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST = _words(
    "ada grace alan edsger barbara donald margaret ken radia tim frances leslie hedy linus katherine "
    "dennis sophie john shafi niklaus ama kofi yuki hiro lena omar priya ravi mei chen ines pablo"
)
LAST = _words(
    "lovelace hopper turing dijkstra liskov knuth hamilton thompson perlman berners allen lamport lamarr "
    "torvalds johnson ritchie wilson mccarthy mensah okafor tanaka sato novak haddad sharma kumar"
)
WORDS = _words(
    "the a our new old fast slow small big every this that release build test cache query index "
    "server client latency throughput queue stream webhook token schema migration deploy rollback "
    "bug fix patch review docs api sdk sandbox benchmark profile memory thread loop socket json "
    "today tonight finally again really still never always maybe just shipped broke merged wrote "
    "read learned tried found loved hated needs works fails runs waits compiles passes"
)
OPENERS = (
    "Shipping",
    "Reading about",
    "Debugging",
    "Hot take:",
    "Thread:",
    "TIL",
    "Quick note on",
    "Anyone else fighting",
    "Proud of the team for",
    "Small win:",
)
TOPICS = (
    "#python",
    "#rustlang",
    "#sqlite",
    "#postgres",
    "#devtools",
    "#opensource",
    "#testing",
    "#webdev",
    "#databases",
    "#api",
    "$ACME",
    "$ROOST",
)
EMOJI = ("🚀", "🔥", "✅", "🐛", "☕", "🎉", "👀")
PLACES = ("Berlin", "Lagos", "Lima", "Osaka", "Toronto", "Lisbon", "Pune", None, None)
PHRASES = (
    "Building things on the internet",
    "Databases, distributed systems and coffee",
    "Opinions are my own",
    "Backend engineer",
    "Writing about APIs",
    "Open source maintainer",
)


@dataclasses.dataclass(slots=True)
class _Plan:
    """The shape of the data, decided before any row is built (so counters are known up front)."""

    user_ids: list[int]
    user_created: list[int]
    usernames: list[str]
    post_ids: list[int]
    post_created: list[int]
    author: list[int]  # user index
    parent: list[int]  # post index replied to, or -1
    quoted: list[int]  # post index quoted, or -1
    conversation: list[int]  # post index of the conversation root
    replies: list[int]
    quotes: list[int]
    tweet_count: list[int]
    latest: list[int]  # post index, or -1
    first: list[int]  # post index, or -1


def _plan(
    ids: SnowflakeGenerator, clock: Clock, users: int, posts: int, rng: random.Random, now: int
) -> _Plan:
    # Users joined between ~3 years and ~400 days ago; their posts span the following year, ending a
    # month before now so the demo's last 30 days stay the newest content.
    user_start, post_start, post_end = now - 1100 * DAY_MS, now - 400 * DAY_MS, now - 31 * DAY_MS
    user_step = max((post_start - user_start) // max(users, 1), 1)
    post_step = max((post_end - post_start) // max(posts, 1), 1)

    user_ids: list[int] = []
    user_created: list[int] = []
    usernames: list[str] = []
    for index in range(users):
        clock.set(user_start + index * user_step + rng.randrange(user_step))
        user_ids.append(ids.next_id())
        user_created.append(clock.now_ms())
        first, last = rng.choice(FIRST), rng.choice(LAST)
        # Letters, then "_" and digits only: never one of the demo's `first_last<n>` names.
        usernames.append(f"{first[:5]}{last[:4]}_{index}")

    post_ids: list[int] = []
    post_created: list[int] = []
    author: list[int] = []
    parent: list[int] = []
    quoted: list[int] = []
    conversation: list[int] = []
    replies = [0] * posts
    quotes = [0] * posts
    tweet_count = [0] * users
    latest = [-1] * users
    first_post = [-1] * users
    for index in range(posts):
        clock.set(post_start + index * post_step + rng.randrange(post_step))
        post_ids.append(ids.next_id())
        post_created.append(clock.now_ms())
        # A skewed authorship: a few accounts post a lot, most post a little.
        who = min(int(users * rng.random() ** 2.5), users - 1)
        author.append(who)
        tweet_count[who] += 1
        latest[who] = index
        if first_post[who] < 0:
            first_post[who] = index
        roll = rng.random()
        target = -1
        quote = -1
        if index > 0 and roll < 0.15:
            target = index - 1 - min(int(rng.expovariate(1 / 40)), index - 1)  # mostly recent posts
            replies[target] += 1
        elif index > 0 and roll < 0.21:
            quote = rng.randrange(index)
            quotes[quote] += 1
        parent.append(target)
        quoted.append(quote)
        conversation.append(conversation[target] if target >= 0 else index)
    return _Plan(
        user_ids,
        user_created,
        usernames,
        post_ids,
        post_created,
        author,
        parent,
        quoted,
        conversation,
        replies,
        quotes,
        tweet_count,
        latest,
        first_post,
    )


@dataclasses.dataclass(slots=True)
class _Follows:
    """Follow edges as (follower index, followee index, created_at), and each user's two counts."""

    edges: list[tuple[int, int, int]]
    followers: list[int]
    following: list[int]


def _plan_follows(plan: _Plan, per_user: int, rng: random.Random, now: int) -> _Follows:
    users = len(plan.user_ids)
    followers = [0] * users
    following = [0] * users
    edges: list[tuple[int, int, int]] = []
    latest = now - 31 * DAY_MS  # edges stay before the demo's window, as the posts do
    for follower in range(users):
        wanted = min(users - 1, rng.randint(per_user - per_user // 2, per_user + per_user // 2))
        chosen: set[int] = set()
        tries = 0
        while len(chosen) < wanted:
            tries += 1
            # The authorship skew: the accounts that post most are followed most. After many repeats
            # (K close to the number of users) any other account will do.
            pick = (
                min(int(users * rng.random() ** 2.5), users - 1)
                if tries < 4 * wanted
                else rng.randrange(users)
            )
            if pick != follower:
                chosen.add(pick)
        for followee in sorted(chosen):
            since = max(plan.user_created[follower], plan.user_created[followee])
            edges.append((follower, followee, since + rng.randrange(max(latest - since, 1))))
            followers[followee] += 1
            following[follower] += 1
    return _Follows(edges, followers, following)


def _skewed(rng: random.Random, scale: float, alpha: float = 1.3) -> int:
    """A heavy-tailed count: most values small, a few large (likes, followers, ...)."""
    return int(scale * (rng.paretovariate(alpha) - 1.0))


def _user_row(plan: _Plan, index: int, rng: random.Random, posts: Sequence[int]) -> dict[str, Any]:
    uid = plan.user_ids[index]
    username = plan.usernames[index]
    first, _, _ = username.partition("_")
    description = f"{rng.choice(PHRASES)}. {rng.choice(TOPICS)}" if rng.random() < 0.8 else ""
    url = f"https://example.com/{username}" if rng.random() < 0.3 else ""
    verified = rng.random() < 0.05
    premium = rng.random() < 0.1
    latest = plan.latest[index]
    pinned = plan.first[index] if plan.first[index] >= 0 and rng.random() < 0.1 else -1
    return {
        "id": uid,
        "username": username,
        "username_lower": username.lower(),
        "name": f"{first[:5].title()} {rng.choice(LAST).title()}",
        "created_at": plan.user_created[index],
        "description": description,
        "location": rng.choice(PLACES),
        "url": url,
        "profile_image_url": f"https://pbs.twimg.com/profile_images/{uid}/avatar_normal.jpg",
        "profile_banner_url": None,
        "protected": int(rng.random() < 0.02),
        "verified": int(verified),
        "verified_type": "blue" if verified else "none",
        "subscription_type": rng.choice(("Basic", "Premium", "PremiumPlus")) if premium else "None",
        "parody": 0,
        "is_identity_verified": int(verified and rng.random() < 0.5),
        "pinned_post_id": posts[pinned] if pinned >= 0 else None,
        "most_recent_post_id": posts[latest] if latest >= 0 else None,
        "affiliation": None,
        "withheld": None,
        "entities": user_entities(description, url),
        "email": None,
        "password_hash": None,
        "followers_count": _skewed(rng, 40.0),
        "following_count": _skewed(rng, 60.0, 2.0),
        "tweet_count": plan.tweet_count[index],
        "listed_count": _skewed(rng, 0.5),
        "like_count": _skewed(rng, 200.0, 1.6),
        "media_count": 0,
    }


def _text(plan: _Plan, index: int, rng: random.Random) -> str:
    parts: list[str] = []
    if plan.parent[index] >= 0:
        parts.append(f"@{plan.usernames[plan.author[plan.parent[index]]]}")
    if rng.random() < 0.4:
        parts.append(rng.choice(OPENERS))
    parts.extend(rng.choice(WORDS) for _ in range(rng.randint(4, 22)))
    roll = rng.random()
    if roll < 0.25:
        parts.insert(rng.randint(1, len(parts)), f"@{plan.usernames[rng.randrange(len(plan.usernames))]}")
    if roll < 0.05:
        parts.append(f"cc @{plan.usernames[rng.randrange(len(plan.usernames))]}")
    if rng.random() < 0.35:
        parts.append(rng.choice(TOPICS))
    if rng.random() < 0.1:
        parts.append(rng.choice(TOPICS))
    if rng.random() < 0.08:
        parts.append(f"https://example.com/notes/{plan.post_ids[index] % 100_000}")
    if rng.random() < 0.1:
        parts.append(rng.choice(EMOJI))
    return " ".join(parts)


def _lang(text: str) -> str:
    """`_guess_lang`'s answer; ASCII text (most of it) short-cuts its per-script scans."""
    if text.isascii():
        return "en" if _ASCII_LETTER.search(text) else "zxx"
    return _guess_lang(text)


def _post_row(
    plan: _Plan,
    index: int,
    rng: random.Random,
    by_name: dict[str, int],
    short_code: Any,
) -> tuple[dict[str, Any], list[int]]:
    post_id = plan.post_ids[index]
    author_id = plan.user_ids[plan.author[index]]
    stored_text, url_entities = shorten_urls(_text(plan, index, rng), short_code)
    entities: dict[str, Any] = extract_entities(stored_text)
    if url_entities:
        entities["urls"] = url_entities
    mentioned: list[int] = []
    for mention in entities.get("mentions", ()):
        user_id = by_name.get(mention["username"].lower())
        if user_id is not None:
            mention["id"] = str(user_id)
            if user_id not in mentioned:
                mentioned.append(user_id)
    display = (
        truncate_for_display(stored_text)
        if len(stored_text) > STANDARD_LIMIT // 2 and weighted_length(stored_text) > STANDARD_LIMIT
        else None
    )
    parent = plan.parent[index]
    quoted = plan.quoted[index]
    likes = _skewed(rng, 3.0, 1.2)
    row = {
        "id": post_id,
        "author_id": author_id,
        "text": stored_text,
        "display_text": display,
        "created_at": plan.post_created[index],
        "conversation_id": plan.post_ids[plan.conversation[index]],
        "in_reply_to_post_id": plan.post_ids[parent] if parent >= 0 else None,
        "in_reply_to_user_id": plan.user_ids[plan.author[parent]] if parent >= 0 else None,
        "quoted_post_id": plan.post_ids[quoted] if quoted >= 0 else None,
        "reposted_post_id": None,
        "lang": _lang(stored_text),
        "possibly_sensitive": 0,
        "reply_settings": "everyone" if rng.random() < 0.97 else "following",
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
        "edits_remaining": 5,
        "is_edit_eligible": 1,
        "superseded_by": None,
        "retweet_count": likes // 5 + _skewed(rng, 0.3),
        "reply_count": plan.replies[index],
        "like_count": likes,
        "quote_count": plan.quotes[index],
        "bookmark_count": likes // 20,
        "impression_count": likes * rng.randint(20, 120) + rng.randint(5, 400),
        "deleted_at": None,
        "reply_hidden": 0,
        "nullcast": 0,
        "card_uri": None,
    }
    row.update(document_columns(row))  # the search document, as `insert_post` writes it
    return row, mentioned


def _check_columns(table: str, row: dict[str, Any]) -> None:
    """bulk_insert binds every column by name: fail early and clearly if the schema has moved on."""
    columns = {column.name for column in schema.metadata.tables[table].columns}
    if set(row) != columns:
        missing, extra = sorted(columns - set(row)), sorted(set(row) - columns)
        raise ValueError(f"bulk {table} rows do not match the schema: missing {missing}, extra {extra}")


async def load_bulk(
    db: Database,
    clock: Clock,
    ids: SnowflakeGenerator,
    *,
    url_seed: int,
    users: int,
    posts: int,
    seed: int,
    follows: int = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Insert `users` users, about `follows` follows per user and `posts` posts (with mentions);
    return counts, timings and sample ids. `clock` is the server's (the bulk data ends before its
    now), `ids` the generator to raise past the ids written, `url_seed` the server's short-link seed
    (`Settings.seed`); `progress` hears of each batch written.

    Deterministic for a given seed and clock instant up to the ids' timestamps (a frozen clock: the
    same rows). The follows draw from their own source, so users and posts are the same with or
    without them, bar the two counts. Usernames are `<letters>_<index>`: loading twice into the same
    database fails on the unique username index.
    """
    if users < 1 and posts > 0:
        raise ValueError("posts need at least one user")
    if follows < 0:
        raise ValueError("follows must not be negative")
    started = time.perf_counter()
    rng = random.Random(seed)
    now = clock.now_ms()
    past = Clock(frozen_ms=now)
    plan = _plan(SnowflakeGenerator(past, worker=BULK_WORKER), past, users, posts, rng, now)
    edges = _plan_follows(plan, follows, random.Random(f"follows:{seed}"), now) if follows else None
    planned = time.perf_counter()

    batch: list[dict[str, Any]] = []
    for index in range(users):
        batch.append(_user_row(plan, index, rng, plan.post_ids))
        if edges is not None:
            batch[-1]["followers_count"] = edges.followers[index]
            batch[-1]["following_count"] = edges.following[index]
        if index == 0:
            _check_columns("users", batch[0])
        if len(batch) >= BATCH or index == users - 1:
            await bulk_insert(db, "users", batch)
            if progress is not None:
                progress("users", len(batch))
            batch = []
    follow_count = 0
    if edges is not None:
        for start in range(0, len(edges.edges), BATCH):
            follow_rows = [
                {"follower_id": plan.user_ids[a], "followee_id": plan.user_ids[b], "created_at": at}
                for a, b, at in edges.edges[start : start + BATCH]
            ]
            if start == 0:
                _check_columns("follows", follow_rows[0])
            await bulk_insert(db, "follows", follow_rows)
            follow_count += len(follow_rows)
            if progress is not None:
                progress("follows", len(follow_rows))
    users_done = time.perf_counter()

    by_name = {name.lower(): uid for name, uid in zip(plan.usernames, plan.user_ids, strict=True)}
    rows: list[dict[str, Any]] = []
    mentions: list[dict[str, Any]] = []
    mention_count = 0
    for index in range(posts):
        row, mentioned = _post_row(plan, index, rng, by_name, functools.partial(short_code, url_seed))
        if index == 0:
            _check_columns("posts", row)
            _check_columns("post_mentions", {"post_id": row["id"], "user_id": row["author_id"]})
        rows.append(row)
        mentions.extend({"post_id": row["id"], "user_id": uid} for uid in mentioned)
        if len(rows) >= BATCH or index == posts - 1:
            await bulk_insert(db, "posts", rows)
            await bulk_insert(db, "post_mentions", mentions)
            mention_count += len(mentions)
            if progress is not None:
                progress("posts", len(rows))
            rows, mentions = [], []
    finished = time.perf_counter()

    for newest in (plan.post_ids[-1:], plan.user_ids[-1:]):
        for value in newest:
            ids.observe(value)
    sample = random.Random(url_seed + 1)
    replies = [plan.post_ids[i] for i in range(posts) if plan.parent[i] >= 0]
    quotes = [plan.post_ids[i] for i in range(posts) if plan.quoted[i] >= 0]
    return {
        "users": users,
        "posts": posts,
        "post_mentions": mention_count,
        "follows": follow_count,
        "replies": len(replies),
        "quotes": len(quotes),
        "seconds": round(finished - started, 3),
        "seconds_by_stage": {
            "plan": round(planned - started, 3),
            "users": round(users_done - planned, 3),
            "posts": round(finished - users_done, 3),
        },
        "first_post_id": plan.post_ids[0] if posts else None,
        "last_post_id": plan.post_ids[-1] if posts else None,
        "sample_post_ids": sample.sample(plan.post_ids, min(1000, posts)),
        "sample_user_ids": sample.sample(plan.user_ids, min(100, users)),
        "sample_usernames": sample.sample(plan.usernames, min(100, users)),
        "sample_reply_ids": sample.sample(replies, min(100, len(replies))),
        "sample_quote_ids": sample.sample(quotes, min(100, len(quotes))),
    }


async def seeded_before(db: Database) -> str | None:
    """What an earlier `roost seed` loaded into this database (its description), or None."""
    return await AppStore(db).setting(SEEDED_SETTING)


async def mark_seeded(db: Database, description: str) -> None:
    """Remember the load: a second one would collide with the first's usernames and ids."""
    async with db.transaction() as tx:
        await put_setting(tx, SEEDED_SETTING, description)
