"""Profile edits (through the control plane): checked like the platform's settings, one
`profile.update.<field>` event per field that changed, in the same transaction."""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.core.params import USERNAME_PATTERN
from roost.core.records import Row
from roost.domain.text import user_entities
from roost.storage import social as social_rows
from roost.storage import users as user_rows
from roost.storage.db import Database
from roost.storage.events import append_event

_USERNAME = re.compile(USERNAME_PATTERN)

# body key -> (users column, event field of profile.update.<field>). The platform's `screenname` is
# the display name and `handle` the @username (its event-payload samples; docs/decisions.md).
PROFILE_FIELDS: dict[str, tuple[str, str]] = {
    "description": ("description", "bio"),
    "username": ("username", "handle"),
    "name": ("name", "screenname"),
    "verified": ("verified", "verified"),
    "affiliation": ("affiliation", "affiliate"),
    "profile_image_url": ("profile_image_url", "profile_picture"),
    "profile_banner_url": ("profile_banner_url", "banner_picture"),
    "location": ("location", "geo"),
    "url": ("url", "url"),
}


def _check_profile(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict) or not body:
        raise errors.invalid_body("expected a JSON object with at least one profile field")
    unknown = sorted(set(body) - set(PROFILE_FIELDS))
    if unknown:
        raise errors.invalid_body(f"{unknown[0]} is not a profile field ({', '.join(PROFILE_FIELDS)})")
    limits = {"description": 160, "name": 50, "location": 30, "url": 100}
    for key, value in body.items():
        nullable = key in ("location", "profile_banner_url", "affiliation")
        if value is None:
            if not nullable:
                raise errors.invalid_body(f"{key} cannot be null")
        elif key == "verified":
            if not isinstance(value, bool):
                raise errors.invalid_body("verified must be a boolean")
        elif key == "affiliation":
            if not isinstance(value, dict):
                raise errors.invalid_body("affiliation must be an object or null")
        elif not isinstance(value, str):
            raise errors.invalid_body(f"{key} must be a string")
        elif key == "username" and _USERNAME.fullmatch(value) is None:
            raise errors.invalid_body(f"username must match {USERNAME_PATTERN}")
        elif key in limits and len(value) > limits[key]:
            raise errors.invalid_body(f"{key} must be at most {limits[key]} characters")
        elif key == "name" and not value.strip():
            raise errors.invalid_body("name cannot be empty")
        elif (key in ("profile_image_url", "profile_banner_url") or (key == "url" and value)) and (
            not value.startswith(("http://", "https://"))
        ):
            raise errors.invalid_body(f"{key} must be an http(s) URL")
    return body


def _stored(key: str, value: Any) -> Any:
    if key == "verified":
        return int(value)
    if key == "affiliation":
        return None if value is None else jsonio.dumps(value).decode()
    return value


def _shown_value(key: str, row: Row | dict[str, Any]) -> str:
    """A field as the event payload shows it: a string (empty for none), as the document types
    `before` and `after`.
    A badge is named by what it shows: the verified type (`none` without the badge), the
    affiliation's label (empty without one)."""
    if key == "verified":
        if not row["verified"]:
            return "none"
        kind = row["verified_type"]
        return kind if kind and kind != "none" else "blue"
    if key == "affiliation":
        affiliation = jsonio.loads(row["affiliation"]) if row["affiliation"] else None
        return str(affiliation.get("description") or "") if isinstance(affiliation, dict) else ""
    value = row[PROFILE_FIELDS[key][0]]
    return "" if value is None else str(value)


class Profiles:
    def __init__(self, db: Database, clock: Clock, ids: SnowflakeGenerator) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids

    async def update(self, user_id: int, body: Any) -> tuple[Row, list[str]]:
        """Apply profile changes; one profile.update.<field> event per field that changed."""
        changes = _check_profile(body)
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            row = await user_rows.get_user_tx(tx, user_id)
            if row is None:
                raise errors.not_found_problem(f"Could not find user with id: [{user_id}].")
            values = dict(row)
            changed: list[str] = []
            for key, value in changes.items():
                column, _ = PROFILE_FIELDS[key]
                new = _stored(key, value)
                renamed = key == "username" and value.lower() != row["username_lower"]
                if renamed and await user_rows.get_users_by_names_tx(tx, [value]):
                    raise errors.conflict(f"username {value} is taken")
                if new != row[column]:
                    values[column] = new
                    changed.append(key)
            if not changed:
                return row, []
            values["username_lower"] = values["username"].lower()
            values["entities"] = user_entities(values["description"], values["url"])
            await social_rows.update_profile(tx, user_id, values)
            now = self._clock.now_ms()
            for key in changed:
                field = PROFILE_FIELDS[key][1]
                await append_event(
                    tx,
                    event_id=self._ids.next_id(),
                    kind=f"profile.update.{field}",
                    created_at=now,
                    user_id=user_id,
                    object_id=user_id,
                    payload={
                        "user_id": str(user_id),
                        "before": _shown_value(key, row),
                        "after": _shown_value(key, values),
                    },
                )
        return values, changed
