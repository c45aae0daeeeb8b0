"""Batch compliance jobs: an app names a job type (tweets or users), PUTs a file of ids to the job's
pre-signed upload URL, and once processed downloads one JSON line per id that needs action.

The job moves on the roost clock: `created` until the file arrives (or `expired` when the upload URL
lapses, 15 minutes after creation); `in_progress` for the processing time (feature setting
`compliance_job_processing_seconds`, default 60); then `complete` (or `failed` when the file held
something other than ids); `expired` once the download URL lapses (7 days after creation). Moves are
settled when a job is next read, in the transaction that reads it; the result is computed from
roost's data at the moment processing ends. An app has at most `compliance_job_limit` (default 1)
open jobs (created or in progress) of each type: another is a 409 conflict.

The URLs are served by roost itself (`platform/compliance_storage.py`) in the shape of the
platform's storage URLs; the domain checks their signature and expiry and says which storage error
answers a bad one.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from roost.config import Settings
from roost.core import errors, jsonio
from roost.core.clock import Clock, iso_ms
from roost.core.ids import SnowflakeGenerator, TokenSource, snowflake_ms
from roost.core.records import Row
from roost.storage import compliance as job_rows
from roost.storage import posts as post_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.events import append_event
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

UPLOAD_EXPIRES_S = 900
DOWNLOAD_EXPIRES_S = 604_800
NAME_MAX = 64
BUCKETS = {"tweets": "twttr-tweet-compliance", "users": "twttr-user-compliance"}
_BODY_KEYS = ("type", "name", "resumable")
_CHUNK = 500
# Standing flag, its column, and the event kinds of it being set and cleared (the users compliance
# stream's `user_suspend` / `user_unsuspend`, `user_delete` / `user_undelete`).
STANDING_EVENTS = (
    ("suspended", "suspended_at", ("user.suspend", "user.unsuspend")),
    ("deactivated", "deactivated_at", ("user.delete", "user.undelete")),
)


class StorageError(Exception):
    """A refusal of the storage URLs, in the storage service's terms (its XML error codes)."""

    def __init__(self, status: int, code: str, message: str, details: str = "") -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.message = message
        self.details = details


def _denied() -> StorageError:
    return StorageError(
        403,
        "SignatureDoesNotMatch",
        "Access denied.",
        "The request signature we calculated does not match the signature you provided. "
        "Check your Google secret key and signing method.",
    )


def _no_such_key() -> StorageError:
    return StorageError(404, "NoSuchKey", "The specified key does not exist.")


