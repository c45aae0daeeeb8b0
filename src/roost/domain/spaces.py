"""Spaces created, started, changed and ended through the control plane (the platform has no write
endpoint for them), with their `spaces.start` and `spaces.end` events, and the tickets sold for
ticketed ones. The v2 reads are in `domain/space_reads.py`.

The platform's rules kept here: a Space is scheduled at most 14 days ahead; `creator_id` is the first
host; at most 10 speakers, hosts included; ended Spaces change no more.
"""

from __future__ import annotations

from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock, parse_rfc3339
from roost.core.ids import SnowflakeGenerator, TokenSource
from roost.core.records import Row
from roost.domain.space_objects import TOPICS_BY_ID, id_list
from roost.storage import social as social_rows
from roost.storage import spaces as space_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.events import append_event

SPACE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
SCHEDULE_AHEAD_MS = 14 * 86_400_000
MAX_SPEAKERS = 10
TITLE_MAX = 70
_USER_LISTS = ("host_ids", "speaker_ids", "invited_user_ids")
_COUNTS = ("participant_count", "subscriber_count")
_CREATE_KEYS = frozenset(
    {"creator_id", "title", "scheduled_start", "lang", "is_ticketed", "topic_ids", *_USER_LISTS, *_COUNTS}
)
_UPDATE_KEYS = _CREATE_KEYS - {"creator_id", "is_ticketed"}


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    return body


def _user_id(value: Any, name: str) -> int:
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or not 0 < len(text) <= 19:
        raise errors.invalid_body(f"{name} must hold user ids (strings of 1 to 19 digits)")
    return int(text)


def _user_ids(body: dict[str, Any], name: str) -> list[int]:
    value = body[name]
    if not isinstance(value, list):
        raise errors.invalid_body(f"{name} must be an array of user ids")
    return list(dict.fromkeys(_user_id(item, name) for item in value))


