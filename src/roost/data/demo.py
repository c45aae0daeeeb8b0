"""The demo dataset: a developer app, its owner, a few dozen users and some hundreds of posts.

Generated from a fixed seed so ids, keys and texts are the same on every machine; created through
the same domain code as API writes (with a clock set in the past) so counters and entities agree.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from roost.core import jsonio
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator, TokenSource, media_key
from roost.data.demo_community import seed_community
from roost.domain.accounts import AccountService
from roost.domain.lists import ListService
from roost.domain.lookup import Lookup
from roost.domain.maintenance import (
    DEMO_APP_SETTING,
    DEMO_SELF_SERVE_APP_SETTING,
    DEMO_USER_SETTING,
    Maintenance,
)
from roost.domain.packages import PAY_PER_USE
from roost.domain.posts import PostService
from roost.domain.reposts import Reposts
from roost.domain.space_objects import TOPICS as SPACE_TOPICS
from roost.domain.spaces import SPACE_ALPHABET
from roost.storage import apps as app_rows
from roost.storage import bookmarks as bookmark_rows
from roost.storage import compliance as compliance_rows
from roost.storage import dm_extras as dm_block_rows
from roost.storage import social as social_rows
from roost.storage import spaces as space_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.lists import ListStore
from roost.storage.posts import PostStore, bump_post, bump_user
from roost.storage.reposts import RepostStore
from roost.storage.users import UserStore

DEMO_USERNAME = "roost_dev"
DEMO_PASSWORD = "roost"  # for the sign-in page of the authorize flows
DEMO_APP = "roost demo app"
DEMO_SELF_SERVE_APP = "roost pay-per-use app"
SELF_SERVE_WORKER = 5  # id worker of the second demo app (accounts use 2, posts 3, extras 4)
DAY_MS = 86_400_000
ACCOUNTS_EPOCH_MS = 1_717_200_000_000  # 2024-06-01T00:00:00Z

FIRST = [
    "Ada",
    "Grace",
    "Alan",
    "Edsger",
    "Barbara",
    "Donald",
    "Margaret",
    "Ken",
    "Radia",
    "Tim",
    "Frances",
    "Leslie",
    "Hedy",
    "Linus",
    "Katherine",
    "Dennis",
    "Sophie",
    "John",
    "Shafi",
    "Niklaus",
]
LAST = [
    "Lovelace",
    "Hopper",
    "Turing",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Hamilton",
    "Thompson",
    "Perlman",
    "Berners",
    "Allen",
    "Lamport",
    "Lamarr",
    "Torvalds",
    "Johnson",
    "Ritchie",
    "Wilson",
    "McCarthy",
]
TOPICS = [
    "#rustlang",
    "#python",
    "#databases",
    "#webhooks",
    "#opensource",
    "#devtools",
    "$ACME",
    "#sqlite",
    "#postgres",
    "#testing",
]
PHRASES = [
    "Shipping a new release today",
    "Reading about consensus protocols",
    "Benchmarks are a kind of honesty",
    "Just migrated our sandbox to roost",
    "Who else is debugging OAuth signatures tonight",
    "Coffee, then webhooks",
    "Hot take: integration tests beat mocks",
    "Writing docs is part of the work",
    "Refactoring the pipeline so handlers stay thin",
    "The CRC check finally passes",
    "Long weekend reading list is ready",
    "Pagination tokens should be opaque",
]
PLACES = [
    {
        "id": "01a9a39529b27f36",
        "full_name": "Manhattan, NY",
        "name": "Manhattan",
        "country": "United States",
        "country_code": "US",
        "place_type": "city",
        "geo": {"type": "Feature", "bbox": [-74.026675, 40.683935, -73.910408, 40.877483], "properties": {}},
    },
    {
        "id": "5e02a0f0d91c76d2",
        "full_name": "London, England",
        "name": "London",
        "country": "United Kingdom",
        "country_code": "GB",
        "place_type": "city",
        "geo": {"type": "Feature", "bbox": [-0.187894, 51.483718, -0.109978, 51.516466], "properties": {}},
    },
]


@dataclass(frozen=True, slots=True)
class SeedSources:
    """Where the demo accounts draw time, ids and tokens: a fixed instant and a seeded source, so the
    demo credentials (and the demo advertiser's ids) are the same on every machine and after every
    reset."""

    clock: Clock
    ids: SnowflakeGenerator
    tokens: TokenSource


# The demo advertiser, seeded from the same sources: (sources, owner user id, created-at ms).
AdsSeed = Callable[[SeedSources, int, int], Awaitable[None]]


class DemoSeed:
    """Creates the demo dataset in an empty database, through the same domain code as API writes
    (with clocks set in the past) so counters and entities agree."""

    def __init__(
        self,
        *,
        enabled: bool,
        seed: int,
        db: Database,
        users: UserStore,
        clock: Clock,
        accounts: AccountService,
        maintenance: Maintenance,
        ads: AdsSeed,
    ) -> None:
        self._enabled = enabled
        self._seed = seed
        self._db = db
        self._users = users
        self._clock = clock
        self._accounts = accounts
        self._maintenance = maintenance
        self._ads = ads

    async def seed_if_empty(self) -> None:
        if self._enabled and not await self._maintenance.demo_seeded():
            await self.seed()

    async def seed(self, *, users: int = 40, posts: int = 400) -> dict[str, Any]:
        """Create the demo dataset in an empty database; returns the demo app and user rows."""
        rng = random.Random(self._seed)
        now = self._clock.now_ms()
        start = now - 30 * DAY_MS
        # Accounts, keys and tokens come from a fixed instant and a seeded source; posts are recent.
        accounts_clock = Clock(frozen_ms=ACCOUNTS_EPOCH_MS)
        sources = SeedSources(
            accounts_clock, SnowflakeGenerator(accounts_clock, worker=2), TokenSource(self._seed)
        )
        accounts = self._accounts.with_sources(sources.clock, sources.ids, sources.tokens)
        async with self._db.transaction() as tx:
            owner = await accounts.create_user_in(
                tx,
                username=DEMO_USERNAME,
                name="Roost Developer",
                description="Building against roost. #devtools",
                url="https://example.com/roost",
                subscription_type="Premium",
                verified=True,
                verified_type="blue",
                location="Everywhere",
                password=DEMO_PASSWORD,
            )
            app = await accounts.create_app_in(
                tx,
                name=DEMO_APP,
                owner_user_id=owner["id"],
                callback_urls=["http://127.0.0.1:8080/callback", "oob"],
            )
            await accounts.issue_oauth1_in(tx, app, owner["id"])
            await accounts.issue_oauth2_in(tx, app, owner["id"])
            people = [owner]
            for index in range(users - 1):
                first, last = rng.choice(FIRST), rng.choice(LAST)
                person = await accounts.create_user_in(
                    tx,
                    username=f"{first.lower()[:6]}_{last.lower()[:5]}{index}",
                    name=f"{first} {last}",
                    description=f"{rng.choice(PHRASES)}. {rng.choice(TOPICS)}",
                    location=rng.choice(["Berlin", "Lagos", "Lima", "Osaka", "Toronto", None]),
                    verified=index % 7 == 0,
                    verified_type="blue" if index % 7 == 0 else "none",
                    protected=index % 13 == 12,
                    subscription_type="Premium" if index % 5 == 0 else "None",
                )
                people.append(person)
            for place in PLACES:
                await user_rows.insert_place(
                    tx, {**place, "geo": jsonio.dumps(place["geo"]).decode(), "contained_within": None}
                )
            for person in people[1:]:
                for other in rng.sample(people, 6):
                    if other["id"] != person["id"]:
                        await user_rows.insert_follow(
                            tx, {"follower_id": person["id"], "followee_id": other["id"], "created_at": start}
                        )
            media_ids = await _media(sources, tx, people, rng)
            await app_rows.put_setting(tx, DEMO_APP_SETTING, str(app["id"]))
            await app_rows.put_setting(tx, DEMO_USER_SETTING, str(owner["id"]))
        await self._ads(sources, owner["id"], ACCOUNTS_EPOCH_MS)
        await self._follow_counts(people)
        past_clock = Clock(frozen_ms=start)
        # Some drawn replies and quotes target protected posts: the seed keeps them, so the dataset stays.
        post_ids = SnowflakeGenerator(past_clock, worker=3)
        posting = PostService(self._db, past_clock, post_ids, self._seed, check_visibility=False)
        await _posts(posting, past_clock, people, media_ids, rng, posts, now)
        await self._social_extras(owner, people, now)
        await _lists(self._db, self._users, people, random.Random(self._seed + 14))  # lists (issue 14)
        await _reposts_and_hidden_replies(
            self._db, self._users, posting, past_clock, post_ids, people, self._seed
        )
        await self._spaces_and_standing(owner, people, now)  # issue 15
        await seed_community(self._db, self._seed, owner, people, now)
        await self._self_serve_app(owner)
        await self._maintenance.observe_ids()
        return {"app": app, "user": owner}

    async def _self_serve_app(self, owner: dict) -> None:
        """A second app, on the pay-per-use package, with the demo user's tokens: the self-serve rules
        can be tried at once (issue 20). Made last, from sources of its own, so no earlier id, key or
        token changes."""
        clock = Clock(frozen_ms=ACCOUNTS_EPOCH_MS)
        ids = SnowflakeGenerator(clock, worker=SELF_SERVE_WORKER)
        accounts = self._accounts.with_sources(clock, ids, TokenSource(self._seed + 20))
        async with self._db.transaction() as tx:
            app = await accounts.create_app_in(
                tx,
                name=DEMO_SELF_SERVE_APP,
                owner_user_id=owner["id"],
                callback_urls=["http://127.0.0.1:8080/callback", "oob"],
                package=PAY_PER_USE,
            )
            await accounts.issue_oauth1_in(tx, app, owner["id"])
            await accounts.issue_oauth2_in(tx, app, owner["id"])
            await app_rows.put_setting(tx, DEMO_SELF_SERVE_APP_SETTING, str(app["id"]))

    async def _social_extras(self, owner: dict, people: list[dict], now: int) -> None:
        """Issue 14's objects, made after everything above so no earlier id or object changes: the
        owner's bookmarks (some in a folder), a DM block, and an organisation with affiliated staff."""
        rng = random.Random(self._seed + 14)
        clock = Clock(frozen_ms=ACCOUNTS_EPOCH_MS)
        ids = SnowflakeGenerator(clock, worker=4)
        accounts = self._accounts.with_sources(clock, ids, TokenSource(self._seed + 14))
        async with self._db.transaction() as tx:
            folder_id = ids.next_id()
            await bookmark_rows.insert_folder(
                tx, {"id": folder_id, "user_id": owner["id"], "name": "Read later", "created_at": now}
            )
            candidates = await bookmark_rows.public_post_ids_tx(tx, owner["id"], 60)
            for index, post_id in enumerate(sorted(rng.sample(candidates, 6))):
                row = {
                    "user_id": owner["id"],
                    "post_id": post_id,
                    "folder_id": folder_id if index % 3 == 0 else None,
                    "created_at": now - (6 - index) * 3_600_000,
                }
                await bookmark_rows.insert_bookmark(tx, row)
                await bump_post(tx, post_id, "bookmark_count", 1)
            blocked = rng.choice(people[1:])
            await dm_block_rows.insert_dm_block(tx, owner["id"], blocked["id"], now)
            org = await accounts.create_user_in(
                tx,
                username="roost_labs",
                name="Roost Labs",
                description="The team behind roost.",
                url="https://example.com/labs",
                verified=True,
                verified_type="business",
            )
            badge = {
                "badge_url": f"https://pbs.twimg.com/profile_images/{org['id']}/badge_normal.jpg",
                "description": "Roost Labs",
                "url": "https://example.com/labs",
                "user_id": [str(org["id"])],
            }
            for first in ("Ada", "Grace", "Linus"):
                last = rng.choice(LAST)
                await accounts.create_user_in(
                    tx,
                    username=f"{first.lower()}_labs",
                    name=f"{first} {last}",
                    description=f"{rng.choice(PHRASES)} at Roost Labs.",
                    affiliation=badge,
                )

    async def _spaces_and_standing(self, owner: dict, people: list[dict], now: int) -> None:
        """Issue 15's objects, made last so no earlier id or object changes: Spaces live, scheduled
        and ended (some ticketed, the owner's with buyers), and accounts whose standing compliance jobs
        report (one suspended, one deactivated, one with its geo data scrubbed)."""
        rng = random.Random(self._seed + 15)
        tokens = TokenSource(self._seed + 15)
        others = people[1:]
        plans = [
            ("live", "Roost office hours: webhooks and CRC", owner, True),
            ("live", "Postgres vs SQLite for sandboxes", rng.choice(others), False),
            ("scheduled", "Release party: roost next", owner, True),
            ("scheduled", "Rust and Python interop", rng.choice(others), False),
            ("ended", "Testing OAuth flows live", rng.choice(others), False),
            ("ended", "Open source maintainers chat", rng.choice(others), True),
        ]
        async with self._db.transaction() as tx:
            for index, (state, title, creator, ticketed) in enumerate(plans):
                cast = [p for p in rng.sample(others, 6) if p["id"] != creator["id"]]
                hosts = [creator["id"], cast[0]["id"]]
                speakers = [*hosts, cast[1]["id"], cast[2]["id"]]
                created = now - (index + 1) * 3_600_000
                started = None if state == "scheduled" else created + 600_000
                row = {
                    "id": "1" + tokens.token(12, SPACE_ALPHABET),
                    "creator_id": creator["id"],
                    "title": title,
                    "state": state,
                    "created_at": created,
                    "started_at": started,
                    "ended_at": created + 2_400_000 if state == "ended" else None,
                    "scheduled_start": now + (index + 1) * DAY_MS if state == "scheduled" else None,
                    "updated_at": created,
                    "lang": "en",
                    "is_ticketed": int(ticketed),
                    "participant_count": 0 if state == "scheduled" else rng.randint(12, 400),
                    "subscriber_count": rng.randint(3, 60),
                    "host_ids": jsonio.dumps([str(i) for i in hosts]).decode(),
                    "speaker_ids": None
                    if state == "scheduled"
                    else jsonio.dumps([str(i) for i in speakers]).decode(),
                    "invited_user_ids": jsonio.dumps([str(cast[3]["id"])]).decode(),
                    "topic_ids": jsonio.dumps(rng.sample([t["id"] for t in SPACE_TOPICS[:4]], 2)).decode(),
                }
                await social_rows.insert_space(tx, row)
                if ticketed and state != "ended":
                    for offset, buyer in enumerate(rng.sample(others, 3)):
                        await space_rows.insert_ticket(tx, row["id"], buyer["id"], created + offset * 60_000)
            standing = (
                ("suspended_at", people[-2]),
                ("deactivated_at", people[-3]),
                ("geo_scrubbed_at", people[3]),
            )
            for column, person in standing:
                account = {"user_id": person["id"], "suspended_at": None, "deactivated_at": None}
                account.update(geo_scrubbed_at=None, updated_at=now)
                account[column] = now - DAY_MS
                await compliance_rows.put_standing(tx, account, False)

    async def _follow_counts(self, people: list[dict]) -> None:
        ids = [p["id"] for p in people]
        async with self._db.transaction() as tx:
            for user_id in ids:
                relations = await self._users.relations(user_id, ids)
                following = sum(1 for f, _ in relations if f == user_id)
                followers = sum(1 for _, t in relations if t == user_id)
                await bump_user(tx, user_id, "following_count", following)
                await bump_user(tx, user_id, "followers_count", followers)


async def _media(
    sources: SeedSources, tx: Executor, people: list[dict], rng: random.Random
) -> dict[int, list[int]]:
    owned: dict[int, list[int]] = {}
    for index, person in enumerate(people[:20]):
        media_id = sources.ids.next_id()
        kind = "video" if index % 4 == 3 else "photo"
        row = {
            "media_key": media_key(kind, media_id),
            "id": media_id,
            "type": kind,
            "url": None if kind == "video" else f"https://pbs.twimg.com/media/demo{media_id}.jpg",
            "preview_image_url": f"https://pbs.twimg.com/media/demo{media_id}_thumb.jpg"
            if kind == "video"
            else None,
            "width": 1280,
            "height": 720,
            "duration_ms": 15_000 if kind == "video" else None,
            "alt_text": f"Demo image {index}",
            "variants": jsonio.dumps(
                [
                    {
                        "bit_rate": 2176000,
                        "content_type": "video/mp4",
                        "url": f"https://video.twimg.com/demo/{media_id}.mp4",
                    }
                ]
            ).decode()
            if kind == "video"
            else None,
            "view_count": rng.randint(10, 5000) if kind == "video" else None,
            "owner_id": person["id"],
            "created_at": sources.clock.now_ms(),
        }
        await user_rows.insert_media(tx, row)
        owned.setdefault(person["id"], []).append(media_id)
    return owned


async def _posts(
    posting: PostService,
    clock: Clock,
    people: list[dict],
    media_ids: dict[int, list[int]],
    rng: random.Random,
    count: int,
    now: int,
) -> None:
    created: list[dict] = []
    step = (now - 60_000 - clock.now_ms()) // max(count, 1)
    for index in range(count):
        clock.advance(step / 1000)
        author = people[0] if index % 10 == 0 else rng.choice(people)
        body: dict[str, Any] = {"text": _text(rng, people, index)}
        if created and index % 6 == 1:
            body["reply"] = {"in_reply_to_tweet_id": str(rng.choice(created[-20:])["id"])}
        elif created and index % 11 == 2:
            body["quote_tweet_id"] = str(rng.choice(created)["id"])
        if media_ids.get(author["id"]) and index % 5 == 0:
            body["media"] = {"media_ids": [str(media_ids[author["id"]][0])]}
        elif index % 37 == 3:
            body["poll"] = {"options": ["Yes", "No", "Maybe"], "duration_minutes": 1440}
        if "media" in body or "poll" in body:
            # A quote excludes media and polls; its id was still drawn, so later draws stay the same.
            body.pop("quote_tweet_id", None)
        if index % 29 == 4:
            body["geo"] = {"place_id": PLACES[index % 2]["id"]}
        created.append(await posting.create(author["id"], body))


def _text(rng: random.Random, people: list[dict], index: int) -> str:
    parts = [rng.choice(PHRASES)]
    if index % 3 == 0:
        parts.append(f"@{rng.choice(people)['username']}")
    if index % 4 == 0:
        parts.append(rng.choice(TOPICS))
    if index % 9 == 0:
        parts.append(f"https://example.com/posts/{index}")
    parts.append(f"({index})")
    return " ".join(parts)


# ---- lists (issue 14) ---------------------------------------------------------------------------


async def _lists(db: Database, users: UserStore, people: list[dict], rng: random.Random) -> None:
    """Public and private lists with members and followers, one pinned: the demo user owns two (one
    private), follows and belongs to a third, and pins one, so every list read answers something.
    Made through the list rules (counters, listed_count) with their own clock and id source, so the
    rest of the demo is unchanged."""
    clock = Clock(frozen_ms=ACCOUNTS_EPOCH_MS + DAY_MS)
    posts = PostStore(db)
    ids = SnowflakeGenerator(clock, worker=4)
    service = ListService(db, clock, ids, ListStore(db), users, posts, Lookup(posts, users))
    owner, others = people[0], people[1:]

    async def make(owner_id: int, name: str, description: str, members: list[dict], private: bool) -> int:
        row = await service.create(owner_id, {"name": name, "description": description, "private": private})
        for member in members:
            clock.advance(60)
            await service.add_member(owner_id, row["id"], member["id"])
        return int(row["id"])

    storage = await make(
        owner["id"], "Storage nerds", "People who think about databases", rng.sample(others, 8), False
    )
    await make(owner["id"], "Close friends", "", rng.sample(others, 3), True)
    curator = others[0]
    watchers = await make(
        curator["id"],
        "Webhook watchers",
        "Events, retries and CRC checks",
        [owner, *rng.sample(others[1:], 4)],
        False,
    )
    clock.advance(60)
    await service.follow(owner["id"], watchers)
    for fan in rng.sample(others[1:], 4):
        clock.advance(60)
        await service.follow(fan["id"], storage)
    await service.pin(owner["id"], storage)


# ---- reposts and a hidden reply (issue 14) --------------------------------------------------------


async def _reposts_and_hidden_replies(
    db: Database,
    users: UserStore,
    posting: PostService,
    clock: Clock,
    ids: SnowflakeGenerator,
    people: list[dict],
    seed: int,
) -> None:
    """Reposts (some of the demo user's posts among them, so reposts_of_me answers; two by the demo
    user, so the home timeline shows reposts) and a reply the demo user hid, made after every other
    demo object with a generator of their own: nothing made before changes."""
    rng = random.Random(seed + 14)
    store = PostStore(db)
    reposts = Reposts(db, clock, ids, posting, store, RepostStore(db), Lookup(store, users))
    owner = people[0]
    public = [person for person in people if not person["protected"]]
    recent = await store.timeline(author_id=owner["id"], limit=20)
    others = [
        row
        for person in rng.sample(public[1:], 8)
        for row in await store.timeline(author_id=person["id"], limit=3)
    ]
    for source in rng.sample(recent, 4):
        clock.advance(1)
        await reposts.repost(rng.choice(public[1:])["id"], {"tweet_id": str(source["id"])})
    for index, source in enumerate(rng.sample(others, 8)):
        clock.advance(1)
        reposter = owner if index < 2 else rng.choice(public[1:])
        await reposts.repost(reposter["id"], {"tweet_id": str(source["id"])})
    clock.advance(1)
    replier = rng.choice(public[1:])
    reply = await posting.create(
        replier["id"], {"text": "Off topic, sorry!", "reply": {"in_reply_to_tweet_id": str(recent[0]["id"])}}
    )
    await reposts.hide_reply(owner["id"], reply["id"], {"hidden": True})