def _goog_date(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y%m%dT%H%M%SZ")


def _job_body(body: Any) -> tuple[str, str | None, bool]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    extra = sorted(set(body) - set(_BODY_KEYS))
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    if "type" not in body:
        raise errors.invalid_body("$.type: is missing but it is required")
    job_type = body["type"]
    if not isinstance(job_type, str):
        raise errors.invalid_body(f"$.type: {jsonio.type_name(job_type)} found, string expected")
    if job_type not in BUCKETS:
        raise errors.invalid_body("$.type: does not have a value in the enumeration [tweets, users]")
    name = body.get("name")
    if name is not None:
        if not isinstance(name, str):
            raise errors.invalid_body(f"$.name: {jsonio.type_name(name)} found, string expected")
        if len(name) > NAME_MAX:
            raise errors.invalid_body(f"$.name: must be at most {NAME_MAX} characters long")
    resumable = body.get("resumable", False)
    if not isinstance(resumable, bool):
        raise errors.invalid_body(f"$.resumable: {jsonio.type_name(resumable)} found, boolean expected")
    return job_type, name, resumable


def parse_ids(text: str) -> list[int] | None:
    """The ids of an uploaded file, one a line (blank lines ignored); None when a line is not an id."""
    ids: list[int] = []
    for line in text.splitlines():
        item = line.strip()
        if not item:
            continue
        if not (item.isascii() and item.isdigit() and len(item) <= 19) or int(item) >= 1 << 63:
            return None
        ids.append(int(item))
    return list(dict.fromkeys(ids))


class ComplianceJobs:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        tokens: TokenSource,
        settings: Settings,
        posts: PostStore,
        users: UserStore,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._tokens = tokens
        self._settings = settings
        self._posts = posts
        self._users = users

    # ---- the v2 operations ----------------------------------------------------------------------

    async def create(self, app_id: int, body: Any, origin: str = "") -> Row:
        job_type, name, resumable = _job_body(body)
        limit = self._settings.whole("compliance_job_limit", 1, positive=True)
        async with self._db.transaction() as tx:
            open_jobs = 0
            for row in await job_rows.open_jobs_tx(tx, app_id, job_type):
                if (await self._settle(tx, row))["status"] in ("created", "in_progress"):
                    open_jobs += 1
            if open_jobs >= limit:
                raise errors.conflict(
                    f"You have reached the maximum number of active {job_type} compliance jobs "
                    f"({limit}). Wait for a job to complete or expire before creating another."
                )
            now = self._clock.now_ms()
            row = {
                "id": self._ids.next_id(),
                "app_id": app_id,
                "type": job_type,
                "name": name,
                "resumable": int(resumable),
                "status": "created",
                "created_at": now,
                "upload_expires_at": now + UPLOAD_EXPIRES_S * 1000,
                "download_expires_at": now + DOWNLOAD_EXPIRES_S * 1000,
                "signature": self._tokens.token(64, "0123456789abcdef"),
                "upload": None,
                "uploaded_at": None,
                "ready_at": None,
                "result": None,
            }
            await job_rows.insert_job(tx, row)
        return self._view(row, origin)

    async def get(self, app_id: int, job_id: int, origin: str = "") -> Row:
        async with self._db.transaction() as tx:
            row = await job_rows.get_job_tx(tx, job_id)
            if row is None or row["app_id"] != app_id:
                raise errors.not_found_problem(f"Could not find compliance job with id: [{job_id}].")
            return self._view(await self._settle(tx, row), origin)

    async def list_jobs(self, app_id: int, job_type: str, status: str | None, origin: str = "") -> list[Row]:
        """The app's jobs of a type, newest first, optionally of one status."""
        async with self._db.transaction() as tx:
            rows = [await self._settle(tx, row) for row in await job_rows.jobs_tx(tx, app_id, job_type)]
        return [self._view(row, origin) for row in rows if status is None or row["status"] == status]

    async def set_standing(self, user_id: int, body: Any) -> Row:
        """The control plane's account standing: `suspended` and `deactivated` (true or false) and
        `scrub_geo` (true: the geo data of the account's posts so far is scrubbed), as compliance
        results report them."""
        if not isinstance(body, dict) or not body or set(body) - {"suspended", "deactivated", "scrub_geo"}:
            raise errors.invalid_body("expected an object of suspended, deactivated and scrub_geo")
        if any(not isinstance(value, bool) for value in body.values()) or body.get("scrub_geo") is False:
            raise errors.invalid_body("suspended and deactivated are booleans; scrub_geo can only be true")
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            if await user_rows.get_user_tx(tx, user_id) is None:
                raise errors.not_found_problem(f"Could not find user with id: [{user_id}].")
            stored = await job_rows.get_standing_tx(tx, user_id)
            row = (
                dict(stored)
                if stored is not None
                else {
                    "user_id": user_id,
                    "suspended_at": None,
                    "deactivated_at": None,
                    "geo_scrubbed_at": None,
                }
            )
            changes: list[str] = []
            for flag, column, (on, off) in STANDING_EVENTS:
                if flag in body:
                    was = row[column] is not None
                    row[column] = (row[column] or now) if body[flag] else None
                    if body[flag] != was:
                        changes.append(on if body[flag] else off)
            if body.get("scrub_geo"):
                row["geo_scrubbed_at"] = now
                changes.append("user.scrub_geo")
            row["updated_at"] = now
            await job_rows.put_standing(tx, row, stored is not None)
            await self._log_standing(tx, user_id, changes, now)
        return row

    async def _log_standing(self, tx: Executor, user_id: int, kinds: list[str], now: int) -> None:
        """One event per change, for the users compliance stream. A scrub names the newest post it
        covers (`up_to_tweet_id`); an account without posts has nothing to scrub and no event."""
        for kind in kinds:
            payload = {"user_id": str(user_id)}
            if kind == "user.scrub_geo":
                newest = await post_rows.latest_post_of(tx, user_id)
                if newest is None:
                    continue
                payload["up_to_post_id"] = str(newest)
            await append_event(
                tx,
                event_id=self._ids.next_id(),
                kind=kind,
                created_at=now,
                user_id=user_id,
                object_id=user_id,
                payload=payload,
            )

    # ---- the storage URLs -------------------------------------------------------------------------

    async def upload(
        self,
        job_id: int,
        bucket: str,
        signature: str,
        content: bytes,
        content_range: str | None,
        session: str | None,
    ) -> tuple[int, dict[str, str]]:
        """A PUT to the upload URL (or a resumable session's): (status, headers). A whole file, or a
        chunk of a resumable upload (308 with the `Range` held so far until the last one)."""
        async with self._db.transaction() as tx:
            row = dict(await self._url_job(tx, job_id, bucket, signature, "upload"))
            if row["resumable"] and session is not None and session != self._session_id(row):
                raise _no_such_key()
            held = (row["upload"] or "").encode()
            total: int | None = None
            if content_range is not None:
                start, total, status_query = self._content_range(content_range)
                if status_query:
                    content = b""
                elif start != len(held):
                    return 308, self._range(len(held))
                data = held + content
            else:
                data = content
            try:
                row["upload"] = data.decode("utf-8")
            except UnicodeDecodeError:
                row["upload"] = data.decode("latin-1")
            if total is not None and len(data) < total:
                await job_rows.update_job(tx, row)
                return 308, self._range(len(data))
            now = self._clock.now_ms()
            processing = self._settings.number("compliance_job_processing_seconds", 60.0)
            row.update(status="in_progress", uploaded_at=now, ready_at=now + int(processing * 1000))
            await job_rows.update_job(tx, row)
        return 200, {}

    async def start_session(self, job_id: int, bucket: str, signature: str) -> str:
        """`POST` with `x-goog-resumable: start` on a resumable job's upload URL: the session's query."""
        async with self._db.transaction() as tx:
            row = await self._url_job(tx, job_id, bucket, signature, "upload")
            if not row["resumable"]:
                raise _denied()
            return self._session_id(row)

    async def download(self, job_id: int, bucket: str, signature: str) -> bytes:
        async with self._db.transaction() as tx:
            row = await self._url_job(tx, job_id, bucket, signature, "download")
            if row["status"] != "complete":
                raise _no_such_key()
            return (row["result"] or "").encode()

    # ---- settling on the clock --------------------------------------------------------------------

    async def _settle(self, tx: Executor, stored: Row) -> Row:
        """The job as the clock now has it, written back when it moved."""
        row = dict(stored)
        now = self._clock.now_ms()
        if row["status"] == "created" and now >= row["upload_expires_at"]:
            row["status"] = "expired"
        if row["status"] == "in_progress" and now >= row["ready_at"]:
            ids = parse_ids(row["upload"] or "")
            if ids is None:
                row["status"] = "failed"
            else:
                row["status"] = "complete"
                row["result"] = await self._results(tx, row["type"], ids)
        if row["status"] == "complete" and now >= row["download_expires_at"]:
            row["status"] = "expired"
        if row["status"] != stored["status"]:
            await job_rows.update_job(tx, row)
        return row

    async def _results(self, tx: Executor, job_type: str, ids: list[int]) -> str:
        """One JSON line per id needing action, from the data as it stands when processing ends."""
        standing = await job_rows.all_standing_tx(tx)
        lines: list[bytes] = []
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            if job_type == "tweets":
                posts = {row["id"]: row for row in await self._posts.get_many(chunk)}
                authors = await self._users.by_ids(list({row["author_id"] for row in posts.values()}))
                for post_id in chunk:
                    item = self._post_action(post_id, posts.get(post_id), authors, standing)
                    if item is not None:
                        lines.append(jsonio.dumps(item))
            else:
                users = await self._users.by_ids(chunk)
                for user_id in chunk:
                    item = self._user_action(user_id, users.get(user_id), standing.get(user_id))
                    if item is not None:
                        lines.append(jsonio.dumps(item))
        return b"".join(line + b"\n" for line in lines).decode()

    @staticmethod
    def _action(
        object_id: int, created_at: int | None, redacted_at: int | None, reason: str
    ) -> dict[str, Any]:
        item: dict[str, Any] = {"id": str(object_id), "action": "delete"}
        if created_at is not None:
            item["created_at"] = iso_ms(created_at)
        if redacted_at is not None:
            item["redacted_at"] = iso_ms(redacted_at)
        item["reason"] = reason
        return item

    def _post_action(
        self, post_id: int, post: Row | None, authors: dict[int, Row], standing: dict[int, Row]
    ) -> dict[str, Any] | None:
        if post is None:
            created = snowflake_ms(post_id) if post_id >> 22 else None
            return self._action(post_id, created, None, "deleted")
        created = post["created_at"]
        if post["deleted_at"] is not None:
            return self._action(post_id, created, post["deleted_at"], "deleted")
        author = authors.get(post["author_id"])
        if author is None:
            return self._action(post_id, created, None, "deleted")
        account = standing.get(author["id"])
        if account is not None and account["suspended_at"] is not None:
            return self._action(post_id, created, account["suspended_at"], "suspended")
        if account is not None and account["deactivated_at"] is not None:
            return self._action(post_id, created, account["deactivated_at"], "deactivated")
        if author["protected"]:
            return self._action(post_id, created, None, "protected")
        scrubbed = None if account is None else account["geo_scrubbed_at"]
        if scrubbed is not None and post["place_id"] is not None and created <= scrubbed:
            return self._action(post_id, created, scrubbed, "scrub_geo")
        return None

    def _user_action(self, user_id: int, user: Row | None, account: Row | None) -> dict[str, Any] | None:
        if user is None:
            created = snowflake_ms(user_id) if user_id >> 22 else None
            return self._action(user_id, created, None, "deleted")
        created = user["created_at"]
        if account is not None and account["suspended_at"] is not None:
            return self._action(user_id, created, account["suspended_at"], "suspended")
        if account is not None and account["deactivated_at"] is not None:
            return self._action(user_id, created, account["deactivated_at"], "deactivated")
        if user["protected"]:
            return self._action(user_id, created, None, "protected")
        return None

    # ---- URLs ---------------------------------------------------------------------------------------

    def _signature(self, row: Row, stage: str) -> str:
        return hashlib.sha256(f"{row['signature']}:{stage}".encode()).hexdigest() * 4

    def _session_id(self, row: Row) -> str:
        return hashlib.sha256(f"{row['signature']}:session".encode()).hexdigest()[:40]

    def _url(self, row: Row, stage: str, origin: str) -> str:
        folder = "submission" if stage == "upload" else "delivery"
        expires = UPLOAD_EXPIRES_S if stage == "upload" else DOWNLOAD_EXPIRES_S
        signed = "content-type%3Bhost" if stage == "upload" else "host"
        day = _goog_date(row["created_at"])
        credential = quote(
            f"roost-compliance@roost.iam.gserviceaccount.com/{day[:8]}/auto/storage/goog4_request", safe=""
        )
        return (
            f"{origin or self._settings.base_url}/storage/{BUCKETS[row['type']]}/{row['id']}/{folder}/"
            f"{row['app_id']}_{row['id']}?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential={credential}"
            f"&X-Goog-Date={day}&X-Goog-Expires={expires}&X-Goog-SignedHeaders={signed}"
            f"&X-Goog-Signature={self._signature(row, stage)}"
        )

    def _view(self, row: Row, origin: str) -> Row:
        """The job with its URLs, on the origin the request came to: a program that reached roost
        through `roost run`'s redirect gets URLs on the platform's host, which the redirect sends
        back to roost; one that names roost's address gets that address."""
        return {
            **row,
            "upload_url": self._url(row, "upload", origin),
            "download_url": self._url(row, "download", origin),
        }

    async def _url_job(self, tx: Executor, job_id: int, bucket: str, signature: str, stage: str) -> Row:
        stored = await job_rows.get_job_tx(tx, job_id)
        if stored is None or BUCKETS[stored["type"]] != bucket:
            raise _no_such_key()
        if signature != self._signature(stored, stage):
            raise _denied()
        row = await self._settle(tx, stored)
        expires = row["upload_expires_at"] if stage == "upload" else row["download_expires_at"]
        if self._clock.now_ms() >= expires:
            raise StorageError(
                400,
                "ExpiredToken",
                "Invalid argument.",
                f"The provided token has expired. Request signature expired at: {iso_ms(expires)[:19]}+00:00",
            )
        if stage == "upload" and row["status"] != "created":
            raise StorageError(403, "AccessDenied", "Access denied.", "The upload of this job is complete.")
        return row

    @staticmethod
    def _content_range(header: str) -> tuple[int, int | None, bool]:
        """(first byte, total size or None, is a status query) of `bytes a-b/n` or `bytes */n`."""
        text = header.strip()
        if not text.startswith("bytes "):
            raise StorageError(400, "InvalidArgument", "Invalid argument.", "Invalid Content-Range header.")
        span, _, size = text[6:].partition("/")
        total = int(size) if size.isdigit() else None
        if span == "*":
            return 0, total, True
        first, _, _ = span.partition("-")
        if not first.isdigit():
            raise StorageError(400, "InvalidArgument", "Invalid argument.", "Invalid Content-Range header.")
        return int(first), total, False

    @staticmethod
    def _range(held: int) -> dict[str, str]:
        return {"Range": f"bytes=0-{held - 1}"} if held else {}