class Spaces:
    def __init__(self, db: Database, clock: Clock, ids: SnowflakeGenerator, tokens: TokenSource) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._tokens = tokens

    async def start(self, creator_id: int, title: str | None) -> Row:
        """A live Space hosted by `creator_id` alone (the control plane's short form)."""
        body: dict[str, Any] = {"creator_id": str(creator_id)}
        if title is not None:
            body["title"] = title
        return await self.create(body)

    async def create(self, body: Any) -> Row:
        """A Space from the control plane's body: live now (with its `spaces.start` event), or
        scheduled when `scheduled_start` is given."""
        body = _object(body)
        unknown = sorted(set(body) - _CREATE_KEYS)
        if unknown:
            raise errors.invalid_body(f"unknown field {unknown[0]}")
        if "creator_id" not in body:
            raise errors.invalid_body("creator_id must name an existing user")
        creator_id = _user_id(body["creator_id"], "creator_id")
        now = self._clock.now_ms()
        is_ticketed = body.get("is_ticketed", False)
        if not isinstance(is_ticketed, bool):
            raise errors.invalid_body("is_ticketed must be a boolean")
        row: dict[str, Any] = {
            "id": "1" + self._tokens.token(12, SPACE_ALPHABET),
            "creator_id": creator_id,
            "title": None,
            "state": "live",
            "created_at": now,
            "started_at": now,
            "ended_at": None,
            "scheduled_start": None,
            "updated_at": now,
            "lang": None,
            "is_ticketed": int(is_ticketed),
            "participant_count": 0,
            "subscriber_count": 0,
            "host_ids": jsonio.dumps([str(creator_id)]).decode(),
            "speaker_ids": None,
            "invited_user_ids": None,
            "topic_ids": None,
        }
        async with self._db.transaction() as tx:
            if await user_rows.get_user_tx(tx, creator_id) is None:
                raise errors.invalid_body("creator_id must name an existing user")
            await self._apply(tx, row, body, now)
            if row["scheduled_start"] is not None:
                row["state"], row["started_at"] = "scheduled", None
            elif not body.get("participant_count"):
                row["participant_count"] = len(id_list(row["speaker_ids"]) or id_list(row["host_ids"]))
            await social_rows.insert_space(tx, row)
            if row["state"] == "live":
                await self._event(tx, "spaces.start", row)
        return row

    async def update(self, space_id: str, body: Any) -> Row:
        """Change what may change while a Space is scheduled or live (title, roles, topics, counts)."""
        body = _object(body)
        unknown = sorted(set(body) - _UPDATE_KEYS)
        if unknown:
            raise errors.invalid_body(f"unknown or unchangeable field {unknown[0]}")
        async with self._db.transaction() as tx:
            row = dict(await self._space(tx, space_id))
            if row["state"] == "ended":
                raise errors.invalid_body("an ended Space cannot change")
            if "scheduled_start" in body and row["state"] != "scheduled":
                raise errors.invalid_body("only a scheduled Space has a scheduled_start to move")
            now = self._clock.now_ms()
            await self._apply(tx, row, body, now)
            row["updated_at"] = now
            await space_rows.update_space(tx, row)
        return row

    async def go_live(self, space_id: str) -> tuple[Row, bool]:
        """Start a scheduled Space (its `spaces.start` event); (row, False) when it was live already."""
        async with self._db.transaction() as tx:
            row = dict(await self._space(tx, space_id))
            if row["state"] == "live":
                return row, False
            if row["state"] == "ended":
                raise errors.invalid_body("an ended Space cannot start again")
            now = self._clock.now_ms()
            row.update(state="live", started_at=now, updated_at=now)
            row["participant_count"] = row["participant_count"] or len(
                id_list(row["speaker_ids"]) or id_list(row["host_ids"])
            )
            await space_rows.update_space(tx, row)
            await self._event(tx, "spaces.start", row)
        return row, True

    async def end(self, space_id: str) -> tuple[Row, bool]:
        """End a live Space (its `spaces.end` event) or cancel a scheduled one (no event: it never
        started); (row, False) when it had already ended."""
        async with self._db.transaction() as tx:
            row = dict(await self._space(tx, space_id))
            if row["state"] == "ended":
                return row, False
            now = self._clock.now_ms()
            was_live = row["state"] == "live"
            row.update(state="ended", ended_at=now, updated_at=now)
            if was_live:
                if not await social_rows.end_space(tx, space_id, now):
                    return row, False
                await self._event(tx, "spaces.end", row)
            await space_rows.update_space(tx, row)
            return row, True

    async def sell_ticket(self, space_id: str, user_id: int) -> bool:
        """A ticket to a ticketed Space that has not ended; False when the user holds one already."""
        async with self._db.transaction() as tx:
            row = await self._space(tx, space_id)
            if not row["is_ticketed"]:
                raise errors.invalid_body("the Space is not ticketed")
            if row["state"] == "ended":
                raise errors.invalid_body("the Space has ended")
            if await user_rows.get_user_tx(tx, user_id) is None:
                raise errors.invalid_body("user_id must name an existing user")
            if await space_rows.get_ticket_tx(tx, space_id, user_id) is not None:
                return False
            await space_rows.insert_ticket(tx, space_id, user_id, self._clock.now_ms())
        return True

    # ---- helpers ----------------------------------------------------------------------------------

    async def _space(self, tx: Executor, space_id: str) -> Row:
        row = await space_rows.get_space_tx(tx, space_id)
        if row is None:
            raise errors.not_found_problem(f"Could not find space with id: [{space_id}].")
        return row

    async def _apply(self, tx: Executor, row: dict[str, Any], body: dict[str, Any], now: int) -> None:
        """Check the body's fields and write them into `row` (roles as JSON arrays of string ids)."""
        if "title" in body:
            title = body["title"]
            if title is not None and (not isinstance(title, str) or not 1 <= len(title) <= TITLE_MAX):
                raise errors.invalid_body(f"title must be a string of 1 to {TITLE_MAX} characters")
            row["title"] = title
        if "lang" in body:
            lang = body["lang"]
            if lang is not None and (not isinstance(lang, str) or not 2 <= len(lang) <= 8):
                raise errors.invalid_body("lang must be a language code such as en")
            row["lang"] = lang
        if "scheduled_start" in body:
            at = parse_rfc3339(str(body["scheduled_start"]))
            if at is None or not now < at <= now + SCHEDULE_AHEAD_MS:
                raise errors.invalid_body("scheduled_start must be a time within the next 14 days")
            row["scheduled_start"] = at
        for name in _COUNTS:
            if name in body:
                value = body[name]
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise errors.invalid_body(f"{name} must be a whole number")
                row[name] = value
        if "topic_ids" in body:
            topics = body["topic_ids"]
            if not isinstance(topics, list) or any(str(t) not in TOPICS_BY_ID for t in topics):
                raise errors.invalid_body(f"topic_ids must name topics of [{','.join(TOPICS_BY_ID)}]")
            row["topic_ids"] = jsonio.dumps(list(dict.fromkeys(str(t) for t in topics))).decode() or None
        lists = {name: _user_ids(body, name) for name in _USER_LISTS if name in body}
        named = {user_id for ids in lists.values() for user_id in ids}
        for user_id in sorted(named):
            if await user_rows.get_user_tx(tx, user_id) is None:
                raise errors.invalid_body(f"no user with id {user_id}")
        creator = row["creator_id"]
        if "host_ids" in lists:  # the creator is the first host, whatever the body says
            lists["host_ids"] = [creator, *(u for u in lists["host_ids"] if u != creator)]
        for name, ids in lists.items():
            row[name] = jsonio.dumps([str(user_id) for user_id in ids]).decode() if ids else None
        hosts = [int(user_id) for user_id in id_list(row["host_ids"])]
        speakers = {int(user_id) for user_id in id_list(row["speaker_ids"])} | set(hosts)
        if len(speakers) > MAX_SPEAKERS:
            raise errors.invalid_body(f"a Space has at most {MAX_SPEAKERS} speakers, hosts included")

    async def _event(self, tx: Executor, kind: str, row: Row) -> None:
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=kind,
            created_at=self._clock.now_ms(),
            user_id=row["creator_id"],
            object_id=None,  # space ids are not numeric; the payload carries it
            payload={"space_id": row["id"], "creator_id": str(row["creator_id"])},
        )
