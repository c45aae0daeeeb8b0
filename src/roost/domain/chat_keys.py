"""Encrypted chat's public keys: a user registers their own (`POST /2/users/{id}/public_keys`), anyone
reads them (`GET /2/users/{id}/public_keys`, `GET /2/users/public_keys?ids=`), newest version first.
The key material is the client's, kept exactly as sent."""

from __future__ import annotations

from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.records import Row
from roost.domain.chat_bodies import refused
from roost.domain.pages import Page
from roost.storage import chat as chat_rows
from roost.storage import users as user_rows
from roost.storage.db import Database

KEY_FIELDS = (
    "identity_public_key_signature",
    "public_key",
    "public_key_fingerprint",
    "registration_method",
    "signing_public_key",
    "signing_public_key_signature",
)
NOT_PERMITTED = "You are not permitted to perform this action."
# roost runs no secure-key-backup realm: the configuration a key's owner gets names none.
JUICEBOX_CONFIG: dict[str, Any] = {
    "realms": [],
    "register_threshold": 0,
    "recover_threshold": 0,
    "pin_hashing_mode": "Standard2019",
}


def key_object(row: Row, owner: bool) -> dict[str, Any]:
    """A stored key as the `public_key` kind renders it; the backup configuration only for its owner."""
    key = jsonio.loads(row["public_key"])
    out: dict[str, Any] = {
        "user_id": int(row["user_id"]),
        "public_key_version": str(row["version"]),
        "public_key": key.get("public_key"),
        "signing_public_key": key.get("signing_public_key"),
        "identity_public_key_signature": key.get("identity_public_key_signature"),
    }
    if owner:
        out["juicebox_config"] = JUICEBOX_CONFIG
    return out


def _registration(body: Any) -> tuple[dict[str, str], str | None, bool]:
    """(key fields, version or None, generate_version) of `{public_key, version, generate_version?}`."""
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    for name in ("public_key", "version"):
        if name not in body:
            raise errors.invalid_body(f"$.{name}: is missing but it is required")
    key = body["public_key"]
    if not isinstance(key, dict):
        raise errors.invalid_body("$.public_key: object expected")
    fields: dict[str, str] = {}
    for name in KEY_FIELDS:
        if name in key:
            if not isinstance(key[name], str):
                raise errors.invalid_body(f"$.public_key.{name}: string expected")
            fields[name] = key[name]
    if not fields.get("public_key"):
        raise errors.invalid_body("$.public_key.public_key: is missing but it is required")
    version, generate = body["version"], body.get("generate_version", False)
    if not isinstance(version, str):
        raise errors.invalid_body("$.version: string expected")
    if not isinstance(generate, bool):
        raise errors.invalid_body("$.generate_version: boolean expected")
    if not generate and not (version.isascii() and version.isdigit() and len(version) <= 19):
        raise errors.invalid_body("$.version: a numeric string is expected")
    return fields, version, generate


class ChatKeys:
    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def register(self, caller: int, user_id: int, body: Any) -> dict[str, Any]:
        if caller != user_id:
            problem = refused(NOT_PERMITTED, "user", str(user_id))
            raise problem.because("a user registers only their own keys")
        fields, version, generate = _registration(body)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            if generate:
                # A fresh version above every earlier one: the instant, in milliseconds.
                newest = [int(row["version"]) for row in await chat_rows.public_keys(tx, user_id)]
                version = str(max([now, *(v + 1 for v in newest)]))
            assert version is not None
            stored = await chat_rows.public_key(tx, user_id, version)
            material = jsonio.dumps(fields).decode()
            if stored is not None:
                if jsonio.loads(stored["public_key"]) != fields:
                    raise errors.invalid_body(f"Public key version {version} is already registered.")
            else:
                row = {"user_id": user_id, "version": version, "public_key": material, "created_at": now}
                await chat_rows.insert_public_key(tx, row)
        return {"data": {"public_key_version": version, "juicebox_config": JUICEBOX_CONFIG}}

    async def of_user(self, caller: int | None, user_id: int) -> Page:
        """Every version of the user's key, newest first (`data[0]` is the one to encrypt to)."""
        async with self._db.transaction() as tx:
            if await user_rows.get_user_tx(tx, user_id) is None:
                return Page([], errors=[errors.resource_not_found_item("user", "id", str(user_id))])
            rows = await chat_rows.public_keys(tx, user_id)
        return Page([key_object(row, caller == user_id) for row in rows])

    async def of_users(self, caller: int | None, user_ids: list[int]) -> Page:
        """Each user's newest key, in the order asked; unknown users as not-found items."""
        found: list[Row] = []
        problems: list[dict[str, Any]] = []
        async with self._db.transaction() as tx:
            for user_id in dict.fromkeys(user_ids):
                if await user_rows.get_user_tx(tx, user_id) is None:
                    problems.append(errors.resource_not_found_item("user", "ids", str(user_id)))
                    continue
                rows = await chat_rows.public_keys(tx, user_id)
                if rows:
                    found.append(key_object(rows[0], caller == user_id))
        return Page(found, errors=problems)
