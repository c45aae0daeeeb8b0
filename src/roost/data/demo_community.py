"""Issue 15's demo objects, made after everything else the demo seeds (with their own random source
and id generator, so no earlier id or object changes): the demo user enrolled as an API note writer
with two test notes, news stories clustering the demo's topical posts, and three communities."""

from __future__ import annotations

import random
from typing import Any

from roost.core import jsonio
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.domain.news import DISCLAIMER, EMPTY_CONTEXTS
from roost.domain.notes import ELIGIBLE_WINDOW_MS, NEW_NOTE_STATUS
from roost.storage import communities as community_rows
from roost.storage import news as news_rows
from roost.storage import notes as note_rows
from roost.storage.db import Database
from roost.storage.notes import NoteStore

ACCOUNTS_EPOCH_MS = 1_717_200_000_000  # the demo accounts' instant (data/demo.py)
HOUR_MS = 3_600_000
STORIES: tuple[dict[str, Any], ...] = (
    {
        "term": "#rustlang",
        "name": "Rust keeps gaining ground with backend teams",
        "category": "Technology",
        "summary": "Developers share migrations of services to Rust and what they learned about performance.",
        "hook": "More teams say they are moving hot paths to Rust.",
        "keywords": ["rust", "rustlang", "backend"],
        "topics": ["Programming"],
    },
    {
        "term": "#sqlite",
        "name": "SQLite shows up in more production stacks",
        "category": "Technology",
        "summary": "Posts describe running SQLite behind real services, and the trade-offs of doing so.",
        "hook": "The embedded database is having a moment.",
        "keywords": ["sqlite", "databases"],
        "topics": ["Databases"],
    },
    {
        "term": "#webhooks",
        "name": "Webhook reliability is the talk of integration teams",
        "category": "Technology",
        "summary": "Engineers compare retry schedules, signatures and CRC checks for webhook delivery.",
        "hook": "Retries, signatures and checks: what keeps webhooks honest.",
        "keywords": ["webhooks", "integrations"],
        "topics": ["Software development"],
    },
    {
        "term": "$ACME",
        "name": "ACME shares move as developers weigh in",
        "category": "Business",
        "summary": "Posts mentioning $ACME pick up after the company's developer day.",
        "hook": "A developer day with market consequences.",
        "keywords": ["acme", "stocks"],
        "topics": ["Stocks"],
        "tickers": ["ACME"],
    },
)
COMMUNITIES: tuple[dict[str, str], ...] = (
    {"name": "Rustaceans", "description": "Rust in production and for fun #rustlang"},
    {"name": "SQLite fans", "description": "Small databases, big results"},
    {
        "name": "Webhook builders",
        "description": "Delivering events reliably",
        "access": "Closed",
        "join_policy": "RestrictedJoinRequestsRequireModeratorApproval",
    },
)
NOTES = (
    {
        "text": "This claim leaves out the benchmark setup; see https://example.com/benchmarks/methodology",
        "classification": "misinformed_or_potentially_misleading",
        "misleading_tags": ["missing_important_context"],
    },
    {
        "text": "The release notes confirm this: https://example.com/releases/latest",
        "classification": "not_misleading",
        "misleading_tags": [],
    },
)


async def seed_community(db: Database, seed: int, owner: dict, people: list[dict], now: int) -> None:
    rng = random.Random(seed + 15)
    ids = SnowflakeGenerator(Clock(frozen_ms=ACCOUNTS_EPOCH_MS), worker=15)
    owner_id = int(owner["id"])
    candidates = await NoteStore(db).eligible(owner_id, now - ELIGIBLE_WINDOW_MS, "en", 1 << 62, 40)
    noted = sorted(rng.sample([int(row["id"]) for row in candidates], min(len(NOTES), len(candidates))))
    async with db.transaction() as tx:
        await note_rows.enrol_writer(tx, owner_id, now)
        for post_id, note in zip(noted, NOTES, strict=False):
            await note_rows.insert_note(
                tx,
                {
                    "id": ids.next_id(),
                    "author_id": owner_id,
                    "post_id": post_id,
                    "text": note["text"],
                    "classification": note["classification"],
                    "misleading_tags": jsonio.dumps(note["misleading_tags"]).decode(),
                    "trustworthy_sources": 1,
                    "is_media_note": 0,
                    "test_mode": 1,
                    "status": NEW_NOTE_STATUS,
                    "created_at": now - HOUR_MS,
                },
            )
        for index, story in enumerate(STORIES):
            cluster = await news_rows.recent_posts_with_tx(tx, str(story["term"]), now - 7 * 24 * HOUR_MS, 10)
            contexts = {
                **EMPTY_CONTEXTS,
                "topics": list(story["topics"]),
                "finance": {"tickers": list(story.get("tickers", []))},
            }
            updated = now - (index * 5 + 1) * HOUR_MS
            await news_rows.insert_story(
                tx,
                {
                    "id": ids.next_id(),
                    "name": story["name"],
                    "category": story["category"],
                    "summary": story["summary"],
                    "hook": story["hook"],
                    "disclaimer": DISCLAIMER,
                    "contexts": jsonio.dumps(contexts).decode(),
                    "keywords": jsonio.dumps(story["keywords"]).decode(),
                    "cluster_post_ids": jsonio.dumps([str(post_id) for post_id in cluster]).decode(),
                    "created_at": updated,
                    "updated_at": updated,
                },
            )
        for index, community in enumerate(COMMUNITIES):
            creator = owner if index < 2 else rng.choice(people[1:])
            community_id = ids.next_id()
            await community_rows.insert_community(
                tx,
                {
                    "id": community_id,
                    "name": community["name"],
                    "description": community["description"],
                    "access": community.get("access", "Public"),
                    "join_policy": community.get("join_policy", "Open"),
                    "creator_id": int(creator["id"]),
                    "created_at": now - (30 - index) * 24 * HOUR_MS,
                    "member_count": 0,
                },
            )
            members = [creator, *(p for p in rng.sample(people[1:], 6) if p["id"] != creator["id"])]
            for position, member in enumerate(members):
                await community_rows.add_member(
                    tx,
                    {
                        "community_id": community_id,
                        "user_id": int(member["id"]),
                        "role": "Admin" if position == 0 else "Member",
                        "created_at": now - (20 - position) * 24 * HOUR_MS,
                    },
                )
